import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import type { LoggedRequest } from '../../src/report/request-log.ts';
import { KNOWN_VERSIONS } from '../../src/runner/settings.ts';
import { runCli } from './run-cli.ts';

// `--api-version all` runs its passes one after another (src/runner/run-command.ts), each in a
// vitest worker thread of its own (src/runner/run-suite.ts). The suite keeps its run's settings,
// client and fixtures in module variables of that thread (src/suite/context.ts): a pass that ran in
// a thread an earlier pass had used would send the earlier pass's version and go on with its
// fixtures and counters. So every pass's
// requests must carry that pass's version, in pass order, and set up fixtures of their own.

test('--api-version all: every pass sends its own version and makes its own fixtures', async () => {
  const run = await runCli(['run', '--api-version', 'all', '--only', 'AUTH-001', '--seed', '7', '--allow-incomplete']);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const checks = run.result!.checks;
  expect(checks.map((c) => `${c.id} ${c.version} ${c.status}`)).toEqual(KNOWN_VERSIONS.map((v) => `AUTH-001 ${v} passed`));

  const requests = JSON.parse(readFileSync(join(run.reports, 'requests.json'), 'utf8')) as LoggedRequest[];
  // The run's own client sends the pass's version; the blocks of equal versions are the passes.
  const sent = requests.filter((r) => r.credential === 'bearer user key').map((r) => r.version);
  const blocks = sent.filter((v, i) => i === 0 || v !== sent[i - 1]);
  expect(blocks).toEqual([...KNOWN_VERSIONS]);
  // Each pass creates the fixtures the setup starts with, named for its own pass, and its
  // fixture counter (a module variable) starts again at 1.
  for (const [index, version] of KNOWN_VERSIONS.entries()) {
    const own = requests.filter((r) => r.version === version && r.credential === 'bearer user key');
    expect(own[0], version).toMatchObject({ method: 'POST', path: '/api/connections' });
    expect(own[0]!.body, version).toMatch(new RegExp(`"name":"dssc-<run>-v${index}-[A-Za-z]+-1"`));
    const named = own.map((r) => /-v(\d+)-/.exec(r.path + (r.body ?? ''))?.[1]).filter((n) => n !== undefined);
    expect(named.length, version).toBeGreaterThan(0);
    expect(new Set(named), version).toEqual(new Set([String(index)]));
  }
});
