import { expect, test } from 'vitest';
import { values } from '../../src/generators/input-space.ts';
import type { Delivery } from '../../src/receiver/index.ts';
import { CAPTURE_CASE, FAILING_4XX, FAILING_5XX, failedBatch, failingCases, failingLabel, failingPlan, laterRunTimestampProblems, rowsOf, type FailingCase } from '../../src/suite/webhook-answers.ts';
import { operationCases } from '../../src/generators/all-pairs.ts';
import { NAME_CARRIERS } from '../../src/suite/webhook-names.ts';
import type { RunEvidence, Scenario } from '../../src/suite/webhook-fixtures.ts';

// WH-020/021's failing cases: every status, and every pair of the delivery operation's sync mode ×
// batches × failing batch, on every seed; and the refused batch read from what actually came.

test.each([['4xx', FAILING_4XX], ['5xx', FAILING_5XX]] as const)('the %s cases try every status and every mode with every failing batch', (_n, statuses) => {
  const cases = failingCases(statuses);
  expect(new Set(cases.map((c) => c.status))).toEqual(new Set(statuses));
  const modes = values('sync-mode');
  const positions = values('failing-batch').filter((v) => v !== 'none');
  for (const mode of modes) for (const at of positions) expect(cases).toContainEqual(expect.objectContaining({ mode, at }));
  for (const at of positions) expect(cases).toContainEqual(expect.objectContaining({ batches: 3, at }));
  expect(cases).toContainEqual(expect.objectContaining({ batches: 1, at: 'first' }));
  expect(cases.filter((c) => c.batches === 1 && c.at !== 'first')).toEqual([]);
  // Batch size × mode, × batch count and × failing batch (all-pairs).
  for (const size of values('batch-size')) {
    for (const mode of modes) expect(cases).toContainEqual(expect.objectContaining({ size, mode }));
    for (const at of positions) expect(cases).toContainEqual(expect.objectContaining({ size, at }));
    // A run of one batch of 2 comes without a failing batch (the skip-backfill scenario's second run).
    expect(cases).toContainEqual(expect.objectContaining({ size, batches: 3 }));
  }
  // The cost of the walk: one scenario per combination, no more.
  const combos = operationCases('sync.records delivery', ['sync-mode', 'batches', 'failing-batch', 'batch-size']).filter((r) => r['failing-batch'] !== 'none');
  expect(cases).toHaveLength(Math.max(combos.length, statuses.length));
  expect(combos.length).toBeLessThanOrEqual(modes.length * positions.length + 1);
});

test('a failing run fills its batches to the size, the last holding one record; the default size leaves the setting out', () => {
  expect(rowsOf({ size: '<default>', batches: 1 })).toBe(100);
  expect(rowsOf({ size: '<default>', batches: 3 })).toBe(201);
  expect(rowsOf({ size: 1, batches: 3 })).toBe(3);
  expect(rowsOf({ size: 2, batches: 1 })).toBe(2);
  expect(failingPlan({ status: 500, at: 'first', batches: 1, mode: 'differential', size: '<default>' }).sync).toEqual({});
  expect(failingPlan({ status: 500, at: 'first', batches: 1, mode: 'differential', size: 1 }).sync).toEqual({ batchSize: 1 });
});

test('WH-022 reuses a differential WH-020 case; only differential cases fail their first run', () => {
  expect(failingCases(FAILING_4XX)).toContainEqual(CAPTURE_CASE);
  // Its scenario carries one of the sync name classes (webhook-names.ts): the label must stay the carrier's.
  expect(NAME_CARRIERS).toContain(failingLabel(CAPTURE_CASE));
  for (const c of failingCases(FAILING_4XX)) expect(failingPlan(c).then).toBe(c.mode === 'differential' ? c.status : undefined);
});

const delivery = (records: number, status: number): Delivery => ({ json: { object: { records: Array(records).fill({}) } }, response: { status } }) as unknown as Delivery;
const result = (c: FailingCase, ds: Delivery[]) => ({ c, s: {} as Scenario, run: { deliveries: ds } as unknown as RunEvidence });
const C: FailingCase = { status: 410, at: 'middle', batches: 3, mode: 'full sync', size: 2 };

test('the refused batch is walked where it came, not where it was planned', () => {
  expect(failedBatch(result(C, [delivery(2, 200), delivery(2, 410), delivery(1, 410)]))).toEqual({ batches: 3, at: ['middle'] });
  expect(failedBatch(result(C, [delivery(2, 200), delivery(2, 200), delivery(1, 410)]))).toEqual({ batches: 3, at: ['last'] });
  expect(failedBatch(result(C, [delivery(2, 410)]))).toEqual({ batches: 3, at: ['first'] });
  expect(failedBatch(result(C, [delivery(5, 410)]))).toEqual({ batches: 1, at: ['first', 'last'] });
  // Batches of one: five batches is no value of the model, so nothing is walked.
  expect(failedBatch(result(C, [delivery(1, 200), delivery(1, 410)]))).toBeUndefined();
  expect(failedBatch(result(C, [delivery(2, 200), delivery(2, 200), delivery(1, 200)]))).toBeUndefined();
});

/** A delivery stamped `stamp` that arrived at epoch ms `at`. */
const stamped = (seq: number, stamp: string, at: number) => ({ seq, headers: { 'service-signature-timestamp': stamp }, receivedAt: new Date(at).toISOString() }) as unknown as Delivery;
const ranAt = (askedAt: number, deliveries: Delivery[]) => ({ askedAt, deliveries }) as unknown as RunEvidence;

test('WH-007 across runs: a later run stamped no later than an earlier one fails; a clock off by a constant, and whole seconds, pass', () => {
  const t0 = Date.parse('2026-11-26T10:00:00.000Z');
  const iso = (ms: number) => new Date(ms).toISOString();
  // Run 2 asked for 300 ms after run 1's delivery arrived: its request is created at least that much later.
  const kept = [ranAt(t0 - 50, [stamped(1, iso(t0 - 10), t0)]), ranAt(t0 + 300, [stamped(2, iso(t0 - 10), t0 + 320)])];
  expect(laterRunTimestampProblems(kept).map((p) => p.d.seq)).toEqual([2]);
  // The sender's clock 90 s behind (stamped at queueing) or 30 s ahead: only differences count.
  for (const off of [-90_000, 30_000]) {
    const honest = [ranAt(t0 - 50, [stamped(1, iso(t0 - 10 + off), t0)]), ranAt(t0 + 300, [stamped(2, iso(t0 + 310 + off), t0 + 320)])];
    expect(laterRunTimestampProblems(honest)).toEqual([]);
  }
  // Whole seconds: a difference under a second is within the resolution; over it, not.
  const seconds = (ms: number) => iso(Math.floor(ms / 1000) * 1000).replace('.000Z', 'Z');
  expect(laterRunTimestampProblems([ranAt(t0 - 50, [stamped(1, seconds(t0 + 900), t0 + 910)]), ranAt(t0 + 950, [stamped(2, seconds(t0 + 960), t0 + 970)])])).toEqual([]);
  expect(laterRunTimestampProblems([ranAt(t0 - 50, [stamped(1, seconds(t0), t0 + 10)]), ranAt(t0 + 1500, [stamped(2, seconds(t0), t0 + 1510)])]).map((p) => p.d.seq)).toEqual([2]);
});
