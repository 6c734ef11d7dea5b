import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { checkAdapterFile } from '../adapters/load.ts';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, UsageError, parseIntFlag } from '../cli-errors.ts';
import { loadProfile, referenceProfilePath, type Profile } from '../profile/profile.ts';
import { Redactor } from '../report/redact.ts';
import { junitXml } from '../report/junit.ts';
import { loadRequirements, summarize, type RunResult } from '../report/results.ts';
import { consoleSummary } from '../report/console.ts';
import { preflight } from './preflight.ts';
import { runSuite } from './run-suite.ts';
import type { RunSettings } from './settings.ts';

const HELP = `usage: dss-conformance run [flags]

Runs the conformance suite. Without --base-url it starts the embedded reference on a free loopback
port and runs against it (that is what 'npm start' does).

  --base-url URL      target base address; paths /api/... are appended (env DSS_BASE_URL)
  --api-key K         user API key, sent as Bearer (env DSS_API_KEY; required with --base-url)
  --org-key K         organization-scoped key for Basic (env DSS_ORG_KEY); without it AUTH-002 is skipped
  --profile FILE      target profile: answers to what the spec does not show; 'reference' names the
                      reference's (built in; the default for the embedded reference). Against --base-url
                      without it, the checks that need such answers are skipped, with that reason
  --reports DIR       where junit.xml and results.json go (default: reports)
  --seed N            seed for generated data; the same seed regenerates the same requests (default: random, printed)
  --num-runs N        fast-check runs per property check (default: 25)
  --only ID,...       run only these requirement IDs (see 'dss-conformance coverage')
  --timeout-ms N      per-request timeout (default: 10000)
  --max-rps N         request rate bound (default: 20 against --base-url, unbounded for the embedded reference)
  --fault NAME        embedded reference only: break one rule of it (repeatable; see 'dss-conformance faults')
  --adapter FILE      module whose default export makes the target adapter for the webhook checks
                      (default: the built-in adapter, for the reference and targets shaped like it)
  --receiver-host H   where the capturing webhook receiver listens (default: 127.0.0.1)
  --receiver-port N   its port (default: 0, a free port)
  --receiver-public-url URL  the URL the target must use to reach the receiver (a tunnel), when not host:port
  --timestamp-tolerance-s N  how far Service-Signature-Timestamp may be from arrival (default: 300)
  --help              this text

exit codes: 0 every applicable check passed; 1 a check failed; 2 usage, profile or config error;
3 target unreachable or not answering HTTP/JSON`;

export async function runCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'org-key': { type: 'string' },
        profile: { type: 'string' },
        reports: { type: 'string' },
        seed: { type: 'string' },
        'num-runs': { type: 'string' },
        only: { type: 'string' },
        'timeout-ms': { type: 'string' },
        'max-rps': { type: 'string' },
        fault: { type: 'string', multiple: true },
        adapter: { type: 'string' },
        'receiver-host': { type: 'string' },
        'receiver-port': { type: 'string' },
        'receiver-public-url': { type: 'string' },
        'timestamp-tolerance-s': { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0] ?? 'bad flags');
  }
  const flags = parsed.values;
  if (flags.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }

  const baseUrlFlag = flags['base-url'] ?? (process.env.DSS_BASE_URL || undefined);
  const embedded = !baseUrlFlag;
  if (baseUrlFlag !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrlFlag);
    } catch {
      throw new UsageError(`--base-url must be an absolute http(s) URL, got ${JSON.stringify(baseUrlFlag)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be http or https, got ${url.protocol}`);
  }
  if (!embedded && flags.fault) throw new UsageError('--fault applies to the embedded reference only; start a faulty target with `dss-conformance serve --fault NAME`');
  const apiKeyFlag = flags['api-key'] ?? (process.env.DSS_API_KEY || undefined);
  if (!embedded && !apiKeyFlag) throw new UsageError('--api-key (or DSS_API_KEY) is required with --base-url');

  const seed = parseIntFlag('seed', flags.seed, 0, 2 ** 31 - 1) ?? Math.floor(Math.random() * 2 ** 31);
  const numRuns = parseIntFlag('num-runs', flags['num-runs'], 1, 10_000) ?? 25;
  const timeoutMs = parseIntFlag('timeout-ms', flags['timeout-ms'], 100, 600_000) ?? 10_000;
  const maxRps = parseIntFlag('max-rps', flags['max-rps'], 1, 100_000) ?? (embedded ? undefined : 20);
  const known = new Set(loadRequirements().map((r) => r.id));
  const only = (flags.only ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const id of only) if (!known.has(id)) throw new UsageError(`--only: unknown requirement ID ${id} (see 'dss-conformance coverage')`);

  const receiverPort = parseIntFlag('receiver-port', flags['receiver-port'], 0, 65535) ?? 0;
  const tolerance = parseIntFlag('timestamp-tolerance-s', flags['timestamp-tolerance-s'], 1, 86_400) ?? 300;
  const publicUrl = flags['receiver-public-url'];
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) throw new UsageError(`--receiver-public-url must be an http(s) URL, got ${JSON.stringify(publicUrl)}`);
  const adapterPath = flags.adapter ? await checkAdapterFile(flags.adapter) : undefined;
  const { profile, secrets, source: profileSource } = chooseProfile(flags.profile, embedded);
  const reportsDir = resolve(flags.reports ?? 'reports');
  ensureWritable(reportsDir);

  let reference: { baseUrl: string; apiKey: string; orgKey: string; close(): Promise<void> } | undefined;
  if (embedded) {
    const { startReference } = await import('../reference/index.ts');
    reference = await startReference({ port: 0, ...(apiKeyFlag ? { apiKey: apiKeyFlag } : {}), faults: flags.fault ?? [] });
  }
  try {
    const baseUrl = reference?.baseUrl ?? baseUrlFlag!;
    const apiKey = reference?.apiKey ?? apiKeyFlag!;
    const orgKey = reference?.orgKey ?? flags['org-key'] ?? (process.env.DSS_ORG_KEY || undefined);
    const redactor = new Redactor([apiKey, orgKey, ...secrets]);
    const replay = [
      'npx dss-conformance run',
      embedded ? '' : `--base-url ${baseUrl}`,
      flags.profile ? `--profile ${flags.profile}` : '',
      `--seed ${seed}`,
      flags['num-runs'] ? `--num-runs ${numRuns}` : '',
      flags.adapter ? `--adapter ${flags.adapter}` : '',
      ...(flags.fault ?? []).map((f) => `--fault ${f}`),
    ].filter(Boolean).join(' ');
    const settings: RunSettings = {
      baseUrl, apiKey, orgKey, profile, profileSource,
      seed, numRuns, timeoutMs, maxRps, runId: randomBytes(4).toString('hex'), secrets, replay, embedded,
      reportsDir, adapterPath, timestampToleranceS: tolerance,
      receiver: { host: flags['receiver-host'] ?? '127.0.0.1', port: receiverPort, publicUrl },
    };

    process.stdout.write(`dss-conformance: target ${embedded ? `embedded reference at ${baseUrl}${flags.fault ? ` with fault ${flags.fault.join(', ')}` : ''}` : baseUrl}, profile ${settings.profileSource}, seed ${seed}, run id ${settings.runId}\n`);
    const { credentialRefused } = await preflight(settings, redactor);
    settings.credentialRefused = credentialRefused;
    if (credentialRefused) process.stdout.write('dss-conformance: the target refuses the API key; only the AUTH checks run, the others are skipped\n');
    rmSync(join(reportsDir, 'deliveries.json'), { force: true });
    const run = await runSuite(settings, only, redactor);
    run.deliveries = readDeliveryLog(reportsDir);
    writeReports(reportsDir, run, redactor);
    process.stdout.write(consoleSummary(run) + `reports: ${join(reportsDir, 'junit.xml')}, ${join(reportsDir, 'results.json')}\n`);
    return summarize(run).failed > 0 ? EXIT.checkFailed : EXIT.ok;
  } finally {
    await reference?.close();
  }
}

/** Checked before the run: a report folder that cannot be written is a usage error, not a lost run. */
function ensureWritable(dir: string): void {
  try {
    // One level at a time: Node's recursive mkdirSync never returns for some paths (under /proc).
    const missing: string[] = [];
    let existing = dir;
    while (!existsSync(existing)) {
      missing.unshift(existing);
      existing = dirname(existing);
    }
    for (const level of missing) mkdirSync(level);
    accessSync(dir, constants.W_OK);
    const probe = join(dir, `.dssc-write-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw new UsageError(`--reports ${dir}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** The receiver's log, written by the webhook checks' worker: every delivery, malformed ones too. */
function readDeliveryLog(dir: string): RunResult['deliveries'] {
  const file = join(dir, 'deliveries.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { deliveries: NonNullable<RunResult['deliveries']> }).deliveries;
}

/**
 * The profile: a file, or `reference` (built in). The embedded reference uses its own; an external
 * target without --profile gets none, so every check that needs an answer the spec does not show
 * is skipped with that reason instead of being run on the reference's answers (a guess).
 */
function chooseProfile(flag: string | undefined, embedded: boolean): { profile: Profile; secrets: string[]; source: string } {
  if (flag === 'reference' || (flag === undefined && embedded)) return { ...loadProfile(referenceProfilePath), source: 'reference (built in)' };
  if (flag === undefined) return { profile: { name: 'none' }, secrets: [], source: 'none (no --profile: checks that need what the spec does not show are skipped)' };
  return { ...loadProfile(resolve(flag)), source: flag };
}

function writeReports(dir: string, run: RunResult, redactor: Redactor): void {
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'junit.xml'), junitXml(run, redactor));
    writeFileSync(join(dir, 'results.json'), redactor.text(JSON.stringify(run, null, 2)) + '\n');
  } catch (error) {
    throw new UsageError(`--reports ${dir}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
