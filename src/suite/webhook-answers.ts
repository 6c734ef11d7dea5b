import { runEnd, type RunEnd, type RunOutcome } from '../adapters/types.ts';
import { parseIsoUtc } from '../iso8601.ts';
import type { Delivery } from '../receiver/index.ts';
import { settings } from './context.ts';
import { begin, reread, runOnce, scenario, type RunEvidence, type Scenario, type ScenarioPlan } from './webhook-fixtures.ts';
import { walked } from './input-space-record.ts';

// The receiver's side of the webhook checks: what it answers (WH-020/021), the capture log of
// those exchanges (WH-022), and the timestamps against its own clock (WH-007).

/** 4xx answers a receiver gives in practice: bad request, auth, gone, too large, throttled. */
export const FAILING_4XX = [400, 401, 404, 410, 413, 429] as const;
export const FAILING_5XX = [500, 502, 503] as const;

/** Rows of a failing-receiver scenario: three batches of 2, 2 and 1, or one batch. */
const ROWS = 5;
const BATCH_SIZE = { 1: 10, 3: 2 } as const;

export type FailingBatch = 'first' | 'middle' | 'last';

export interface FailingCase {
  status: number;
  /** The batch first answered with the status; the batches before it are answered 200. */
  at: FailingBatch;
  /** Batches the run would send: 1 (the first is the last) or 3. */
  batches: 1 | 3;
}

export const failingLabel = (c: FailingCase): string => `answer-${c.status}-${c.at}-of-${c.batches}`;

const ANSWERED_BEFORE: Record<FailingBatch, number> = { first: 0, middle: 1, last: 2 };

/**
 * The receiver answers `status` from batch `at` on, to every request after that, so a target
 * that retries (Spec › Events › Emission 5: not shown) sees the failure again on every attempt.
 */
export function failingPlan(c: FailingCase): ScenarioPlan {
  return { rows: ROWS, sharedSource: 'failing-receiver', sync: { batchSize: BATCH_SIZE[c.batches] }, script: Array(ANSWERED_BEFORE[c.at]).fill(200), then: c.status };
}

/**
 * Every status on the middle batch; the first status on the first batch, the second on the last
 * and the last on a run of one batch: batches × failing batch (1 × first, 3 × first, middle and
 * last), each pair enumerated by hand (no all-pairs generator on this branch yet).
 */
export function failingCases(statuses: readonly number[]): FailingCase[] {
  return [
    { status: statuses[0]!, at: 'first', batches: 3 },
    { status: statuses[1]!, at: 'last', batches: 3 },
    { status: statuses.at(-1)!, at: 'first', batches: 1 },
    ...statuses.map((status) => ({ status, at: 'middle' as const, batches: 3 as const })),
  ];
}

/**
 * The scenarios of `cases`: every run is started before any is waited for, so they run side by
 * side on the target while the suite's requests keep one order.
 */
export async function failingScenarios(cases: readonly FailingCase[]): Promise<Array<{ c: FailingCase; s: Scenario }>> {
  for (const c of cases) await begin(failingLabel(c), failingPlan(c));
  const out: Array<{ c: FailingCase; s: Scenario }> = [];
  for (const c of cases) out.push({ c, s: await scenario(failingLabel(c), failingPlan(c)) });
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
export function failingProblem(id: string, { c, s }: { c: FailingCase; s: Scenario }, outcome: RunOutcome = s.runs[0]!.outcome, observation: Observation = 'right away'): { judged: boolean; problem?: string; seen?: string } {
  const run = s.runs[0]!;
  const failedAt = run.deliveries.findIndex((d) => d.response.status === c.status);
  if (failedAt === -1) return { judged: false };
  const end = runEnd(outcome);
  // The target's own word beside the suite's reading, so a word mapped to failed shows in the note.
  const seen = outcome.status === end ? end : `${end} (${JSON.stringify(outcome.status)})`;
  if (outcome.failed) return { judged: true, seen };
  const errors = outcome.recordErrors ? `with ${outcome.recordErrors} record errors` : 'with no record error';
  const first = observation === 'right away' ? '' : `; read right away it was ${JSON.stringify(run.outcome.status)}`;
  return { judged: true, seen, problem: `${id} ${c.status} on batch ${failedAt + 1} of ${c.batches}: read ${observation}, the run is ${JSON.stringify(outcome.status)} (a word the profile does not map to failed), ${errors}${first}` };
}

export interface FailingRead {
  r: { c: FailingCase; s: Scenario };
  outcome: RunOutcome;
  observation: Observation;
  judged: boolean;
  problem?: string;
  seen?: string;
}

/**
 * The failing cases' runs read right away (as their runs ended), one case of each failing batch
 * read again later (after the other cases' runs and reads; failingCases puts them first), and the
 * first case read after another run of its sync that the receiver answers 200. Each read must
 * show the run recorded as failed, and what it was must not change ("recorded": a state that lasts).
 */
export async function readFailingRuns(id: string, results: ReadonlyArray<{ c: FailingCase; s: Scenario }>): Promise<FailingRead[]> {
  const reads: Array<Pick<FailingRead, 'r' | 'outcome' | 'observation'>> = results.map((r) => ({ r, outcome: r.s.runs[0]!.outcome, observation: 'right away' }));
  for (const r of results.slice(0, 4)) reads.push({ r, outcome: await reread(r.s, r.s.runs[0]!), observation: 'again later' });
  const written = results[0]!;
  written.s.channel.script([], 200);
  await runOnce(written.s);
  reads.push({ r: written, outcome: await reread(written.s, written.s.runs[0]!), observation: 'after another write' });
  const judged = reads.map((x): FailingRead => {
    const j = { ...x, ...failingProblem(id, x.r, x.outcome, x.observation) };
    const before = x.r.s.runs[0]!.outcome.status;
    if (j.judged && !j.problem && x.outcome.status !== before) j.problem = `${id} ${x.r.c.status} on the ${x.r.c.at} of ${x.r.c.batches} batches: read right away the run was ${JSON.stringify(before)}, read ${x.observation} ${JSON.stringify(x.outcome.status)}`;
    return j;
  });
  // A run's only batch is its first and its last; no run of one batch has a middle one.
  for (const j of judged.filter((x) => x.judged)) {
    for (const at of j.r.c.batches === 1 ? (['first', 'last'] as const) : [j.r.c.at]) walked('sync.records delivery', { 'sync-mode': 'differential', batches: j.r.c.batches, 'failing-batch': at, observation: j.observation });
  }
  return judged;
}

/** How the judged runs ended: `failed: 7 (400 on the first of 3; 400, 401 on the middle of 3)`. */
export function endsSeen(judged: ReadonlyArray<{ c: FailingCase; seen?: string }>): string {
  const byEnd = new Map<string, FailingCase[]>();
  for (const j of judged) if (j.seen) byEnd.set(j.seen, [...(byEnd.get(j.seen) ?? []), j.c]);
  return [...byEnd]
    .map(([end, cases]) => {
      const at = new Map<string, number[]>();
      for (const c of cases) at.set(`the ${c.at} of ${c.batches}`, [...(at.get(`the ${c.at} of ${c.batches}`) ?? []), c.status]);
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
 * Sets up and starts the slow receiver's run when WH-007 is selected (and not declared
 * unsupported), so its 1.5 s pass while the other spec files run. Its requests go out here, in
 * one place, so the request log keeps one order. A failure is met again by WH-007 at its turn.
 */
export async function prestart(): Promise<void> {
  const s = settings();
  // A shard may not hold the webhook checks at all: there WH-007 starts its run at its own turn.
  if (s.sharded) return;
  if (s.selected !== undefined && !s.selected.includes('WH-007')) return;
  if (s.profile.unsupported?.['WH-007'] !== undefined) return;
  await begin('slow-receiver', SLOW_PLAN).catch(() => undefined);
}

/**
 * WH-007 over one run: each timestamp within `toleranceS` before its own arrival and at most
 * `skewS` after it (a sender's clock may run ahead of the receiver's), and never earlier than the
 * timestamp of a delivery of the same run that the receiver had answered before this one arrived
 * (requests sent one after another are created in that order; overlapping ones are not compared).
 */
export function timestampProblems(run: RunEvidence, toleranceS: number, skewS: number): Array<{ d: Delivery; problem: string }> {
  const out: Array<{ d: Delivery; problem: string }> = [];
  // ISO 8601 as WH-006 reads it (a comma fraction, the basic format), else what Date.parse makes of
  // a time with an offset; one without a zone would be read in this machine's zone, so it is not
  // judged (WH-006 judges the format).
  const instant = (t = '') => parseIsoUtc(t) ?? (/(?:[Zz]|[+-]\d\d:?\d\d)$/.test(t) ? Date.parse(t) : NaN);
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
