import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { startEmbeddedSourceDb } from '../../src/source-db/embedded.ts';

// One embedded source database for the whole `npm test` (vitest's globalSetup, vitest.config.ts),
// handed to runs with --source-db's variable DSS_SOURCE_DB instead of each run starting its own: a
// native PostgreSQL's start and stop cost ~1.1 s of CPU (a copy of its template, mostly system
// time), and ~100 runs of `npm test` started one (measured: 72 of them in run servers). Every
// run still creates its own run-prefixed tables and drops them at its end, so runs side by side
// (from any file) never see each other's data. What the runs that take it no longer test, the
// default path (a database per run, started in parallel with the run), is what the clean run of
// fault-matrix.test.ts, the CLI's own-process runs (runCli) and test/source-db/ test.

declare module 'vitest' {
  interface ProvidedContext {
    sharedSourceDb: string;
  }
}

/** vitest's globalSetup: starts the database before any file, stops it after the last. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const db = await startEmbeddedSourceDb();
  await db.ready;
  project.provide('sharedSourceDb', db.url);
  return () => db.close();
}

/** The env that gives a run the shared database. */
export function useSharedSourceDb(): () => Record<string, string> {
  const url = inject('sharedSourceDb');
  return () => ({ DSS_SOURCE_DB: url });
}
