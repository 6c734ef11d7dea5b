import type { KitTable } from './database.ts';

// Which of the kit's tables in a source database a run left behind. A run drops its tables at its
// end, also when interrupted; one killed outright (SIGKILL, a lost CI runner) or whose database was
// down at its end leaves them, and `dss-conformance cleanup` finds them here: named as the kit
// names them, carrying the kit's comment, of a run that made no table for a while.

/** dssc_<run id>_<scenario>: a run id is 8 hex digits (run-command.ts); anything else is not the kit's. */
const TABLE_NAME = /^dssc_([0-9a-f]{8})_[a-z0-9_]+$/;
/** tableComment() in database.ts. */
const COMMENT = /^dss-conformance run ([0-9a-f]{8}) created (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)$/;

export interface LeftoverRun {
  runId: string;
  tables: Array<{ schema: string; name: string; createdAt: Date | undefined }>;
  /** When its newest table was made (the server's clock); undefined when none says (no kit comment). */
  newest: Date | undefined;
}

export interface Sorted {
  /** Runs whose newest table is at least olderThanMs old: dead (a live run makes tables as it goes). */
  old: LeftoverRun[];
  /** Runs with a table younger than that: maybe still running. */
  young: LeftoverRun[];
  /** Runs whose tables carry no creation time (not the kit's comment): their age is unknown. */
  unknown: LeftoverRun[];
}

/** The run id of a table the kit named, or undefined for any other name (dssc_orders, dssc_x_y). */
export function kitRunId(name: string): string | undefined {
  return TABLE_NAME.exec(name)?.[1];
}

/**
 * The kit's tables by run, each run old, young or of unknown age at `now` (the server's clock, as
 * the comments' times are). A comment naming another run than the table's name does is no time.
 * olderThanMs 0 takes every run as old, the unknown ones too: the user asked for all of them.
 */
export function sortLeftovers(tables: readonly KitTable[], now: Date, olderThanMs: number): Sorted {
  const runs = new Map<string, LeftoverRun>();
  for (const t of tables) {
    const runId = kitRunId(t.name);
    if (!runId) continue;
    const m = t.comment ? COMMENT.exec(t.comment) : null;
    const createdAt = m && m[1] === runId ? new Date(m[2]!) : undefined;
    const run = runs.get(runId) ?? { runId, tables: [], newest: undefined };
    run.tables.push({ schema: t.schema, name: t.name, createdAt });
    if (createdAt && (!run.newest || createdAt > run.newest)) run.newest = createdAt;
    runs.set(runId, run);
  }
  const sorted: Sorted = { old: [], young: [], unknown: [] };
  for (const run of runs.values()) {
    if (olderThanMs === 0) sorted.old.push(run);
    else if (!run.newest) sorted.unknown.push(run);
    else if (now.getTime() - run.newest.getTime() >= olderThanMs) sorted.old.push(run);
    else sorted.young.push(run);
  }
  return sorted;
}
