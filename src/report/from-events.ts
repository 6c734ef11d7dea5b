import { applyBaseline } from './baseline.ts';
import { judgeErrorAnswers, type ErrorAnswer } from './error-answers.ts';
import type { DeclaredCapabilities, RunEvent, RunStartEvent } from './events.ts';
import type { Catalogue, CheckResult, DeliveryRecord, Requirement, RunResult } from './results.ts';
import { runVerdict, type RunVerdict } from './verdict.ts';

// The one place a run's result is computed: every renderer gets the RunResult folded here from the
// event stream, so the verdict and every run-level judgement come out the same whether the events
// came from one process or from the streams of several shards read one after another.

/** The run as the renderers see it: RunResult (results.json's shape) plus what only the HTML needs. */
export interface FoldedRun {
  run: RunResult;
  start: RunStartEvent | undefined;
  capabilities: DeclaredCapabilities | undefined;
  /** Heartbeats: what the run waited for longest (the HTML lists the waits). */
  waits: Array<{ waitingFor: string; elapsedMs: number; boundMs?: number | undefined }>;
}

export function foldEvents(events: readonly RunEvent[], requirements: Requirement[]): FoldedRun {
  const starts = events.filter((e): e is RunStartEvent => e.type === 'run-start');
  const start = starts[0];
  const ends = events.filter((e) => e.type === 'run-end');
  const checks: CheckResult[] = [];
  const errors: string[] = [];
  const deliveries: DeliveryRecord[] = [];
  const answers: ErrorAnswer[] = [];
  const areas = new Set<string>();
  let receiver = false;
  const notKept: Record<string, number> = {};
  const waits = new Map<string, FoldedRun['waits'][number]>();
  for (const e of events) {
    if (e.type === 'check-result') checks.push(e.check);
    else if (e.type === 'run-error') errors.push(e.message);
    else if (e.type === 'delivery') deliveries.push(e.delivery);
    else if (e.type === 'receiver') {
      receiver = true;
      for (const [kind, n] of Object.entries(e.notKept ?? {})) notKept[kind] = (notKept[kind] ?? 0) + n;
    }
    else if (e.type === 'error-answer') answers.push(e.answer);
    else if (e.type === 'suite-files') for (const a of e.areas) areas.add(a);
    else if (e.type === 'heartbeat') waits.set(e.waitingFor, { waitingFor: e.waitingFor, elapsedMs: e.elapsedMs, boundMs: e.boundMs });
  }
  // A shard's deliveries are numbered from 1 again: renumbered in stream order.
  if (starts.length > 1) deliveries.forEach((d, i) => (d.seq = i + 1));
  const interrupted = ends.map((e) => e.interrupted).find((x) => x !== undefined);
  const aborted = ends.map((e) => e.aborted).find((x) => x !== undefined);
  // Several shards: any selection that is not "all" is the union of theirs.
  const selectedIds = starts.some((s) => s.selected === undefined) ? undefined : starts.flatMap((s) => s.selected ?? []);
  const selected = selectedIds && selectedIds.length > 0 ? new Set(selectedIds) : undefined;

  // Run-level judgements over the whole stream (every shard's answers when merged).
  let judged = judgeErrorAnswers(checks, answers);
  if (interrupted) {
    for (const r of requirements) {
      if ((!selected || selected.has(r.id)) && !judged.some((c) => c.id === r.id)) {
        judged = [...judged, { id: r.id, title: `${r.id} (not finished)`, area: r.spec.replace(/\.spec\.ts$/, ''), level: r.level, section: r.section, status: 'error', reason: `interrupted: ${interrupted}`, durationMs: 0 }];
      }
    }
  }
  // The last end, and below the first start, by time: merged shards come in shard order, not in
  // the order they ran, so the run's span is from whichever started first to whichever ended last.
  const endAt = latest(ends.map((e) => e.at)) ?? events.at(-1)?.at ?? new Date().toISOString();
  let problems: string[] = [];
  let unmatched: string[] = [];
  const baseline = start?.baseline;
  if (baseline) ({ checks: judged, problems, unmatched } = applyBaseline(judged, baseline, new Date(endAt)));

  const startedAt = earliest(starts.map((e) => e.at)) ?? events[0]?.at ?? endAt;
  // Shards run side by side or one after another: the run took from the first start to the last end.
  const durationMs = starts.length > 1 || ends.length === 0 ? Date.parse(endAt) - Date.parse(startedAt) : ends[0]!.durationMs;
  const run: RunResult = {
    tool: start?.tool ?? 'dss-conformance',
    ...(start?.kitVersion ? { kitVersion: start.kitVersion } : {}),
    ...(start?.implementation ? { implementation: start.implementation } : {}),
    ...(start?.catalogue ? { catalogue: start.catalogue } : {}),
    target: start?.target ?? '',
    profile: start?.profile ?? '',
    seed: start?.seed ?? 0,
    runId: starts.map((s) => s.runId).join('+'),
    startedAt,
    durationMs,
    replay: start?.replay ?? '',
    checks: judged,
    errors,
    ...(receiver || deliveries.length > 0 ? { deliveries } : {}),
    ...(Object.keys(notKept).length > 0 ? { deliveriesNotKept: notKept } : {}),
    ...(interrupted ? { interrupted } : {}),
    ...(aborted ? { aborted } : {}),
    ...(problems.length ? { problems } : {}),
    ...(baseline ? { baseline: { file: baseline.file, unmatched } } : {}),
  };
  run.verdict = runVerdict(requirements, judged, [...errors, ...problems], selected, { strict: start?.strict });
  const shards = shardsOf(starts);
  if (shards) {
    run.shards = shards;
    if (shards.missing.length > 0) unmerged(run.verdict, shards, requirements, areas);
  }
  return { run, start, capabilities: start?.capabilities, waits: [...waits.values()] };
}

const earliest = (times: string[]) => times.reduce<string | undefined>((a, t) => (a === undefined || Date.parse(t) < Date.parse(a) ? t : a), undefined);
const latest = (times: string[]) => times.reduce<string | undefined>((a, t) => (a === undefined || Date.parse(t) > Date.parse(a) ? t : a), undefined);

/** The shards a stream holds, and which of the count are missing (a shard alone, or a partial merge). */
function shardsOf(starts: readonly RunStartEvent[]): NonNullable<RunResult['shards']> | undefined {
  const sharded = starts.map((s) => s.shard).filter((x): x is NonNullable<RunStartEvent['shard']> => x !== undefined);
  if (sharded.length === 0) return undefined;
  const count = sharded[0]!.count;
  const present = [...new Set(sharded.map((s) => s.index))].sort((a, b) => a - b);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !present.includes(i));
  return { count, present, missing };
}

/**
 * Some shards are missing: their requirements were not run here, so the run is at best
 * INCOMPLETE (a shard alone is never CONFORMANT, even when its slice holds every requirement).
 */
function unmerged(v: RunVerdict, shards: NonNullable<RunResult['shards']>, requirements: Requirement[], areas: ReadonlySet<string>): void {
  const why = `not run in ${shards.present.length === 1 ? `this shard (${shards.present[0]}/${shards.count})` : `shards ${shards.present.map((i) => `${i}/${shards.count}`).join(', ')}`}: merge the shards (dss-conformance merge)`;
  for (const r of v.requirements) {
    const spec = requirements.find((x) => x.id === r.id)?.spec.replace(/\.spec\.ts$/, '');
    if (r.status === 'not-run' && (areas.size === 0 || !spec || !areas.has(spec))) r.reason = why;
  }
  v.unjudged.unshift(`shards ${shards.missing.map((i) => `${i}/${shards.count}`).join(', ')} (not merged)`);
  if (v.verdict === 'CONFORMANT') v.verdict = 'INCOMPLETE';
}

/** The half of the catalogue a stream judged (its run-start says; the service's when it does not). */
export function catalogueOf(events: readonly RunEvent[]): Catalogue {
  const start = events.find((e): e is RunStartEvent => e.type === 'run-start');
  return start?.half ?? 'service';
}
