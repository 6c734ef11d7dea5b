import { runEnd, type RunEnd } from '../adapters/types.ts';
import { parseIsoUtc } from '../iso8601.ts';
import type { Delivery } from '../receiver/index.ts';
import { settings } from './context.ts';
import { begin, scenario, type RunEvidence, type Scenario, type ScenarioPlan } from './webhook-fixtures.ts';

// The receiver's side of the webhook checks: what it answers (WH-020/021), the capture log of
// those exchanges (WH-022), and the timestamps against its own clock (WH-007).

/** 4xx answers a receiver gives in practice: bad request, auth, gone, too large, throttled. */
export const FAILING_4XX = [400, 401, 404, 410, 413, 429] as const;
export const FAILING_5XX = [500, 502, 503] as const;

/** Rows and batch size of a failing-receiver scenario: three batches. */
const ROWS = 5;
const BATCH = 2;

export interface FailingCase {
  status: number;
  /** The first batch answered with the status (1), or the first answered 200 and every later one with it (2). */
  from: 1 | 2;
}

export const failingLabel = (c: FailingCase): string => `answer-${c.status}-batch-${c.from}`;

/**
 * The receiver answers `status` from batch `from` on, to every request after that, so a target
 * that retries (Spec › Events › Emission 5: not shown) sees the failure again on every attempt.
 */
export function failingPlan(c: FailingCase): ScenarioPlan {
  return { rows: ROWS, sharedSource: 'failing-receiver', sync: { batchSize: BATCH }, script: c.from === 1 ? [] : [200], then: c.status };
}

/** Each status from batch 2, and the first status of the list from batch 1 too. */
export function failingCases(statuses: readonly number[]): FailingCase[] {
  return [{ status: statuses[0]!, from: 1 }, ...statuses.map((status) => ({ status, from: 2 as const }))];
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

/**
 * The problem of one case: the run must appear failed, which a run that ended failed does, and
 * one that completed with record errors too (the real service's way to say that records were
 * not delivered; README › Interpretations). A case whose failing answer was never given (the
 * target sent everything in one batch) is not judged here: `judged` says so. `seen` is how the
 * run ended, for the report.
 */
export function failingProblem(id: string, { c, s }: { c: FailingCase; s: Scenario }): { judged: boolean; problem?: string; seen?: RunEnd } {
  const run = s.runs[0]!;
  const failedAt = run.deliveries.findIndex((d) => d.response.status === c.status);
  if (failedAt === -1) return { judged: false };
  const seen = runEnd(run.outcome);
  if (seen !== 'completed') return { judged: true, seen };
  return { judged: true, seen, problem: `${id} ${c.status} on batch ${failedAt + 1}: run ended ${run.outcome.status}, with no record error` };
}

/** How the judged runs ended: `failed: 7 (400 on batch 1; 400, 401 on batch 2)`. */
export function endsSeen(judged: ReadonlyArray<{ c: FailingCase; seen?: RunEnd }>): string {
  const byEnd = new Map<RunEnd, FailingCase[]>();
  for (const j of judged) if (j.seen) byEnd.set(j.seen, [...(byEnd.get(j.seen) ?? []), j.c]);
  return [...byEnd]
    .map(([end, cases]) => {
      const at = ([1, 2] as const).map((from) => [from, cases.filter((c) => c.from === from).map((c) => c.status)] as const).filter(([, s]) => s.length > 0);
      return `${end}: ${cases.length} (${at.map(([from, statuses]) => `${statuses.join(', ')} on batch ${from}`).join('; ')})`;
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
