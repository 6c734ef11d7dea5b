import { afterAll, beforeAll } from 'vitest';
import { startEmbeddedSourceDb, type EmbeddedSourceDb } from '../../src/source-db/embedded.ts';

// One embedded source database for a whole matrix file: each run of the suite in it is given the
// database with --source-db (DSS_SOURCE_DB) instead of starting its own (a native PostgreSQL:
// ~0.1 GB of RSS and a copy of its template each, times the runs that go on side by side). Every run still creates its own
// run-prefixed tables and drops them at its end; the default path, a database per run, is what
// the clean run of fault-matrix.test.ts and the CLI tests take.

let db: EmbeddedSourceDb | undefined;

/** Registers the database's start and stop in the calling file; the env to hand each run. */
export function useSharedSourceDb(): () => Record<string, string> {
  beforeAll(async () => {
    db = await startEmbeddedSourceDb();
    await db.ready;
  });
  afterAll(async () => {
    await db?.close();
  });
  return () => ({ DSS_SOURCE_DB: db!.url });
}
