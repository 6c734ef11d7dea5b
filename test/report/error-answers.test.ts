import { describe, expect, it } from 'vitest';
import { errorAnswer, judgeErrorAnswers, type ErrorAnswer } from '../../src/report/error-answers.ts';
import type { NewEvent, RunEvent } from '../../src/report/events.ts';
import { foldEvents } from '../../src/report/from-events.ts';
import { loadRequirements, type CheckResult } from '../../src/report/results.ts';

// ERR-001/002/003 are run-level judgements: made when the stream is folded, over every error
// answer in it, so two shards' streams read one after another judge what one run would.

const requirements = loadRequirements();
const at = '2026-01-01T00:00:00.000Z';

const good = (path: string, status = 404, check = 'CONN-003 x'): ErrorAnswer =>
  errorAnswer({ method: 'GET', path, status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: 'not_found', message: 'no', metadata: null, status }), check });
const html = errorAnswer({ method: 'POST', path: '/api/syncs', status: 500, headers: { 'content-type': 'text/html' }, body: '<h1>oops</h1>', check: 'BULK-002 y' });

function start(runId: string, shard?: { index: number; count: number }): RunEvent {
  return {
    type: 'run-start', at, tool: 'dss-conformance', kitVersion: '0.0.0', node: '24', target: 't', embedded: false, faults: [], profile: 'p',
    capabilities: { name: 'p', kinds: {}, unsupported: {} }, seed: 7, runId, replay: 'r', apiVersions: ['2025-09-18'], settings: { seed: '7' }, ...(shard ? { shard } : {}),
  };
}

const provoking = (id: string): CheckResult => {
  const r = requirements.find((x) => x.id === id)!;
  return { id, title: `${id} every error answer the run saw …`, area: 'errors', level: r.level, section: r.section, status: 'passed', durationMs: 1 };
};

const result = (events: RunEvent[], id: string) => foldEvents(events, requirements).run.checks.find((c) => c.id === id);
const answerEvents = (answers: ErrorAnswer[]): RunEvent[] => answers.map((answer) => ({ type: 'error-answer', at, answer }));
const errChecks = (): RunEvent[] => ['ERR-001', 'ERR-002', 'ERR-003'].map((id) => ({ type: 'check-result', at, check: provoking(id) }));

describe('ERR over the union of the stream', () => {
  it('two shards\' streams folded together judge as one stream holding all their answers', () => {
    // Shard 1 ran errors.spec.ts (the provoking checks) and saw only good answers; shard 2 saw an HTML 500.
    const shard1 = [start('a', { index: 1, count: 2 }), ...errChecks(), ...answerEvents([good('/api/connections/x')])];
    const shard2 = [start('b', { index: 2, count: 2 }), ...answerEvents([good('/api/syncs/y', 400), html])];
    const whole = [start('c'), ...errChecks(), ...answerEvents([good('/api/connections/x'), good('/api/syncs/y', 400), html])];
    for (const id of ['ERR-001', 'ERR-002', 'ERR-003']) {
      const merged = result([...shard1, ...shard2], id);
      const one = result(whole, id);
      expect({ ...merged, durationMs: 0 }, id).toEqual({ ...one, durationMs: 0 });
      // The order of the shards does not change the evidence.
      expect(result([...shard2, ...shard1], id)).toEqual(merged);
    }
    expect(result(whole, 'ERR-001')?.status).toBe('failed');
    expect(result(whole, 'ERR-001')?.message).toMatch(/^1 of the 3 error answers the run saw break this rule:\nPOST \/api\/syncs → 500 \(in BULK-002 y\): the body is not JSON \("<h1>oops<\/h1>"\)/);
    expect(result(whole, 'ERR-003')?.message).toContain('Content-Type is "text/html"');
    expect(result(whole, 'ERR-002')?.status).toBe('passed');
    expect(result(whole, 'ERR-002')?.note).toBe('judged 3 error answers seen in 2 checks');
    // Shard 1 alone passes ERR-001: only the merge sees shard 2's answer.
    expect(result(shard1, 'ERR-001')?.status).toBe('passed');
    expect(foldEvents([...shard1, ...shard2], requirements).run.verdict?.verdict).toBe('NOT CONFORMANT');
  });

  it('judges each rule on its own: status in the body, Content-Type, a cut body', () => {
    const mismatch = errorAnswer({ method: 'GET', path: '/p', status: 404, headers: { 'content-type': 'application/problem+json' }, body: '{"status":400}' });
    const stringStatus = errorAnswer({ method: 'GET', path: '/p', status: 404, headers: { 'content-type': 'application/json' }, body: '{"status":"404"}' });
    const cut = errorAnswer({ method: 'GET', path: '/p', status: 404, headers: { 'content-type': 'application/json' }, body: '{"sta', truncated: true });
    const judged = (answers: ErrorAnswer[]) => Object.fromEntries(judgeErrorAnswers(['ERR-001', 'ERR-002', 'ERR-003'].map(provoking), answers).map((c) => [c.id, c.status]));
    expect(judged([mismatch])).toEqual({ 'ERR-001': 'passed', 'ERR-002': 'failed', 'ERR-003': 'passed' });
    // A status that is not an integer is ERR-001's finding, not ERR-002's.
    expect(judged([stringStatus])).toEqual({ 'ERR-001': 'failed', 'ERR-002': 'passed', 'ERR-003': 'passed' });
    expect(judged([cut])).toEqual({ 'ERR-001': 'passed', 'ERR-002': 'passed', 'ERR-003': 'passed' });
    expect(judged([])).toEqual({ 'ERR-001': 'error', 'ERR-002': 'error', 'ERR-003': 'error' });
  });

  it('keeps a skip and the provoking check\'s own error, and judges each version pass apart', () => {
    const skipped: CheckResult = { ...provoking('ERR-001'), status: 'skipped', reason: 'not selected', skipClass: 'not-selected' };
    expect(judgeErrorAnswers([skipped], [html])[0]).toEqual(skipped);
    const errored: CheckResult = { ...provoking('ERR-001'), status: 'error', reason: 'no error could be provoked' };
    expect(judgeErrorAnswers([errored], [good('/x')])[0]).toEqual(errored);
    expect(judgeErrorAnswers([errored], [html])[0]?.status).toBe('failed');
    const v1 = { ...provoking('ERR-001'), title: 'ERR-001 … @2025-09-18', version: '2025-09-18' };
    const v2 = { ...provoking('ERR-001'), title: 'ERR-001 … @2024-02-08', version: '2024-02-08' };
    const out = judgeErrorAnswers([v1, v2], [{ ...html, version: '2024-02-08' }, { ...good('/x'), version: '2025-09-18' }]);
    expect(out.map((c) => c.status)).toEqual(['passed', 'failed']);
  });

  it('a shard alone is at best INCOMPLETE; all shards merged can be CONFORMANT', () => {
    const passes = (ids: string[]): RunEvent[] => ids.map((id) => ({ type: 'check-result', at, check: { ...provoking(id), title: id, area: 'x' } }));
    const ids = requirements.map((r) => r.id);
    const half = Math.floor(ids.length / 2);
    const a = [start('a', { index: 1, count: 2 }), ...passes(ids.slice(0, half)), ...answerEvents([good('/x')])];
    const b = [start('b', { index: 2, count: 2 }), ...passes(ids.slice(half))];
    expect(foldEvents(a, requirements).run.verdict?.verdict).toBe('INCOMPLETE');
    expect(foldEvents(a, requirements).run.verdict?.unjudged[0]).toBe('shards 2/2 (not merged)');
    // Even a shard that happens to hold every requirement is not CONFORMANT alone.
    expect(foldEvents([start('a', { index: 1, count: 2 }), ...passes(ids), ...answerEvents([good('/x')])], requirements).run.verdict?.verdict).toBe('INCOMPLETE');
    const merged = foldEvents([...a, ...b], requirements).run;
    expect(merged.verdict?.verdict).toBe('CONFORMANT');
    expect(merged.shards).toEqual({ count: 2, present: [1, 2], missing: [] });
  });
});
