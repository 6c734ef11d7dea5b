import { runEnd, type RunOutcome } from '../adapters/types.ts';
import type { DimensionValue } from '../generators/input-space.ts';
import { walked } from './input-space-record.ts';
import type { SyncMode } from './webhook-answers.ts';
import { reread, runOnce, type Scenario } from './webhook-fixtures.ts';
import { otherActivity } from './later.ts';

// A completed run's outcome is a record (Spec › Errors, "recorded as failed", and its converse): it
// is read when the run ends, and read again later, after other activity (other runs of its sync,
// a creation), and must read the same. A target that rewrites a finished run (a late failure, record errors counted afterwards,
// the sync's latest run answered for an earlier one) shows only on such a second read.

/** What of a run's end must last: its end as the profile maps it, and its record errors. */
function endOf(o: RunOutcome): string {
  const errors = o.recordErrors ?? 0;
  const word = o.status === runEnd(o) ? [] : [JSON.stringify(o.status)];
  const shown = [...word, ...(errors > 0 ? [`${errors} record errors`] : [])];
  return `${runEnd(o)}${shown.length > 0 ? ` (${shown.join(', ')})` : ''}`;
}

/**
 * A scenario's first run read again after its later runs ("after another write"), and its last
 * run read again after other activity ("again later": one more run of its sync, which the checks
 * sharing the scenario never see, and a creation; never a wait, later.ts). Each read is walked as
 * it was made; the problems are the reads that differ from the run's end as first read.
 */
export async function rereadProblems(label: string, s: Scenario, mode: SyncMode): Promise<string[]> {
  const last = s.runs.length - 1;
  const reads: Array<[number, 'after another write' | 'again later']> = last > 0 ? [[0, 'after another write'], [last, 'again later']] : [[0, 'again later']];
  const problems: string[] = [];
  for (const [i, observation] of reads) {
    const r = s.runs[i]!;
    let after = `its ${last - i} later runs`;
    if (observation === 'again later') {
      const next = await runOnce(s);
      const activity = await otherActivity();
      after = [`one more run of its sync (${next.outcome.status}, ${next.deliveries.length} deliveries)`, ...activity].join(', ');
    }
    const again = await reread(s, r);
    const n = r.deliveries.length;
    const batches: Record<string, DimensionValue> = n === 1 || n >= 3 ? { batches: n >= 3 ? 3 : 1 } : {};
    walked('sync.records delivery', { 'sync-mode': mode, ...batches, 'failing-batch': 'none', observation });
    if (endOf(again) !== endOf(r.outcome)) problems.push(`${label} run ${i + 1} of ${s.runs.length}: read right away it ended ${endOf(r.outcome)}, read ${observation} (after ${after}) ${endOf(again)}`);
  }
  return problems;
}
