import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunResult } from '../../src/report/results.ts';
import { ROOT, withoutTargetEnv } from './run-cli.ts';
import { useRunServers } from './run-server-pool.ts';

// Issue 10's acceptance: a target shaped like the real service needs no code. The whole suite runs
// against `dss-conformance serve` (another process, as a staging target would be) with a profile
// file whose adapter section is declarative only, and must reach the verdicts the built-in adapter
// reaches against the embedded reference: clean, and under a fault of the webhook path.

const SEED = '20261122';
const KEY = 'declarative-serve-api-key';
const ORG = 'declarative-serve-org-key';

/** The reference profile with its adapter section written out as a user's own file would hold it. */
function declarativeProfile(): string {
  const profile = JSON.parse(readFileSync(join(ROOT, 'fixtures/profiles/reference.json'), 'utf8')) as Record<string, unknown> & { adapter: { declarative: unknown; poll: unknown } };
  expect(Object.keys(profile.adapter).sort()).toEqual(['declarative', 'poll']);
  profile.$schema = join(ROOT, 'fixtures/profiles/profile.schema.json');
  profile.name = 'declarative-only';
  const file = join(mkdtempSync(join(tmpdir(), 'dssc-declarative-')), 'profile.json');
  writeFileSync(file, JSON.stringify(profile, null, 2));
  return file;
}

const servers: ChildProcess[] = [];
afterAll(() => {
  for (const s of servers) s.kill('SIGTERM');
});

// The target is a process of its own (that is the point); the kit's runs are judged by their
// verdicts and reports only, so they go to two long-lived children that load the kit once
// (test/suite/run-server-pool.ts), a test's two runs at once.
const runs = useRunServers(2, { sharedSourceDb: true });

async function serve(faults: string[]): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', '--api-key', KEY, '--org-key', ORG, ...faults.flatMap((f) => ['--fault', f])], {
    cwd: ROOT,
    env: withoutTargetEnv(process.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  // A hang guard, not a speed bound: 15 s ran out at load 40.
  const deadline = Date.now() + 240_000;
  while (!/http:\/\/\S+/.test(out) || !out.includes('org key:')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return /(http:\/\/\S+)/.exec(out)![1]!;
}

/** Each check's id and status, in the order of the report. */
const verdicts = (r: RunResult | undefined) => ({ verdict: r?.verdict, checks: r?.checks.map((c) => `${c.id} ${c.status}`) });

describe('a declarative-only profile against `serve` reaches the built-in adapter\'s verdicts', () => {
  const profile = declarativeProfile();
  for (const faults of [[], ['hash-ignores-values']]) {
    test(faults.length ? `under the fault ${faults.join(', ')}` : 'against the clean reference', async () => {
      const baseUrl = await serve(faults);
      const [remote, builtIn] = await Promise.all([
        runs.run(['run', '--base-url', baseUrl, '--profile', profile, '--seed', SEED, '--num-runs', '10', '--max-rps', '1000'], { DSS_API_KEY: KEY, DSS_ORG_KEY: ORG }, 240_000),
        runs.run(['run', '--seed', SEED, '--num-runs', '10', ...faults.flatMap((f) => ['--fault', f])], {}, 240_000),
      ]);
      expect(remote.result, remote.stdout + remote.stderr).toBeDefined();
      expect(verdicts(remote.result)).toEqual(verdicts(builtIn.result));
      expect(remote.result!.checks.filter((c) => c.id.startsWith('WH-')).length).toBeGreaterThan(15);
      expect(remote.code).toBe(faults.length ? 1 : 0);
      // The webhook path went through the kit's database: models were made, no test control was asked.
      const requests = readFileSync(join(remote.reports, 'requests.json'), 'utf8');
      expect(requests).toContain('"/api/models"');
      expect(requests).not.toContain('/_reference/');
    });
  }
});
