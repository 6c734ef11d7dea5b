import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { cli } from '../../src/cli-main.ts';
import { diffRuns } from '../../src/report/diff.ts';
import type { NewEvent, RunEvent } from '../../src/report/events.ts';
import { foldEvents } from '../../src/report/from-events.ts';
import { loadRequirements, type CheckResult, type RunResult } from '../../src/report/results.ts';

// `dss-conformance diff OLD NEW`: a regression at a glance, from two report folders.

const requirements = loadRequirements();
const root = mkdtempSync(join(tmpdir(), 'dssc-diff-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const check = (id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => {
  const r = requirements.find((x) => x.id === id)!;
  return { id, title: `${id} title`, area: r.spec.replace(/\.spec\.ts$/, ''), level: r.level, section: r.section, status, durationMs: 1, ...extra };
};

/** A run whose checks pass except as `changes` says, with its run-level errors. */
function runOf(runId: string, changes: Record<string, Partial<CheckResult> & { status: CheckResult['status'] }>, errors: string[] = []): RunResult {
  let at = 0;
  const stamp = (e: NewEvent) => ({ ...e, at: new Date(Date.UTC(2026, 10, 26, 3, 0, at++)).toISOString() }) as RunEvent;
  const events = [
    stamp({ type: 'run-start', tool: 'dss-conformance', kitVersion: '1.0.0', node: '24', target: 'https://t.example', embedded: false, faults: [], profile: 'p.json', capabilities: { name: 'p', kinds: {}, unsupported: {} }, seed: 1, runId, replay: 'npx dss-conformance run --seed 1', apiVersions: ['2025-09-18'], settings: {} }),
    ...requirements.map((r) => stamp({ type: 'check-result', check: check(r.id, changes[r.id]?.status ?? 'passed', changes[r.id] ?? {}) })),
    ...errors.map((message) => stamp({ type: 'run-error', message })),
    stamp({ type: 'run-end', durationMs: 10 }),
  ];
  return foldEvents(events, requirements).run;
}

function folder(name: string, run: RunResult): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.json'), JSON.stringify(run, null, 2));
  return dir;
}

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((stdout += String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((stderr += String(c)), true));
  const code = await cli(argv);
  vi.restoreAllMocks();
  return { code, stdout, stderr };
}

const [A, B, C, D, E] = ['AUTH-001', 'CONN-002', 'CONN-004', 'EHS-002', 'WH-010'];

describe('diff', () => {
  const old = runOf('0ld00000', { [B]: { status: 'failed', message: 'no auth_url' }, [C]: { status: 'failed', message: 'took a string port' } });
  const now = runOf('new00000', {
    [A]: { status: 'failed', message: 'Basic refused' },
    [C]: { status: 'failed', message: 'took a string port' },
    [D]: { status: 'error', reason: 'timeout after 10000 ms' },
    [E]: { status: 'skipped', reason: 'the profile gives no webhook kind' },
  }, ['unhandled rejection: boom']);

  it('sorts every requirement into newly failing, fixed, still failing, newly not judged, each with its reason', () => {
    const d = diffRuns(old, now, { old: 'old', new: 'new' });
    expect(d.newlyFailing).toEqual([{ id: A, level: 'MUST', reason: 'Basic refused', was: 'pass' }, { id: 'run', level: 'RUN', reason: 'unhandled rejection: boom' }]);
    expect(d.fixed).toEqual([{ id: B, level: 'MUST', reason: 'no auth_url' }]);
    expect(d.stillFailing).toEqual([{ id: C, level: expect.any(String), reason: 'took a string port' }]);
    expect(d.newlyNotJudged.map((e) => [e.id, e.status, e.reason, e.was])).toEqual([
      [D, 'error', 'timeout after 10000 ms', 'pass'],
      [E, 'skip (profile)', 'the profile gives no webhook kind', 'pass'],
    ]);
    // Nothing changed: nothing regressed, and a folder compared with itself says so.
    expect(diffRuns(now, now, { old: 'a', new: 'b' })).toMatchObject({ newlyFailing: [], fixed: [], newlyNotJudged: [] });
  });

  it('CLI: exit 1 on a regression with the lists as text or Markdown, 0 without one, 2 on bad input', async () => {
    const oldDir = folder('old', old);
    const newDir = folder('new', now);
    const text = await run(['diff', oldDir, newDir]);
    expect(text.code, text.stderr).toBe(1);
    expect(text.stdout).toContain('dss-conformance diff: NOT CONFORMANT → NOT CONFORMANT (run 0ld00000 → new00000)');
    expect(text.stdout).toContain(`newly failing (2):\n  ${A} [MUST] (was pass): Basic refused\n  run [RUN]: unhandled rejection: boom\n`);
    expect(text.stdout).toContain(`newly not judged (2):\n  ${D} [`);
    expect(text.stdout).toContain(`fixed (1):\n  ${B} [MUST]: no auth_url\n`);
    expect(text.stdout).toMatch(/regressed: 4 \(newly failing 2, newly not judged 2\)\n$/);

    const summary = join(root, 'step-summary.md');
    writeFileSync(summary, '# earlier step\n');
    const md = await run(['diff', oldDir, newDir, '--markdown', '--markdown-file', summary]);
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(/^## ❌ dss-conformance diff: /);
    expect(md.stdout).toContain('| newly failing | 2 |');
    expect(md.stdout).toContain(`### Newly not judged (2)\n\n- **${D}** [`);
    // Appended, so it goes into $GITHUB_STEP_SUMMARY after what earlier steps wrote.
    expect(readFileSync(summary, 'utf8')).toBe(`# earlier step\n${md.stdout}\n`);

    const betterDir = folder('better', runOf('b0000000', { [C]: { status: 'failed', message: 'took a string port' } }));
    const fixed = await run(['diff', oldDir, betterDir]);
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/no regression \(fixed 1, still failing 1\)\n$/);

    const missing = await run(['diff', oldDir, join(root, 'nowhere')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^dss-conformance: diff: NEW .*nowhere: no such folder\n$/);
    const one = await run(['diff', oldDir]);
    expect(one.code).toBe(2);
    expect((await run(['diff', '--help'])).stdout).toMatch(/^usage: dss-conformance diff OLD NEW/);
    writeFileSync(join(root, 'old', 'results.json'), '{"runId": "x"}');
    const notResults = await run(['diff', oldDir, newDir]);
    expect(notResults.code).toBe(2);
    expect(notResults.stderr).toContain('not a dss-conformance results.json');
  });

  it('a hand-edited results.json or a results.ndjson with bad lines is one line and exit 2 or a diff, never an internal error', async () => {
    const good = folder('good', old);
    const cases: Array<[string, string, string]> = [
      // results.json cut down to what readRunFolder asks for: no errors, no runId.
      ['results.json', 'sparse', JSON.stringify({ verdict: { verdict: 'CONFORMANT', requirements: [{ id: A, level: 'MUST', status: 'pass' }] } })],
      ['results.json', 'garbage-requirements', JSON.stringify({ runId: 'x', errors: [], verdict: { verdict: 'CONFORMANT', requirements: [null, 7, 'x', { level: 'MUST' }] } })],
      ['results.json', 'errors-not-strings', JSON.stringify({ runId: 5, errors: [{ message: 'x' }, null], problems: 'p', verdict: { verdict: 'CONFORMANT', requirements: [] } })],
      // A stream with lines that parse as JSON but are not events.
      ['results.ndjson', 'bad-lines', ['null', '42', '"text"', '[]', '{"type":"check-result"}', '{"type":"check-result","check":null}', '{"no":"type"}', '{"type":"run-end","durationMs":1}', '{"truncat'].join('\n')],
    ];
    for (const [file, name, text] of cases) {
      const dir = join(root, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, file), text);
      for (const argv of [['diff', good, dir], ['diff', dir, good]]) {
        const r = await run(argv);
        expect(r.stderr, `${name}: ${argv.join(' ')}`).not.toContain('internal error');
        expect([0, 1, 2], `${name}: ${r.stderr}`).toContain(r.code);
      }
    }
  });

  it('a service run and a receiver run are not compared (exit 2): every requirement would read as a regression', async () => {
    const receiverRun = { ...runOf('rcv00000', {}), verdict: { ...runOf('rcv00000', {}).verdict!, requirements: [{ id: 'RCV-001', level: 'MUST', status: 'pass' }] } } as RunResult;
    const r = await run(['diff', folder('service-run', old), folder('receiver-run', receiverRun)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^dss-conformance: diff: OLD .* is a service run and NEW .* a receiver run: they judge different requirements and cannot be compared\n$/);
  });

  it('a report file that cannot be read (a directory where the stream should be) is one line, exit 2', async () => {
    const dir = join(root, 'stream-is-a-folder');
    mkdirSync(join(dir, 'results.ndjson'), { recursive: true });
    const r = await run(['diff', dir, folder('readable', old)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^dss-conformance: diff: OLD .*stream-is-a-folder: cannot read a report file \(EISDIR\)\n$/);
    const v = await run(['verify', dir]);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/^dss-conformance: verify: .*stream-is-a-folder: cannot read a report file \(EISDIR\)\n$/);
  });
});
