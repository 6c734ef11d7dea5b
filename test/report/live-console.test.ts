import { describe, expect, test } from 'vitest';
import { applyBaseline, type Baseline } from '../../src/report/baseline.ts';
import { LiveConsole } from '../../src/report/console.ts';
import type { CheckResult } from '../../src/report/results.ts';

// Issue 16 item 5: the live console applies the baseline as it prints. It must never print FAIL
// for an accepted failure, nor pass for a check whose entry then fails the run as stale; and
// what it prints for each check is what the fold (every report) says of it.

const TODAY = new Date('2026-11-22T12:00:00Z');

const check = (id: string, n: number, status: CheckResult['status']): CheckResult => ({ id, title: `${id} check ${n}`, area: 'error-handling', level: 'MUST', section: 's', status, durationMs: 1, ...(status === 'failed' ? { message: 'boom' } : {}) });

/** What the console printed, check by check, as [mark, title] (the held lines included, at the end). */
function printed(baseline: Baseline | undefined, checks: CheckResult[]): Array<[string, string]> {
  const live = new LiveConsole(baseline, undefined, () => TODAY);
  const streamed = checks.map((c) => live.line(c)).join('');
  const folded = baseline ? applyBaseline(checks, baseline, TODAY).checks : checks;
  return (streamed + live.end(folded))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const m = /^ {2}(\S+) +(.*?)(?: {2}\(.*)?$/.exec(l)!;
      return [m[1]!, m[2]!];
    });
}

describe('the live console with a baseline', () => {
  test('a listed failure prints as expected-fail at once, with the entry\'s reason; never FAIL', () => {
    const baseline: Baseline = { entries: [{ id: 'EHS-002', reason: 'vendor ticket 42' }] };
    const live = new LiveConsole(baseline, undefined, () => TODAY);
    const line = live.line(check('EHS-002', 1, 'failed'));
    expect(line).toBe('  xfail  EHS-002 check 1  (baseline: vendor ticket 42)\n');
    expect(line).not.toMatch(/FAIL/);
  });

  test('a stale entry is never printed pass: its line waits for the fold, which says STALE', () => {
    const baseline: Baseline = { entries: [{ id: 'EHS-007', reason: 'fixed upstream?' }] };
    const live = new LiveConsole(baseline, undefined, () => TODAY);
    const passed = check('EHS-007', 1, 'passed');
    expect(live.line(passed)).toBe('');
    const folded = applyBaseline([passed], baseline, TODAY).checks;
    expect(folded[0]!.status).toBe('stale');
    expect(live.end(folded)).toMatch(/^ {2}STALE {2}EHS-007 check 1 {2}\(stale baseline entry "EHS-007": the check passes now; remove the entry\)\n$/);
  });

  test('a pass whose sibling then fails is printed pass when the sibling fails, as the fold has it', () => {
    const baseline: Baseline = { entries: [{ id: 'EHS-002', reason: 'r' }] };
    const checks = [check('EHS-002', 1, 'passed'), check('AUTH-001', 1, 'passed'), check('EHS-002', 2, 'failed'), check('EHS-002', 3, 'passed')];
    expect(printed(baseline, checks)).toEqual([
      ['pass', 'AUTH-001 check 1'],
      ['pass', 'EHS-002 check 1'],
      ['xfail', 'EHS-002 check 2'],
      ['pass', 'EHS-002 check 3'],
    ]);
  });

  test('an expired entry excuses nothing: FAIL and pass as without it', () => {
    const baseline: Baseline = { entries: [{ id: 'EHS-002', reason: 'r', until: '2026-11-21' }, { id: 'EHS-007', reason: 'r', until: '2026-11-21' }] };
    expect(printed(baseline, [check('EHS-002', 1, 'failed'), check('EHS-007', 1, 'passed')])).toEqual([['FAIL', 'EHS-002 check 1'], ['pass', 'EHS-007 check 1']]);
  });

  test('an entry naming a check\'s title wins over its requirement\'s; skips and errors print as they are', () => {
    const baseline: Baseline = { entries: [{ id: 'EHS-002 check 2', reason: 'this one' }, { id: 'EHS-002', reason: 'r' }] };
    const checks = [check('EHS-002', 1, 'skipped'), check('EHS-002', 2, 'failed'), check('EHS-002', 3, 'error'), check('EHS-002', 4, 'passed')];
    const lines = printed(baseline, checks);
    expect(lines).toEqual([['skip', 'EHS-002 check 1'], ['xfail', 'EHS-002 check 2'], ['ERR', 'EHS-002 check 3'], ['STALE', 'EHS-002 check 4']]);
  });

  test('for any order of results the printed marks are the fold\'s', () => {
    const baseline: Baseline = { entries: [{ id: 'EHS-002', reason: 'r' }, { id: 'EHS-007', reason: 'r' }, { id: 'AUTH-001 check 2', reason: 'r' }] };
    const pool = [check('EHS-002', 1, 'passed'), check('EHS-002', 2, 'failed'), check('EHS-007', 1, 'passed'), check('EHS-007', 2, 'passed'), check('AUTH-001', 1, 'failed'), check('AUTH-001', 2, 'passed'), check('CONN-001', 1, 'failed')];
    const MARK: Record<string, string> = { passed: 'pass', failed: 'FAIL', 'expected-fail': 'xfail', stale: 'STALE' };
    // Every rotation and its reverse: the held lines and the released ones land on the fold's marks.
    for (let r = 0; r < pool.length; r++) {
      for (const order of [[...pool.slice(r), ...pool.slice(0, r)], [...pool.slice(r), ...pool.slice(0, r)].reverse()]) {
        const fold = Object.fromEntries(applyBaseline(order, baseline, TODAY).checks.map((c) => [c.title, MARK[c.status]]));
        const lines = printed(baseline, order);
        expect(lines).toHaveLength(order.length);
        expect(Object.fromEntries(lines.map(([mark, title]) => [title, mark]))).toEqual(fold);
      }
    }
  });
});
