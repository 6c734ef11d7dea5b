import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SHARED_WORKER_FILES } from './test/helpers/shared-worker-files.ts';

// The project's own tests. The conformance specs in specs/ are run by `dss-conformance run`,
// which builds its own vitest configuration (src/runner/).

/** Files that start CLI runs (their cost is child processes): run first, the matrices before them. */
function weight(text: string): number {
  if (/\buseRunServers\b/.test(text)) return 3;
  if (/\brunCli\b|\bspawn\(|\bfork\(|\bexecFile/.test(text)) return 2;
  return 1;
}

/**
 * The longest files first, so none of them starts last and runs alone at the end: from the last
 * run's durations when vitest has them for every file (a developer's checkout), else (a fresh
 * clone, CI) the matrices, then the other files that start processes, then the rest, each group
 * in vitest's own order (larger files first). Every file keeps a fresh worker of its own (vitest's
 * isolation): sharing workers between in-process files saved ~23 s of CPU but let one file's
 * leftovers reach the next, and two receiver tests then failed on a busy machine.
 */
class LongestFirst extends BaseSequencer {
  override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(specs);
    if (specs.every((s) => this.ctx.cache.getTestSpecificationResult(s))) return sorted;
    const key = (s: TestSpecification) => weight(readFileSync(s.moduleId, 'utf8'));
    return sorted.map((s, i) => ({ s, i, k: key(s) })).sort((a, b) => b.k - a.k || a.i - b.i).map((x) => x.s);
  }
}

export default defineConfig({
  test: {
    // Generous: a test's verdict must not depend on how busy the machine is. A whole CLI run takes a
    // few seconds idle and minutes on a saturated runner; a hang still ends here, well inside CI's limit.
    testTimeout: 600_000,
    hookTimeout: 300_000,
    // The fault matrix runs the CLI once per fault in child processes; three at a time fits 2 cores.
    maxConcurrency: 3,
    sequence: { sequencer: LongestFirst },
    // Three files at a time on 2 cores: most files wait on child processes, loopback servers and
    // hostile targets' time limits (the hostile-target cases, three at a time, ~90 s idle), so the
    // others fill the gaps (vitest's default on 2 cores is one file at a time; two left ~1,500
    // file-seconds in a 13-minute run).
    maxWorkers: 3,
    projects: [
      // Pure files share workers (test/helpers/shared-worker-files.ts); every other file has its own.
      { extends: true, test: { name: 'shared-worker', include: [...SHARED_WORKER_FILES], isolate: false } },
      {
        extends: true,
        test: {
          name: 'own-worker',
          include: ['test/**/*.test.ts'],
          exclude: [...SHARED_WORKER_FILES],
          // One source database for the runs that take it (test/helpers/shared-source-db.ts).
          globalSetup: ['test/helpers/shared-source-db.ts'],
        },
      },
    ],
  },
});
