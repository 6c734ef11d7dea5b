import { api, once } from './context.ts';
import { dataOf } from './expect.ts';
import { walked } from './input-space-record.ts';
import { records } from './webhook-judging.ts';
import { addRows, runOnce, scenario, startNext, type RunEvidence, type Scenario, type ScenarioPlan } from './webhook-fixtures.ts';
import type { SyncMode } from './webhook-answers.ts';

// The run after a failed run (WH-024). A failed run leaves work behind: the rows it never got to,
// and the records of the batch that was refused, which auto_retry_record_errors says are retried
// on the next run (Spec › SyncErrorHandling). A target that moves its cursor past a failure, or
// "resumes" a full sync instead of sending everything, shows only on the run after one.

/** Each mode's case: batches of 2 over 5 rows, the middle batch refused, auto retry on before the first run. */
const SIZE = 2;
const ROWS = 2 * SIZE + 1;
const AUTO_RETRY = { auto_retry_record_errors: true };

/** A status per mode, from each class: the statuses themselves are WH-020/021's to walk. */
const STATUS: Record<SyncMode, number> = { differential: 500, 'full sync': 422, 'skip backfill': 503 };

/** The failing status of a mode's case. */
export const afterFailureStatus = (mode: SyncMode): number => STATUS[mode];

export interface AfterFailure {
  mode: SyncMode;
  s: Scenario;
  /** The run the receiver failed (its middle batch and every request after it). */
  failed: RunEvidence;
  /** The next run, every request answered 200. */
  next: RunEvidence;
  /** auto_retry_record_errors as a PUT {} answered after the runs (undefined: not reported). */
  autoRetryAfter: unknown;
}

const label = (mode: SyncMode) => `after-failure-${mode.replace(' ', '-')}`;

/** Differential fails its first run; full sync its second (nothing changed); skip backfill its second, after rows were added. */
function plan(mode: SyncMode): ScenarioPlan {
  const sync = { batchSize: SIZE, ...(mode === 'full sync' ? { syncAllRecords: true } : mode === 'skip backfill' ? { skipInitialBackfill: true } : {}) };
  const failing = { script: [200], then: STATUS[mode] };
  // Differential and full sync read the rows WH-020/021's cases of this size read (no row is
  // added to them); skip backfill has a source of its own, as rows are added to it.
  const source = mode === 'skip backfill' ? {} : { sharedSource: `failing-receiver-${ROWS}` };
  return { rows: mode === 'skip backfill' ? 1 : ROWS, ...source, sync, errorHandling: AUTO_RETRY, ...(mode === 'differential' ? failing : {}) };
}

/** One mode's case: its failed run and the run after it (set up once per run, whichever check asks first). */
export function afterFailure(mode: SyncMode): Promise<AfterFailure> {
  return once(`after-failure:${mode}`, async () => {
    const s = await scenario(label(mode), plan(mode));
    let failed = s.runs[0]!;
    if (mode !== 'differential') {
      if (mode === 'skip backfill') await addRows(s, `after-failure-added-${label(mode)}`, ROWS);
      s.channel.script([200], STATUS[mode]);
      failed = await (await startNext(s)).finish();
    }
    s.channel.script([], 200);
    const next = await runOnce(s);
    const res = await api().put(`/api/syncs/${encodeURIComponent(s.sync.id)}/error-handling`, {});
    const autoRetryAfter = res.status === 200 ? dataOf(res)?.auto_retry_record_errors : undefined;
    walked('sync.records delivery', { 'sync-mode': mode, 'preceded-by': 'a failed run' });
    return { mode, s, failed, next, autoRetryAfter };
  });
}

/**
 * What the run after the failed one owes, row by row, from what the receiver got before it: every
 * row under full sync; otherwise each row never answered 2xx with its current fields (skip backfill:
 * outside the rows there before the first run), when it was never sent at all (the failed run did
 * not get to it) or sent only in a refused batch (auto retry is on).
 */
export function owed(a: AfterFailure): Map<string, string> {
  const { s, next } = a;
  const before = s.runs.filter((r) => r !== next).flatMap((r) => r.deliveries);
  const ok = new Map<string, string[]>();
  const refused = new Set<string>();
  for (const d of before) {
    for (const r of records(d)) {
      const id = String(r.fields?.id);
      if (d.response.status >= 200 && d.response.status < 300) ok.set(id, [...(ok.get(id) ?? []), JSON.stringify(r.fields)]);
      else refused.add(id);
    }
  }
  const baseline = a.mode === 'skip backfill' ? new Set(s.runs[0]!.rows.keys()) : new Set<string>();
  const out = new Map<string, string>();
  for (const [id] of next.rows) {
    if (a.mode === 'full sync') out.set(id, 'full sync: every row');
    else if (baseline.has(id) || ok.has(id)) continue;
    else out.set(id, refused.has(id) ? 'refused in the failed run, auto retry on' : 'never sent: the failed run did not get to it');
  }
  return out;
}
