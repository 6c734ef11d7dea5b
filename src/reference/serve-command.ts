import { EXIT, parseIntFlag, UsageError } from '../cli-errors.ts';
import { parseFlags } from './cli-flags.ts';
import { DEFAULT_SCHEMA_CACHE_DELAY_MS } from './config.ts';
import { faultByName } from './faults.ts';
import { DEFAULT_HOST, startReference, type RunningReference } from './start.ts';

export const DEFAULT_SERVE_PORT = 8080;

const HELP = `usage: dss-conformance serve [flags]

Starts the reference Data Synchronization Service (state in memory) and keeps it running until
SIGINT or SIGTERM. Prints the base URL, and any key it generated.

flags:
  --host HOST                 Interface to listen on (default ${DEFAULT_HOST}).
  --port N                    TCP port from 0 to 65535; 0 picks a free one (default ${DEFAULT_SERVE_PORT}).
  --api-key KEY               User API key, sent as 'Authorization: Bearer KEY' (default: $DSS_API_KEY, else generated and printed).
  --org-key KEY               Organization key, sent as 'Authorization: Basic base64(KEY:)' (default: $DSS_ORG_KEY, else generated and printed).
  --schema-cache-delay-ms N   Milliseconds after a connection's creation until its source schemas are cached (default ${DEFAULT_SCHEMA_CACHE_DELAY_MS}).
                              Above 0, the first bulk sync on it is answered "No schemas found" however late it comes.
  --capture-log WHERE         inline (default): a run's capture log in its read (data.requests); signed-urls: also
                              as the real service offers it, GET /api/syncs/{id}/executions/{eid}/records answering
                              signed, expiring URLs to gzip JSON-lines files on a second port.
  --fault NAME                Break one rule of the spec on purpose; repeatable ('dss-conformance faults' lists them).
  --help, -h                  Print this help and exit.

exit codes: 0 stopped by a signal, 2 bad flags, 3 cannot listen (e.g. the port is in use)`;

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'api-key': { type: 'string' },
  'org-key': { type: 'string' },
  'schema-cache-delay-ms': { type: 'string' },
  'capture-log': { type: 'string' },
  fault: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
} as const;

/** An empty value (e.g. DSS_API_KEY= in a shell) counts as not given, so a key gets generated. */
function given(...values: (string | undefined)[]): string | undefined {
  return values.find((value) => value !== undefined && value !== '');
}

function waitForStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function serveCommand(argv: string[]): Promise<number> {
  const flags = parseFlags('serve', argv, OPTIONS);
  if (flags.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  const host = flags.host ?? DEFAULT_HOST;
  const port = parseIntFlag('port', flags.port, 0, 65535) ?? DEFAULT_SERVE_PORT;
  const schemaCacheDelayMs = parseIntFlag('schema-cache-delay-ms', flags['schema-cache-delay-ms'], 0, 86_400_000);
  const captureLog = flags['capture-log'];
  if (captureLog !== undefined && captureLog !== 'inline' && captureLog !== 'signed-urls') throw new UsageError(`--capture-log must be inline or signed-urls, got ${JSON.stringify(captureLog)}`);
  const faults = flags.fault ?? [];
  faults.forEach(faultByName); // an unknown name is a usage error before anything listens
  const apiKey = given(flags['api-key'], process.env.DSS_API_KEY);
  const orgKey = given(flags['org-key'], process.env.DSS_ORG_KEY);

  let running: RunningReference;
  try {
    running = await startReference({ host, port, apiKey, orgKey, schemaCacheDelayMs, faults, ...(captureLog ? { captureLog } : {}) });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const reason = code === 'EADDRINUSE' ? 'the port is already in use' : message.split('\n')[0];
    process.stderr.write(`dss-conformance: cannot listen on ${host}:${port}: ${reason}\n`);
    return EXIT.unreachable;
  }

  // A key the user supplied is theirs to know; only a generated one has to be shown.
  const lines = [
    `reference listening on ${running.baseUrl}`,
    `api key: ${apiKey === undefined ? running.apiKey : 'as given'}`,
    `org key: ${orgKey === undefined ? running.orgKey : 'as given'}`,
  ];
  if (faults.length > 0) lines.push(`faults: ${faults.join(', ')}`);
  process.stdout.write(lines.join('\n') + '\n');

  await waitForStopSignal();
  await running.close();
  return EXIT.ok;
}
