import { runEnd, type RunEnd, type RunOutcome } from '../adapters/types.ts';
import { parseIsoUtc } from '../iso8601.ts';
import type { Delivery } from '../receiver/index.ts';
import { settings } from './context.ts';
import { addRows, begin, reread, runOnce, scenario, startNext, type RunEvidence, type Scenario, type ScenarioPlan, type StartedRun } from './webhook-fixtures.ts';
import { operationCases } from '../generators/all-pairs.ts';
import { walked } from './input-space-record.ts';
import { values } from '../generators/input-space.ts';
import { otherActivity } from './later.ts';
import { perRun } from '../run-state.ts';

// The receiver's side of the webhook checks: what it answers (WH-020/021), the capture log of
// those exchanges (WH-022), and the timestamps against its own clock (WH-007).

/**
 * The failing answers walked (input-space.json › receiver-answer), per class: the spec says 'any
 * 4xx or 5xx', so codes a target may special-case (409, 422, 504, 501...) are tried beside the
 * common ones. The first of each class keep their places: the cases' statuses follow the order.
 */
const ANSWERS = values<number>('receiver-answer');
export const FAILING_4XX: readonly number[] = ANSWERS.filter((s) => s >= 400 && s < 500);
export const FAILING_5XX: readonly number[] = ANSWERS.filter((s) => s >= 500 && s < 600);

export type FailingBatch = 'first' | 'middle' | 'last';
export type SyncMode = 'differential' | 'full sync' | 'skip backfill';
/** A value of input-space.json's batch-size dimension: '<default>' leaves the setting out. */
export type BatchSize = 1 | 2 | '<default>';

/** Spec › Webhook settings: 'Webhook batch size … Default 100'. */
const DEFAULT_BATCH_SIZE = 100;
const sizeOf = (c: Pick<FailingCase, 'size'>): number => (c.size === '<default>' ? DEFAULT_BATCH_SIZE : c.size);
/** A failing run's records: its one batch exactly full, or two full batches and one of a single record. */
export const rowsOf = (c: Pick<FailingCase, 'size' | 'batches'>): number => (c.batches === 1 ? sizeOf(c) : 2 * sizeOf(c) + 1);

export interface FailingCase {
  status: number;
  /** The batch first answered with the status; the batches before it are answered 200. */
  at: FailingBatch;
  /** Batches the failing run would send: 1 (the first is the last) or 3. */
  batches: 1 | 3;
  mode: SyncMode;
  /** The sync's batch size: the failing run's records follow from it (rowsOf). */
  size: BatchSize;
}

export const failingLabel = (c: FailingCase): string => `answer-${c.status}-${c.at}-of-${c.batches}-size-${c.size === '<default>' ? 'default' : c.size}${c.mode === 'differential' ? '' : `-${c.mode.replace(' ', '-')}`}`;

const ANSWERED_BEFORE: Record<FailingBatch, number> = { first: 0, middle: 1, last: 2 };
const MODE_SETTINGS: Record<SyncMode, { syncAllRecords?: boolean; skipInitialBackfill?: boolean }> = { differential: {}, 'full sync': { syncAllRecords: true }, 'skip backfill': { skipInitialBackfill: true } };

/** The receiver's answers for a case's failing run: 200 before batch `at`, `status` from it on. */
const failingScript = (c: FailingCase) => ({ script: Array(ANSWERED_BEFORE[c.at]).fill(200), then: c.status });

/**
 * The receiver answers `status` from batch `at` on, to every request after that, so a target
 * that retries (Spec › Events › Emission 5: not shown) sees the failure again on every attempt.
 * A differential case fails its first run. A full-sync case fails its second run (no row
 * changed: only full sync sends them again), a skip-backfill case its second run after rowsOf
 * rows were added (its first run sends nothing; one row is there before it): their first runs
 * are answered 200. Cases of one row count share a source; skip-backfill syncs have sources of
 * their own, as rows are added to them.
 */
export function failingPlan(c: FailingCase): ScenarioPlan {
  const sync = { ...(c.size === '<default>' ? {} : { batchSize: c.size }), ...MODE_SETTINGS[c.mode] };
  const rows = rowsOf(c);
  if (c.mode === 'differential') return { rows, sharedSource: `failing-receiver-${rows}`, sync, ...failingScript(c) };
  if (c.mode === 'skip backfill') return { rows: 1, sharedSource: `failing-receiver-skip-${rows}`, sync };
  return { rows, sharedSource: `failing-receiver-${rows}`, sync };
}

/**
 * The all-pairs combinations of the delivery operation (input-space.json: sync mode × batches ×
 * failing batch, a run of one batch having no middle or last) that have a failing batch, each with
 * a status, the statuses in turn: every status once at least, every pair on every seed.
 */
export function failingCases(statuses: readonly number[]): FailingCase[] {
  const combos = operationCases('sync.records delivery', ['sync-mode', 'batches', 'failing-batch', 'batch-size']).filter((r) => r['failing-batch'] !== 'none');
  return Array.from({ length: Math.max(combos.length, statuses.length) }, (_, i) => {
    const r = combos[i % combos.length]!;
    return { status: statuses[i % statuses.length]!, at: r['failing-batch'] as FailingBatch, batches: r.batches as 1 | 3, mode: r['sync-mode'] as SyncMode, size: r['batch-size'] as BatchSize };
  });
}

/** WH-022's failing receiver, one of WH-020's cases (a middle batch refused in a differential run). */
export const CAPTURE_CASE: FailingCase = failingCases(FAILING_4XX).find((c) => c.mode === 'differential' && c.at === 'middle')!;

/** A case's scenario and its failing run (the first run, or the second: failingPlan). */
export interface FailingResult {
  c: FailingCase;
  s: Scenario;
  run: RunEvidence;
}

/** The second runs of the full-sync and skip-backfill cases, by label: each is started once. */
const laterRuns = new Map<string, StartedRun>();
perRun(() => laterRuns.clear());

/**
 * The scenarios of `cases` and their failing runs: every run is started before any is waited for,
 * so they run side by side on the target while the suite's requests keep one order.
 */
export async function failingScenarios(cases: readonly FailingCase[]): Promise<FailingResult[]> {
  for (const c of cases) await begin(failingLabel(c), failingPlan(c));
  const set: Array<{ c: FailingCase; s: Scenario }> = [];
  for (const c of cases) set.push({ c, s: await scenario(failingLabel(c), failingPlan(c)) });
  const later = set.filter((x) => x.c.mode !== 'differential' && !laterRuns.has(failingLabel(x.c)));
  // The skip-backfill syncs of one row count share a source: rows added once reach each of their second runs.
  const skips = later.filter((x) => x.c.mode === 'skip backfill');
  for (const [i, skip] of skips.entries()) if (skips.findIndex((o) => rowsOf(o.c) === rowsOf(skip.c)) === i) await addRows(skip.s, `failing-added-${failingLabel(skip.c)}`, rowsOf(skip.c));
  for (const x of later) {
    const { script, then } = failingScript(x.c);
    x.s.channel.script(script, then);
    laterRuns.set(failingLabel(x.c), await startNext(x.s));
  }
  const out: FailingResult[] = [];
  for (const x of set) out.push({ ...x, run: x.c.mode === 'differential' ? x.s.runs[0]! : await laterRuns.get(failingLabel(x.c))!.finish() });
  return out;
}

/** When a run's end was read (schemas/input-space.json › observation). */
export type Observation = 'right away' | 'again later' | 'after another write';

/**
 * The problem of one case as read at `observation`: the run must be recorded as failed (Errors ›
 * Specific cases 2), that is end in a word the profile maps to failed; a run that completed, with
 * record errors or without, was not (README › Interpretations). A case whose failing answer was
 * never given (the target sent everything in one batch) is not judged: `judged` says so. `seen`
 * is how the run ended, for the report.
 */
export function failingProblem(id: string, { c, run }: FailingResult, outcome: RunOutcome = run.outcome, observation: Observation = 'right away'): { judged: boolean; problem?: string; seen?: string } {
  const failedAt = run.deliveries.findIndex((d) => d.response.status === c.status);
  if (failedAt === -1) return { judged: false };
  const end = runEnd(outcome);
  // The target's own word beside the suite's reading, so a word mapped to failed shows in the note.
  const seen = outcome.status === end ? end : `${end} (${JSON.stringify(outcome.status)})`;
  if (outcome.failed) return { judged: true, seen };
  const errors = outcome.recordErrors ? `with ${outcome.recordErrors} record errors` : 'with no record error';
  const first = observation === 'right away' ? '' : `; read right away it was ${JSON.stringify(run.outcome.status)}`;
  return { judged: true, seen, problem: `${id} ${c.status} on batch ${failedAt + 1} of ${c.batches} (${c.mode}, batch size ${c.size}): read ${observation}, the run is ${JSON.stringify(outcome.status)} (a word the profile does not map to failed), ${errors}${first}` };
}

export interface FailingRead {
  r: FailingResult;
  outcome: RunOutcome;
  observation: Observation;
  judged: boolean;
  problem?: string;
  seen?: string;
}

const recordsIn = (d: Delivery): number | undefined => {
  const records = (d.json as { object?: { records?: unknown } } | undefined)?.object?.records;
  return Array.isArray(records) ? records.length : undefined;
};

/**
 * Where in its run the failing answer was actually given, from the records delivered up to it (the
 * run has ROWS to send): a target that batches otherwise refuses another batch than the planned
 * one, and that one is walked. Undefined when it cannot be told or is no value of the model.
 */
export function failedBatch({ c, run }: FailingResult): { batches: 1 | 3; at: FailingBatch[] } | undefined {
  const failedAt = run.deliveries.findIndex((d) => d.response.status === c.status);
  const counts = run.deliveries.slice(0, failedAt + 1).map(recordsIn);
  if (failedAt === -1 || counts.some((n) => n === undefined || n === 0)) return undefined;
  const rows = rowsOf(c);
  const before = (counts as number[]).slice(0, -1).reduce((a, b) => a + b, 0);
  const size = Math.max(...(counts as number[]));
  const batches = Math.ceil(rows / size);
  if (batches !== 1 && batches !== 3) return undefined;
  // A run's only batch is its first and its last; no run of one batch has a middle one.
  if (batches === 1) return { batches, at: ['first', 'last'] };
  return { batches, at: [before === 0 ? 'first' : before + counts.at(-1)! >= rows ? 'last' : 'middle'] };
}

/** The full-sync cases' first runs, answered 200 throughout: runs of their batch size with no failing batch. */
function walkFirstRuns(results: readonly FailingResult[]): void {
  for (const { c, s } of results) {
    const n = c.mode === 'full sync' ? (s.runs[0]?.deliveries.length ?? 0) : 0;
    if (n === 1 || n >= 3) walked('sync.records delivery', { 'sync-mode': c.mode, batches: n >= 3 ? 3 : 1, 'failing-batch': 'none', 'batch-size': c.size, observation: 'right away' });
  }
}

/** The cases that are the first of their failing batch or of their mode: those read again later. */
function readAgain(results: readonly FailingResult[]): FailingResult[] {
  return results.filter((r, i) => results.findIndex((o) => o.c.at === r.c.at) === i || results.findIndex((o) => o.c.mode === r.c.mode) === i);
}

/**
 * The failing cases' runs read right away (as their runs ended), the first case of each failing
 * batch and of each mode read again later (after the other cases' runs and reads), and the first
 * case read after another run of its sync that the receiver answers 200. Each read must show the
 * run recorded as failed, and what it was must not change ("recorded": a state that lasts).
 */
export async function readFailingRuns(id: string, results: readonly FailingResult[]): Promise<FailingRead[]> {
  const reads: Array<Pick<FailingRead, 'r' | 'outcome' | 'observation'>> = results.map((r) => ({ r, outcome: r.run.outcome, observation: 'right away' }));
  // 'Later' is after other activity, never a wait (later.ts): the other cases' runs and reads, and a creation.
  await otherActivity();
  for (const r of readAgain(results)) reads.push({ r, outcome: await reread(r.s, r.run), observation: 'again later' });
  const written = results[0]!;
  // The run after a failed run, refused again from its first request: a target that reports only
  // a change of health records the repeat completed. Its failing answer may never come (nothing
  // left to send): it is then not judged.
  written.s.channel.script([], written.c.status);
  const again = { ...written, run: await runOnce(written.s) };
  const repeat = failingProblem(id, again, again.run.outcome, 'right away');
  if (repeat.judged) walked('sync.records delivery', { 'sync-mode': written.c.mode, 'preceded-by': 'a failed run', 'receiver-answer': written.c.status });
  written.s.channel.script([], 200);
  await runOnce(written.s);
  reads.push({ r: written, outcome: await reread(written.s, written.run), observation: 'after another write' });
  const judged = reads.map((x): FailingRead => {
    const j = { ...x, ...failingProblem(id, x.r, x.outcome, x.observation) };
    const before = x.r.run.outcome.status;
    if (j.judged && !j.problem && x.outcome.status !== before) j.problem = `${id} ${x.r.c.status} on the ${x.r.c.at} of ${x.r.c.batches} batches (${x.r.c.mode}): read right away the run was ${JSON.stringify(before)}, read ${x.observation} ${JSON.stringify(x.outcome.status)}`;
    return j;
  });
  for (const j of judged.filter((x) => x.judged)) {
    const at = failedBatch(j.r);
    for (const where of at?.at ?? []) walked('sync.records delivery', { 'sync-mode': j.r.c.mode, batches: at!.batches, 'failing-batch': where, 'batch-size': j.r.c.size, observation: j.observation, 'receiver-answer': j.r.c.status, 'after-refusal': 'refuses every request' });
  }
  walkFirstRuns(results);
  if (repeat.judged) judged.push({ r: again, outcome: again.run.outcome, observation: 'right away', ...repeat, ...(repeat.problem ? { problem: `${repeat.problem}, in the run after a failed run` } : {}) });
  return judged;
}

/**
 * A run whose receiver refuses one batch (not its last) and answers 200 to the others, its retries
 * refused too (refusingOnce): what happens to later batches is not shown, but a target that sends
 * them must still record the run failed ('Any 4xx or 5xx answer'), not take its status from the
 * last batch's answer. Differential, batch size 2 over 5 rows (three batches).
 */
export async function recoveringRead(id: string, status: number, at: 'first' | 'middle'): Promise<FailingRead> {
  const c: FailingCase = { status, at, batches: 3, mode: 'differential', size: 2 };
  const s = await scenario(`${failingLabel(c)}-recovering`, { rows: rowsOf(c), sharedSource: `failing-receiver-${rowsOf(c)}`, sync: { batchSize: 2 }, refuseOnce: { status, after: ANSWERED_BEFORE[at] } });
  const r: FailingResult = { c, s, run: s.runs[0]! };
  const j = failingProblem(id, r);
  if (j.judged) walked('sync.records delivery', { 'sync-mode': 'differential', 'failing-batch': at, 'receiver-answer': status, 'after-refusal': 'answers the other batches' });
  return { r, outcome: r.run.outcome, observation: 'right away', ...j, ...(j.problem ? { problem: `${j.problem}, the receiver answering 200 to the other batches` } : {}) };
}

/** How the judged runs ended: `failed: 7 (400 on the first of 3; 400, 401 on the middle of 3)`. */
export function endsSeen(judged: ReadonlyArray<{ c: FailingCase; seen?: string }>): string {
  const byEnd = new Map<string, FailingCase[]>();
  for (const j of judged) if (j.seen) byEnd.set(j.seen, [...(byEnd.get(j.seen) ?? []), j.c]);
  return [...byEnd]
    .map(([end, cases]) => {
      const at = new Map<string, number[]>();
      for (const c of cases) {
        const where = `the ${c.at} of ${c.batches} by ${c.size === '<default>' ? 'the default size' : c.size}${c.mode === 'differential' ? '' : ` (${c.mode})`}`;
        at.set(where, [...(at.get(where) ?? []), c.status]);
      }
      return `${end}: ${cases.length} (${[...at].map(([where, statuses]) => `${statuses.join(', ')} on ${where}`).join('; ')})`;
    })
    .join('; ');
}

/**
 * The capture log of one run against what the receiver got (Spec › Events › Emission 6): one
 * entry per request the receiver got in the run, each with its request and its response, and the
 * statuses logged are the statuses the receiver answered (as multisets; entries logged with an
 * error stand for requests the receiver did not answer). The log's order is not judged.
 */
export function captureProblem(label: string, run: RunEvidence): string | undefined {
  const log = run.outcome.captured ?? [];
  const got = run.deliveries;
  if (log.length !== got.length) return `${label}: the run's history logs ${log.length} exchanges, the receiver got ${got.length} requests`;
  const incomplete = log.findIndex((e) => e === null || typeof e !== 'object' || e.request === null || e.request === undefined || !e.response);
  if (incomplete !== -1) return `${label}: logged exchange ${incomplete + 1} has ${log[incomplete]?.request == null ? 'no request' : 'no response'}`;
  const logged = log.flatMap((e) => (e.response && 'status' in e.response ? [e.response.status] : [])).sort((a, b) => a - b);
  const answered = got.map((d) => d.response.status).filter((s) => s !== 0).sort((a, b) => a - b);
  if (JSON.stringify(logged) !== JSON.stringify(answered)) return `${label}: the log holds statuses ${logged.join(', ') || 'none'}, the receiver answered ${answered.join(', ') || 'none'}`;
  return undefined;
}

/** The slow receiver: two batches, the first answered after 1.5 s, so the second is created well after the first. */
export const SLOW_PLAN: ScenarioPlan = { rows: 4, sync: { batchSize: 2 }, script: [{ status: 200, delayMs: 1500 }] };

/**
 * Sets up and starts the slow receiver's run (src/suite/setup.ts calls it when WH-007 is
 * selected; not when it is declared unsupported), so its 1.5 s pass while the other spec files run. Its requests go out here, in
 * one place, so the request log keeps one order. A failure is met again by WH-007 at its turn.
 */
export async function prestart(): Promise<void> {
  const s = settings();
  // A shard may not hold the webhook checks at all: there WH-007 starts its run at its own turn.
  if (s.sharded) return;
  if (s.profile.unsupported?.['WH-007'] !== undefined) return;
  await begin('slow-receiver', SLOW_PLAN).catch(() => undefined);
}

// ISO 8601 as WH-006 reads it (a comma fraction, the basic format), else what Date.parse makes of
// a time with an offset; one without a zone would be read in this machine's zone, so it is not
// judged (WH-006 judges the format).
const instant = (t = '') => parseIsoUtc(t) ?? (/(?:[Zz]|[+-]\d\d:?\d\d)$/.test(t) ? Date.parse(t) : NaN);

/** Milliseconds one unit of a timestamp's last digit stands for: 1000 for whole seconds, 1 for milliseconds or finer. */
const resolutionMs = (t: string) => {
  const digits = /\d[.,](\d+)/.exec(t.replace(/^\d{8}T/, ''))?.[1]?.length ?? 0;
  return Math.max(1, 10 ** (3 - Math.min(digits, 3)));
};

/**
 * WH-007 across the runs of one sync: a run's requests are created after the suite asked for the
 * run (askedAt), which is after every earlier run's deliveries arrived. Only differences of the
 * target's own timestamps are compared with differences of this machine's clock, so a sender
 * clock off by any constant (ahead, behind, stamping at queueing) passes. A timestamp kept from an
 * earlier run (taken once per sync) does not. The slack is the timestamps' own resolution (a whole
 * second when they carry no fraction) and 2 ms for this machine's millisecond clock.
 */
export function laterRunTimestampProblems(runs: readonly RunEvidence[]): Array<{ d: Delivery; problem: string }> {
  const out: Array<{ d: Delivery; problem: string }> = [];
  const stamped = runs.map((r) => r.deliveries.flatMap((d) => {
    const t = d.headers['service-signature-timestamp'] ?? '';
    const sent = instant(t);
    return Number.isNaN(sent) ? [] : [{ d, sent, res: resolutionMs(t) }];
  }));
  for (const [i, run] of runs.entries()) {
    if (i === 0 || run.askedAt === undefined) continue;
    for (const later of stamped[i]!) {
      for (const earlier of stamped.slice(0, i).flat()) {
        const elapsed = run.askedAt - Date.parse(earlier.d.receivedAt);
        const slack = Math.max(later.res, earlier.res) + 2;
        if (later.sent - earlier.sent < elapsed - slack) {
          out.push({ d: later.d, problem: `run ${i + 1}'s delivery #${later.d.seq} is stamped ${new Date(later.sent).toISOString()}, ${later.sent - earlier.sent} ms after delivery #${earlier.d.seq} of an earlier run (${new Date(earlier.sent).toISOString()}), but the run was asked for ${elapsed} ms after that delivery arrived: the timestamp is not of when the request was created` });
          break;
        }
      }
    }
  }
  return out;
}

/**
 * WH-007 over one run: each timestamp within `toleranceS` before its own arrival and at most
 * `skewS` after it (a sender's clock may run ahead of the receiver's), and never earlier than the
 * timestamp of a delivery of the same run that the receiver had answered before this one arrived
 * (requests sent one after another are created in that order; overlapping ones are not compared).
 */
export function timestampProblems(run: RunEvidence, toleranceS: number, skewS: number): Array<{ d: Delivery; problem: string }> {
  const out: Array<{ d: Delivery; problem: string }> = [];
  const stamped = run.deliveries.map((d) => ({ d, sent: instant(d.headers['service-signature-timestamp']) })).filter((x) => !Number.isNaN(x.sent));
  for (const [i, { d, sent }] of stamped.entries()) {
    const age = (Date.parse(d.receivedAt) - sent) / 1000;
    if (age > toleranceS) out.push({ d, problem: `timestamp ${Math.round(age)} s before arrival (tolerance ${toleranceS} s)` });
    else if (-age > skewS) out.push({ d, problem: `timestamp ${Math.round(-age)} s after arrival (allowance for a clock ahead ${skewS} s)` });
    const earlier = stamped.slice(0, i).find((e) => e.d.response.at !== undefined && e.d.response.at <= d.receivedAt && e.sent > sent);
    if (earlier) out.push({ d, problem: `timestamp ${new Date(sent).toISOString()} is ${earlier.sent - sent} ms before that of delivery #${earlier.d.seq} (${new Date(earlier.sent).toISOString()}), answered before this one arrived` });
  }
  return out;
}
