import { describe, expect, test } from 'vitest';
import type { CheckResult, Requirement } from '../../src/report/results.ts';
import { classifySkip, rollUp, runVerdict, verdictLine } from '../../src/report/verdict.ts';

const req = (id: string, level: Requirement['level']): Requirement => ({ id, level, section: '', spec: 'x.spec.ts', text: '' });
const check = (id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => ({ id, title: `${id} t`, area: 'x', level: 'MUST', section: '', status, durationMs: 0, ...extra });
const REQS = [req('A-001', 'MUST'), req('B-001', 'INFERRED'), req('C-001', 'PROFILE')];

describe('requirement roll-up', () => {
  test('a failure anywhere wins, then an error, then a skip, then expected-fail', () => {
    const r = REQS[0]!;
    expect(rollUp(r, [check('A-001', 'passed'), check('A-001', 'failed', { message: 'bad\nmore' })])).toMatchObject({ status: 'fail', reason: 'bad' });
    expect(rollUp(r, [check('A-001', 'passed'), check('A-001', 'stale', { reason: 'stale entry' })])).toMatchObject({ status: 'fail' });
    expect(rollUp(r, [check('A-001', 'skipped', { reason: 'x' }), check('A-001', 'error', { reason: 'timeout' })])).toMatchObject({ status: 'error', reason: 'timeout' });
    expect(rollUp(r, [check('A-001', 'passed'), check('A-001', 'skipped', { reason: 'not observed: y' })])).toMatchObject({ status: 'skip', skipClass: 'not-observable' });
    expect(rollUp(r, [check('A-001', 'passed'), check('A-001', 'expected-fail', { baseline: { reason: 'ticket' } })])).toMatchObject({ status: 'expected-fail' });
    expect(rollUp(r, [])).toMatchObject({ status: 'not-run' });
    expect(rollUp(r, [check('A-001', 'passed')])).toMatchObject({ status: 'pass' });
  });

  test('a status the fold does not know (a secret equal to "failed" redacted it) is an error, never a pass', () => {
    const odd = check('A-001', '[REDACTED]' as CheckResult['status']);
    expect(rollUp(REQS[0]!, [check('A-001', 'passed'), odd])).toMatchObject({ status: 'error', reason: 'a check ended with an unknown status ([REDACTED])' });
  });

  test('skip classes are read from the reasons the checks give', () => {
    expect(classifySkip('unsupported: declared by the profile: x')).toBe('unsupported');
    expect(classifySkip('the profile gives no versions.default')).toBe('profile');
    expect(classifySkip('not observable: the PUT answer has no data')).toBe('not-observable');
    expect(classifySkip('precondition not met: creating a crm connection answered 500')).toBe('precondition');
  });
});

describe('run verdict', () => {
  test('CONFORMANT only when every requirement that must be judged passed', () => {
    const all = [check('A-001', 'passed'), check('B-001', 'passed'), check('C-001', 'passed')];
    expect(runVerdict(REQS, all).verdict).toBe('CONFORMANT');
    expect(verdictLine(runVerdict(REQS, all))).toBe('verdict: CONFORMANT (requirements: MUST 1 pass; INFERRED 1 pass; PROFILE 1 pass)');
  });

  test('a PROFILE requirement declared unsupported is judged; a MUST one is not', () => {
    const unsupported = (id: string) => check(id, 'skipped', { reason: 'unsupported: declared by the profile: n/a', skipClass: 'unsupported' });
    expect(runVerdict(REQS, [check('A-001', 'passed'), check('B-001', 'passed'), unsupported('C-001')]).verdict).toBe('CONFORMANT');
    expect(runVerdict(REQS, [unsupported('A-001'), check('B-001', 'passed'), check('C-001', 'passed')]).verdict).toBe('INCOMPLETE');
  });

  test('a skip, an error, a requirement not run or not selected is INCOMPLETE; a failure or a run problem is NOT CONFORMANT', () => {
    const base = [check('A-001', 'passed'), check('B-001', 'passed')];
    expect(runVerdict(REQS, [...base, check('C-001', 'skipped', { reason: 'the profile gives no x' })]).verdict).toBe('INCOMPLETE');
    expect(runVerdict(REQS, [...base, check('C-001', 'error', { reason: 'no answer within 1000 ms' })]).verdict).toBe('INCOMPLETE');
    expect(runVerdict(REQS, base).verdict).toBe('INCOMPLETE');
    const selected = runVerdict(REQS, base, [], new Set(['A-001', 'B-001']));
    expect(selected.verdict).toBe('INCOMPLETE');
    expect(selected.unjudged).toEqual(['C-001 (skipped: not-selected)']);
    expect(runVerdict(REQS, [...base, check('C-001', 'failed', { message: 'x' })]).verdict).toBe('NOT CONFORMANT');
    expect(runVerdict(REQS, [...base, check('C-001', 'passed')], ['spec failed to load']).verdict).toBe('NOT CONFORMANT');
    expect(runVerdict(REQS, [...base, check('C-001', 'passed'), check('X-999', 'failed', { message: 'uncatalogued' })]).verdict).toBe('NOT CONFORMANT');
  });

  test('expected failures from the baseline keep the run green', () => {
    expect(runVerdict(REQS, [check('A-001', 'expected-fail', { baseline: { reason: 't' } }), check('B-001', 'passed'), check('C-001', 'passed')]).verdict).toBe('CONFORMANT');
  });
});
