import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { failedIds, runInProcess } from './in-process.ts';

// `receiver` reads its settings as `run` does (src/runner/config-resolve.ts): a flag, else its
// DSS_RECEIVER_* variable, else the --config file; and takes a --baseline of known failures.

const SEED = '20261122';
const file = (name: string, body: unknown) => {
  const path = join(mkdtempSync(join(tmpdir(), 'dssc-rcv-settings-')), name);
  writeFileSync(path, JSON.stringify(body));
  return path;
};

test('a --config file and DSS_RECEIVER_* variables give the settings; a flag wins over its variable, the variable over the file', async () => {
  const config = file('receiver.json', { fault: 'accepts-secret-prefix', 'num-runs': 2, seed: 1, only: ['RCV-001', 'RCV-003'] });
  const run = await runInProcess(['receiver', '--config', config, '--seed', SEED], { DSS_RECEIVER_ONLY: 'RCV-002' });
  expect(run.code, run.stdout).toBe(1);
  expect(failedIds(run.result!)).toEqual(['RCV-002']);
  expect(run.stdout).toContain(`replay: npx dss-conformance receiver --num-runs 2 --fault accepts-secret-prefix --seed ${SEED} --only RCV-002`);
  const fromEnv = await runInProcess(['receiver', '--only', 'RCV-001'], { DSS_RECEIVER_CONFIG: config, DSS_RECEIVER_SEED: '5' });
  expect(fromEnv.code, fromEnv.stdout).toBe(4);
  expect(fromEnv.stdout).toContain('--num-runs 2 --fault accepts-secret-prefix --seed 5 --only RCV-001');
});

test("run's DSS_* variables are not the receiver's: one CI job may set both", async () => {
  const run = await runInProcess(['receiver', '--seed', SEED, '--num-runs', '2', '--only', 'RCV-001'], { DSS_ONLY: 'auth', DSS_PROFILE: '/nowhere.json', DSS_FAULT: 'nope' });
  expect(run.code, run.stderr).toBe(4);
});

test('a bad setting is one line and exit 2, naming where it came from', async () => {
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['--config', file('c.json', { 'num-run': 3 })], {}, /config .*c\.json: unknown setting 'num-run' \(did you mean num-runs\?.*see 'dss-conformance receiver --help'\)/],
    [['--config', file('c.json', { secret: 'written-here' })], {}, /\/secret: a secret is not written in a config file; give it as \{"\$env": "VARIABLE"\}/],
    [['--config', file('c.json', { strict: 'yes' })], {}, /\/strict: must be true or false/],
    [['--config', file('c.json', { secret: { $env: 'UNSET_FOR_THIS_TEST' } })], {}, /\/secret: environment variable UNSET_FOR_THIS_TEST is not set/],
    [[], { DSS_RECEIVER_NUM_RUNS: 'many' }, /DSS_RECEIVER_NUM_RUNS/],
    [[], { DSS_RECEIVER_STRICT: 'maybe' }, /^dss-conformance: DSS_RECEIVER_STRICT must be true or false \(1 or 0\), got "maybe"$/m],
    [['--baseline', file('b.json', { entries: [{ id: 'RCV-002' }] })], {}, /baseline/],
  ];
  for (const [argv, env, message] of cases) {
    const run = await runInProcess(['receiver', ...argv], env);
    expect(run.code, `${argv.join(' ')} ${JSON.stringify(env)}: ${run.stdout}${run.stderr}`).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
  }
});

test('--baseline: a listed failure is expected-fail (the run passes); a listed pass is stale (it fails)', async () => {
  const baseline = file('baseline.json', { entries: [{ id: 'RCV-002', reason: 'known: prefix accepted, fix in 4.3' }] });
  const known = await runInProcess(['receiver', '--fault', 'accepts-secret-prefix', '--baseline', baseline, '--seed', SEED, '--num-runs', '3']);
  expect(known.code, known.stdout).toBe(0);
  expect(known.result!.checks.find((c) => c.id === 'RCV-002')?.status).toBe('expected-fail');
  expect(known.stdout).toMatch(/^ {2}xfail {2}RCV-002 .*\(baseline: known: prefix accepted, fix in 4\.3\)$/m);
  expect(known.stdout).toContain(`--baseline ${baseline}`);
  const fixed = await runInProcess(['receiver', '--baseline', baseline, '--seed', SEED, '--num-runs', '3', '--only', 'RCV-002']);
  expect(fixed.code, fixed.stdout).toBe(1);
  expect(fixed.result!.checks.find((c) => c.id === 'RCV-002')?.status).toBe('stale');
});
