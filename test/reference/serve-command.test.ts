import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/cli-errors.ts';
import { faultNames } from '../../src/reference/index.ts';
import { serveCommand } from '../../src/reference/serve-command.ts';
import { BASIC, start } from './helpers.ts';

const CLI = join(import.meta.dirname, '../../src/cli.ts');

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function launch(args: string[], env: Record<string, string> = {}): { child: ChildProcess; output: () => { stdout: string; stderr: string } } {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, DSS_API_KEY: '', DSS_ORG_KEY: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return { child, output: () => ({ stdout, stderr }) };
}

async function run(args: string[], env: Record<string, string> = {}): Promise<Finished> {
  const { child, output } = launch(args, env);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, ...output() };
}

/** Starts `serve`, waits for the printed base URL, and hands back the printed lines. */
async function serve(args: string[], env: Record<string, string> = {}) {
  const { child, output } = launch(['serve', '--port', '0', ...args], env);
  // A hang guard, not a speed bound: a busy machine starts a process in tens of seconds.
  const deadline = Date.now() + 240_000;
  while (!output().stdout.includes('org key:')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${JSON.stringify(output())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const lines = output().stdout.trim().split('\n');
  const baseUrl = /(http:\/\/\S+)/.exec(lines[0]!)![1]!;
  const stop = async (signal: NodeJS.Signals) => {
    const closed = once(child, 'close');
    child.kill(signal);
    const [code] = (await closed) as [number | null];
    return code;
  };
  return { baseUrl, lines, output, stop };
}

const get = async (url: string, authorization: string) => {
  const answer = await request(`${url}/api/bulk/syncs/nope/error-handling`, { headers: { authorization } });
  await answer.body.dump();
  return answer.statusCode;
};

describe('dss-conformance serve', () => {
  test('serves with the given keys, does not print them, and stops on SIGTERM with exit 0', async () => {
    const server = await serve(['--api-key', 'secret-api', '--org-key', 'o1', '--schema-cache-delay-ms', '10']);
    expect(server.lines[0]).toMatch(/^reference listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.lines.slice(1)).toEqual(['api key: as given', 'org key: as given']);
    expect(server.output().stdout).not.toContain('secret-api');
    expect(await get(server.baseUrl, 'Bearer secret-api')).toBe(404);
    expect(await get(server.baseUrl, BASIC)).toBe(404);
    expect(await get(server.baseUrl, 'Bearer wrong')).toBe(403);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.output().stderr).toBe('');
  });

  test('generates and prints keys when none are given, reads DSS_ORG_KEY, stops on SIGINT with exit 0', async () => {
    const server = await serve(['--fault', 'threshold-as-string'], { DSS_ORG_KEY: 'from-env' });
    const apiKey = /^api key: (\S+)$/.exec(server.lines[1]!)![1]!;
    expect(apiKey).not.toBe('as');
    expect(server.lines.slice(2)).toEqual(['org key: as given', 'faults: threshold-as-string']);
    expect(await get(server.baseUrl, `Bearer ${apiKey}`)).toBe(404);
    expect(await get(server.baseUrl, `Basic ${Buffer.from('from-env:').toString('base64')}`)).toBe(404);
    expect(await server.stop('SIGINT')).toBe(0);
  });

  test('--help documents every flag with a sentence', async () => {
    const { code, stdout } = await run(['serve', '--help']);
    expect(code).toBe(0);
    for (const flag of ['--host', '--port', '--api-key', '--org-key', '--schema-cache-delay-ms', '--fault', '--help']) {
      expect(stdout).toMatch(new RegExp(`^  ${flag}\\b.*\\S{3,}.*\\.$`, 'm'));
    }
    expect(stdout).toContain('DSS_API_KEY');
    expect(stdout).toContain('DSS_ORG_KEY');
  });

  const refused: [string, string[], RegExp][] = [
    ['a port that is not an integer', ['--port', 'eighty'], /^--port must be an integer, got "eighty"$/],
    ['a port out of range', ['--port', '65536'], /^--port must be between 0 and 65535, got 65536$/],
    ['a negative cache delay', ['--schema-cache-delay-ms', '-5'], /schema-cache-delay-ms/],
    ['a flag without its value', ['--port'], /--port/],
    ['an unknown flag', ['--verbose'], /^unknown flag --verbose \(see 'dss-conformance serve --help'\)$/],
    ['a positional argument', ['now'], /^unexpected argument 'now'/],
    ['an unknown fault', ['--fault', 'no-such-fault'], /^unknown fault 'no-such-fault' \(known: ([a-z0-9-]+, )*no-auth-url,/],
  ];

  test.each(refused)('%s is a one-line UsageError before anything listens', async (_label, args, message) => {
    const attempt = serveCommand(['--port', '0', ...args]);
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(message);
    expect((await attempt.catch((error: Error) => error.message)) as string).not.toContain('\n');
  });

  // The same through the CLI: each case is its own process, so they run side by side.
  test.concurrent.for(refused.filter(([label]) => /integer|unknown flag|unknown fault/.test(label)))(
    '%s exits 2 with exactly one line on stderr',
    async ([, args, message], { expect }) => {
      const { code, stdout, stderr } = await run(['serve', ...args]);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.endsWith('\n')).toBe(true);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr.replace(/^dss-conformance: /, '').trimEnd()).toMatch(message);
    },
  );

  test('a port already in use exits 3 with one line', async () => {
    const busy = await start();
    try {
      const port = new URL(busy.baseUrl).port;
      const { code, stderr } = await run(['serve', '--port', port]);
      expect(code).toBe(3);
      expect(stderr.trimEnd().split('\n')).toEqual([`dss-conformance: cannot listen on 127.0.0.1:${port}: the port is already in use`]);
    } finally {
      await busy.close();
    }
  });
});

describe('dss-conformance faults', () => {
  test('lists each fault with the requirement IDs it breaks and its description; --json gives the same', async () => {
    const [text, json] = await Promise.all([run(['faults']), run(['faults', '--json'])]);
    expect(text.code).toBe(0);
    expect(json.code).toBe(0);
    const catalogue = JSON.parse(json.stdout) as { name: string; breaks: string[]; description: string }[];
    expect(catalogue.map((f) => f.name)).toEqual(faultNames());
    for (const fault of catalogue) {
      expect(text.stdout).toMatch(new RegExp(`^${fault.name} +breaks ${fault.breaks.join(', ')}$`, 'm'));
      expect(text.stdout).toContain(fault.description);
    }
  });

  test('an unknown flag exits 2', async () => {
    const { code, stderr } = await run(['faults', '--yaml']);
    expect(code).toBe(2);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
