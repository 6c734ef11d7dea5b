import { UnreachableError } from '../cli-errors.ts';
import { SourceDb, SourceDbError } from './database.ts';
import { spoken } from '../runner/duration.ts';
import { sortLeftovers } from './leftovers.ts';
import { parseSourceDbUrl } from './url.ts';

// `dss-conformance cleanup --source-db URL`: drops the tables dead runs left in a source database
// (leftovers.ts says which), in every schema the role may drop tables in, and nothing else. One
// line per table dropped, one per run kept, and a total; never the password.

export interface CleanOptions {
  olderThanMs: number;
  dryRun: boolean;
  /** Where the lines go (stdout); failures to drop a table go to `warn` (stderr). */
  out(line: string): void;
  warn(line: string): void;
}

/** The tables that could not be dropped (the others were): the command's exit 1 when not 0. */
export async function cleanSourceDb(url: string, label: string, o: CleanOptions): Promise<{ failed: number }> {
  const parsed = parseSourceDbUrl(url, label);
  const db = new SourceDb(parsed.url, 'cleanup', undefined, { connectTimeoutMs: 10_000 });
  const where = `${db.address}/${parsed.database}`;
  try {
    let now: Date;
    let tables;
    try {
      now = await db.serverNow();
      tables = await db.kitTables();
    } catch (error) {
      // The database cannot be used at all (down, refused, the login refused): exit 3.
      throw new UnreachableError(error instanceof SourceDbError ? error.message : `the source database at ${db.address} cannot be reached`);
    }
    const { old, young, unknown } = sortLeftovers(tables, now, o.olderThanMs);
    let dropped = 0;
    let failed = 0;
    for (const run of old) {
      for (const t of run.tables) {
        const line = `${t.schema}.${t.name} (run ${run.runId}, ${t.createdAt ? `created ${t.createdAt.toISOString()}` : 'no creation time'})`;
        if (o.dryRun) {
          o.out(`would drop ${line}`);
          dropped += 1;
          continue;
        }
        try {
          await db.dropTable(t);
          o.out(`dropped ${line}`);
          dropped += 1;
        } catch (error) {
          o.warn(`could not drop ${t.schema}.${t.name}: ${(error as Error).message}`);
          failed += 1;
        }
      }
    }
    for (const run of young) o.out(`kept run ${run.runId}: ${count(run.tables.length, 'table')}, the newest made ${ago(now.getTime() - run.newest!.getTime())} ago (younger than --older-than ${spoken(o.olderThanMs)}: it may still be running)`);
    for (const run of unknown) o.out(`kept run ${run.runId}: ${count(run.tables.length, 'table')} without the kit's creation time (an older dss-conformance made ${run.tables.length === 1 ? 'it' : 'them'}; --older-than 0 drops ${run.tables.length === 1 ? 'it' : 'them'})`);
    const kept = [...young, ...unknown];
    const keptTables = kept.reduce((n, r) => n + r.tables.length, 0);
    o.out(`source database ${where}: ${o.dryRun ? 'would drop' : 'dropped'} ${count(dropped, 'table')} of ${count(old.length, 'run')}${kept.length ? `; kept ${count(keptTables, 'table')} of ${count(kept.length, 'run')}` : ''}`);
    return { failed };
  } finally {
    await db.close();
  }
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** 45 s, 12 min, 3 h, 2 days: how long ago, roughly. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 120 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}
