import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/cli-errors.ts';
import { applyBaseline, baselineProblem, loadBaseline, utcDay, type Baseline } from '../../src/report/baseline.ts';
import type { CheckResult, RunResult } from '../../src/report/results.ts';

// The known-failures gate: a baseline excuses listed failures, never a pass and never past its date.

const ROOT = new URL('../../', import.meta.url).pathname;
const TODAY = new Date('2026-05-10T23:30:00Z');

function check(id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult {
  return { id, title: `${id} does its thing`, area: 'errors', level: 'MUST', section: 's', status, durationMs: 1, ...(status === 'failed' ? { message: `${id} broke\nevidence` } : {}), ...extra };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'dssc-baseline-'));

function writeJson(dir: string, name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('expected a UsageError');
}

describe('loadBaseline', () => {
  test('reads a valid file, with the optional $schema and comment', () => {
    const value = { $schema: '../fixtures/baseline.schema.json', comment: 'team x', entries: [{ id: 'EHS-002', reason: 'vendor ticket 123', until: '2027-01-31' }, { id: 'AUTH-001 accepts Bearer', reason: 'r' }] };
    expect(loadBaseline(writeJson(tmp(), 'b.json', value))).toEqual(value);
  });

  test('an empty list of entries is a baseline', () => {
    expect(loadBaseline(writeJson(tmp(), 'b.json', { entries: [] }))).toEqual({ entries: [] });
  });

  test('a missing file, a directory, invalid JSON: one line naming the file', () => {
    const dir = tmp();
    expect(usageMessage(() => loadBaseline(join(dir, 'nope.json')))).toBe(`baseline ${join(dir, 'nope.json')}: no such file`);
    expect(usageMessage(() => loadBaseline(dir))).toMatch(/is a directory$/);
    expect(usageMessage(() => loadBaseline(writeJson(dir, 'bad.json', '{ "entries": [')))).toMatch(/^baseline .*bad\.json: not JSON \(/);
  });

  test.each([
    [[], /: \(root\): must be object$/],
    [{}, /: \/entries: is required$/],
    [{ entries: {} }, /: \/entries: must be array$/],
    [{ entries: [], extra: 1 }, /: \/extra: is not allowed$/],
    [{ entries: [{ id: 'EHS-002' }] }, /: \/entries\/0\/reason: is required$/],
    [{ entries: [{ reason: 'r' }] }, /: \/entries\/0\/id: is required$/],
    [{ entries: [{ id: 'EHS-002', reason: '' }] }, /: \/entries\/0\/reason: must not be empty$/],
    [{ entries: [{ id: 'EHS-002', reason: '   ' }] }, /: \/entries\/0\/reason: must not be blank$/],
    [{ entries: [{ id: '', reason: 'r' }] }, /: \/entries\/0\/id: must not be empty$/],
    [{ entries: [{ id: 'EHS-002', reason: 7 }] }, /: \/entries\/0\/reason: must be string$/],
    [{ entries: [{ id: 'A-001', reason: 'r' }, { id: 'EHS-002', reason: 'r', until: '31.01.2027' }] }, /: \/entries\/1\/until: must be a date YYYY-MM-DD$/],
    [{ entries: [{ id: 'EHS-002', reason: 'r', until: '2027-02-30' }] }, /: \/entries\/0\/until: must be a date YYYY-MM-DD$/],
    [{ entries: [{ id: 'EHS-002', reason: 'r', until: '2027-01-31T00:00:00Z' }] }, /: \/entries\/0\/until: must be a date YYYY-MM-DD$/],
    [{ entries: [{ id: 'EHS-002', reason: 'r', expires: '2027-01-31' }] }, /: \/entries\/0\/expires: is not allowed$/],
    [{ entries: [{ id: 'EHS-002', reason: 'a' }, { id: 'EHS-002', reason: 'b' }] }, /: \/entries\/1\/id: "EHS-002" is already listed at \/entries\/0$/],
  ])('schema violation %j: the first problem with its JSON pointer', (value, message) => {
    const file = writeJson(tmp(), 'b.json', value);
    const text = usageMessage(() => loadBaseline(file));
    expect(text.startsWith(`baseline ${file}: `)).toBe(true);
    expect(text).toMatch(message);
  });
});

describe('applyBaseline', () => {
  const baseline = (...entries: Baseline['entries']): Baseline => ({ entries });

  test('a listed failure becomes expected-fail with the entry, its message kept', () => {
    const failed = check('EHS-002', 'failed');
    const { checks, problems, unmatched } = applyBaseline([failed, check('AUTH-001', 'failed')], baseline({ id: 'EHS-002', reason: 'vendor ticket 123', until: '2027-01-31' }), TODAY);
    expect(checks[0]).toEqual({ ...failed, status: 'expected-fail', baseline: { reason: 'vendor ticket 123', until: '2027-01-31' } });
    expect(checks[1]?.status).toBe('failed');
    expect(problems).toEqual([]);
    expect(unmatched).toEqual([]);
  });

  test('an entry without until carries no until', () => {
    const { checks } = applyBaseline([check('EHS-002', 'failed')], baseline({ id: 'EHS-002', reason: 'r' }), TODAY);
    expect(checks[0]?.baseline).toEqual({ reason: 'r' });
    expect(Object.keys(checks[0]?.baseline ?? {})).toEqual(['reason']);
  });

  test('a listed pass is stale, with the reason that says to remove the entry', () => {
    const { checks, problems } = applyBaseline([check('EHS-002', 'passed')], baseline({ id: 'EHS-002', reason: 'vendor ticket 123' }), TODAY);
    expect(checks[0]).toMatchObject({ status: 'stale', reason: 'stale baseline entry "EHS-002": the check passes now; remove the entry', baseline: { reason: 'vendor ticket 123' } });
    expect(problems).toEqual([]);
  });

  test('skipped and error checks stay as they are', () => {
    const skipped = check('EHS-002', 'skipped', { reason: 'profile: no answer', skipClass: 'profile' });
    const errored = check('EHS-003', 'error', { reason: 'timeout' });
    const { checks } = applyBaseline([skipped, errored], baseline({ id: 'EHS-002', reason: 'r' }, { id: 'EHS-003', reason: 'r' }), TODAY);
    expect(checks).toEqual([skipped, errored]);
  });

  test('matches by exact check title as well as by requirement ID', () => {
    const a = check('WH-001', 'failed', { title: 'WH-001 signs the body' });
    const b = check('WH-001', 'failed', { title: 'WH-001 signs the headers' });
    const byTitle = applyBaseline([a, b], baseline({ id: 'WH-001 signs the body', reason: 'title' }), TODAY);
    expect(byTitle.checks.map((c) => c.status)).toEqual(['expected-fail', 'failed']);
    expect(byTitle.unmatched).toEqual([]);
    const byId = applyBaseline([a, b], baseline({ id: 'WH-001', reason: 'id' }), TODAY);
    expect(byId.checks.map((c) => c.status)).toEqual(['expected-fail', 'expected-fail']);
    // Not a prefix or a substring: the whole title or the whole ID.
    const partial = applyBaseline([a, b], baseline({ id: 'WH-001 signs', reason: 'r' }, { id: 'WH-00', reason: 'r' }), TODAY);
    expect(partial.checks.map((c) => c.status)).toEqual(['failed', 'failed']);
    expect(partial.unmatched).toEqual(['WH-001 signs', 'WH-00']);
  });

  test('a title entry wins over an ID entry for its check', () => {
    const a = check('WH-001', 'failed', { title: 'WH-001 signs the body' });
    const b = check('WH-001', 'failed', { title: 'WH-001 signs the headers' });
    const { checks } = applyBaseline([a, b], baseline({ id: 'WH-001', reason: 'by id' }, { id: 'WH-001 signs the body', reason: 'by title' }), TODAY);
    expect(checks.map((c) => c.baseline?.reason)).toEqual(['by title', 'by id']);
  });

  test('an ID entry whose requirement still fails in one check does not make its passing checks stale', () => {
    const a = check('WH-001', 'failed', { title: 'WH-001 signs the body' });
    const b = check('WH-001', 'passed', { title: 'WH-001 signs the headers' });
    const { checks } = applyBaseline([a, b], baseline({ id: 'WH-001', reason: 'r' }), TODAY);
    expect(checks.map((c) => c.status)).toEqual(['expected-fail', 'passed']);
    const allPass = applyBaseline([{ ...a, status: 'passed' }, b], baseline({ id: 'WH-001', reason: 'r' }), TODAY);
    expect(allPass.checks.map((c) => c.status)).toEqual(['stale', 'stale']);
  });

  test('expiry: until before today (UTC) is expired; until == today is still live', () => {
    const failed = check('EHS-002', 'failed');
    // 23:30 UTC on the 10th is already the 11th east of UTC: the UTC day decides.
    const live = applyBaseline([failed], baseline({ id: 'EHS-002', reason: 'ticket 9', until: '2026-05-10' }), TODAY);
    expect(live.checks[0]?.status).toBe('expected-fail');
    expect(live.problems).toEqual([]);

    const expired = applyBaseline([failed], baseline({ id: 'EHS-002', reason: 'ticket 9', until: '2026-05-09' }), TODAY);
    expect(expired.checks).toEqual([failed]);
    expect(expired.problems).toEqual(['baseline entry "EHS-002" expired on 2026-05-09 (ticket 9)']);

    const nextDay = applyBaseline([failed], baseline({ id: 'EHS-002', reason: 'ticket 9', until: '2026-05-10' }), new Date('2026-05-11T00:00:00Z'));
    expect(nextDay.checks[0]?.status).toBe('failed');
    expect(nextDay.problems).toEqual(['baseline entry "EHS-002" expired on 2026-05-10 (ticket 9)']);
    expect(utcDay(new Date('2026-05-10T23:59:59.999Z'))).toBe('2026-05-10');
  });

  test('an expired entry of a passing check is a problem, not stale', () => {
    const passed = check('EHS-002', 'passed');
    const { checks, problems } = applyBaseline([passed], baseline({ id: 'EHS-002', reason: 'r', until: '2020-01-01' }), TODAY);
    expect(checks).toEqual([passed]);
    expect(problems).toEqual(['baseline entry "EHS-002" expired on 2020-01-01 (r)']);
  });

  test('entries that match no check are unmatched, not problems (even expired: --only may have left them out)', () => {
    const { checks, problems, unmatched } = applyBaseline([check('EHS-002', 'failed')], baseline({ id: 'AUTH-009', reason: 'r' }, { id: 'VER-001', reason: 'r', until: '2020-01-01' }), TODAY);
    expect(checks[0]?.status).toBe('failed');
    expect(problems).toEqual([]);
    expect(unmatched).toEqual(['AUTH-009', 'VER-001']);
  });

  test('pure: the input checks and baseline are not changed', () => {
    const input = [check('EHS-002', 'failed'), check('EHS-003', 'passed'), check('EHS-004', 'failed')];
    const b = baseline({ id: 'EHS-002', reason: 'r' }, { id: 'EHS-003', reason: 'r' }, { id: 'EHS-004', reason: 'r', until: '2000-01-01' });
    const before = structuredClone({ input, b });
    const out = applyBaseline(input, b, TODAY);
    expect({ input, b }).toEqual(before);
    expect(out.checks[0]).not.toBe(input[0]);
    expect(out.checks.map((c) => c.status)).toEqual(['expected-fail', 'stale', 'failed']);
  });
});

interface Cli {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Cli> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function fabricatedRun(checks: CheckResult[]): RunResult {
  return {
    tool: 'dss-conformance', target: 'http://127.0.0.1:1', profile: 'reference', seed: 1, runId: 'abcd1234',
    startedAt: '2026-03-04T22:15:00.000Z', durationMs: 5, replay: 'npx dss-conformance run --seed 1', checks, errors: [],
  };
}

describe('dss-conformance baseline RESULTS_JSON', () => {
  const longLine = 'x'.repeat(300);
  const run = fabricatedRun([
    check('WH-010', 'failed', { message: '\nWH-010: no signature header\nexpected …' }),
    check('EHS-002', 'failed', { title: 'EHS-002 first', message: 'first failure line\nmore' }),
    check('EHS-002', 'failed', { title: 'EHS-002 second', message: 'second failure line' }),
    check('AUTH-001', 'expected-fail', { message: 'still broken', baseline: { reason: 'old' } }),
    check('CONN-001', 'passed'),
    check('CONN-002', 'skipped', { reason: 'profile: no answer' }),
    check('VER-001', 'error', { reason: 'timeout' }),
    check('VER-002', 'stale', { reason: 'stale baseline entry' }),
    check('BULK-001', 'failed', { message: longLine }),
    check('BULK-002', 'failed', { message: undefined }),
  ]);

  test('writes one entry per failing requirement ID, valid against the schema, to --out', async () => {
    const dir = tmp();
    const results = writeJson(dir, 'results.json', run);
    const out = join(dir, 'baseline.json');
    const r = await cli(['baseline', results, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`dss-conformance: 5 baseline entries written to ${out}\n`);
    const text = readFileSync(out, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const written = JSON.parse(text) as Baseline;
    expect(text).toBe(JSON.stringify(written, null, 2) + '\n');
    expect(baselineProblem(written)).toBeUndefined();
    const prefix = 'failing in run abcd1234 on 2026-03-04: ';
    expect(written.entries).toEqual([
      { id: 'AUTH-001', reason: `${prefix}still broken` },
      { id: 'BULK-001', reason: `${prefix}${'x'.repeat(199)}…` },
      { id: 'BULK-002', reason: `${prefix}(no message)` },
      { id: 'EHS-002', reason: `${prefix}first failure line` },
      { id: 'WH-010', reason: `${prefix}WH-010: no signature header` },
    ]);
    expect(written.entries.every((e) => e.until === undefined)).toBe(true);
    expect(written.entries[1]!.reason.length - prefix.length).toBe(200);
    // The file round-trips: loaded and applied to the same run, every failure is expected.
    const applied = applyBaseline(run.checks, loadBaseline(out), new Date('2026-03-05T00:00:00Z'));
    expect(applied.checks.filter((c) => c.status === 'failed')).toEqual([]);
    expect(applied.problems).toEqual([]);
  });

  test('without --out the baseline goes to stdout', async () => {
    const results = writeJson(tmp(), 'results.json', fabricatedRun([check('EHS-002', 'failed'), check('CONN-001', 'passed')]));
    const r = await cli(['baseline', results]);
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('}\n')).toBe(true);
    const written = JSON.parse(r.stdout) as Baseline;
    expect(baselineProblem(written)).toBeUndefined();
    expect(written.entries).toEqual([{ id: 'EHS-002', reason: 'failing in run abcd1234 on 2026-03-04: EHS-002 broke' }]);
  });

  test('a run without failures gives an empty, valid baseline', async () => {
    const r = await cli(['baseline', writeJson(tmp(), 'results.json', fabricatedRun([check('CONN-001', 'passed')]))]);
    expect(r.code).toBe(0);
    const written = JSON.parse(r.stdout) as Baseline;
    expect(written.entries).toEqual([]);
    expect(baselineProblem(written)).toBeUndefined();
  });

  test('-h and --help print the usage; the top-level usage lists the command', async () => {
    for (const flag of ['-h', '--help']) {
      const r = await cli(['baseline', flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^usage: dss-conformance baseline RESULTS_JSON \[--out FILE\]/);
    }
    expect((await cli(['--help'])).stdout).toMatch(/^ {2}baseline {3}/m);
  });

  test.each<[string, (dir: string) => string[], RegExp]>([
    ['no file given', () => ['baseline'], /baseline takes one results\.json file, got 0/],
    ['two files given', (d) => ['baseline', join(d, 'a'), join(d, 'b')], /got 2/],
    ['an unknown flag', (d) => ['baseline', join(d, 'a'), '--bogus'], /unknown flag --bogus \(see 'dss-conformance baseline --help'\)/],
    ['a missing file', (d) => ['baseline', join(d, 'missing.json')], /results .*missing\.json: no such file$/],
    ['not JSON', (d) => ['baseline', writeJson(d, 'r.json', '{ nope')], /results .*r\.json: not JSON/],
    ['JSON that is not a results.json', (d) => ['baseline', writeJson(d, 'r.json', { entries: [] })], /not a dss-conformance results\.json \(no runId\)$/],
    ['a results.json without checks', (d) => ['baseline', writeJson(d, 'r.json', { ...fabricatedRun([]), checks: undefined })], /not a dss-conformance results\.json \(no checks array\)$/],
    ['a check without a status', (d) => ['baseline', writeJson(d, 'r.json', fabricatedRun([{ id: 'X-001' } as CheckResult]))], /\(\/checks\/0 has no id or status\)$/],
    ['an aborted run', (d) => ['baseline', writeJson(d, 'r.json', { ...fabricatedRun([]), aborted: { exitCode: 3, message: 'target unreachable' } })], /run abcd1234 was aborted \(target unreachable\)/],
    ['an unwritable --out', (d) => ['baseline', writeJson(d, 'r.json', fabricatedRun([])), '--out', join(d, 'no', 'such', 'dir.json')], /--out .*: cannot write there \(ENOENT\)$/],
  ])('%s: one line, exit 2', async (_name, args, message) => {
    const r = await cli(args(tmp()));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^dss-conformance: /);
    expect(r.stderr.trim()).toMatch(message);
  });
});
