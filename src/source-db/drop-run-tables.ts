import { SourceDb } from './database.ts';

// Run by an interrupted run in a child process it waits for (spawnSync): the signal's handler
// must finish synchronously (vitest exits the process right after it), yet the run's tables must
// go (in whichever schema they are: dropRunTables looks in all). The URL comes in the environment,
// not in argv, where `ps` would show its password. A run killed outright never gets here: its
// tables stay until `dss-conformance cleanup` drops them.

const url = process.env.DSSC_DROP_SOURCE_DB;
const runId = process.env.DSSC_DROP_RUN_ID;
if (url && runId) {
  const db = new SourceDb(url, runId);
  try {
    await db.dropRunTables();
  } catch {
    process.exitCode = 1;
  } finally {
    await db.close();
  }
}
