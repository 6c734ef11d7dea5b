import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SHARED_WORKER_FILES } from './test/helpers/shared-worker-files.ts';

// The project's own tests. The conformance specs in specs/ are run by `dss-conformance run`,
// which builds its own vitest configuration (src/runner/).

/** What a file starts (its cost is child processes): a guess at its length when test/file-durations.json does not know it. */
function weight(text: string): number {
  if (/\buseRunServers\b/.test(text)) return 3;
  if (/\brunCli\b|\bspawn\(|\bfork\(|\bexecFile/.test(text)) return 2;
  return 1;
}

/** Each file's wall time in a recent `npm test` (bench/file-durations.ts writes it): order only. */
const DURATIONS = JSON.parse(readFileSync(new URL('./test/file-durations.json', import.meta.url), 'utf8')) as Record<string, number>;

/** A file the durations do not know yet: one that starts processes is taken for a long one. */
const GUESS_MS = [0, 1_000, 30_000, 60_000];

/**
 * The longest files first, so none of them starts last and runs alone at the end: from the last
 * run's durations when vitest has them for every file (a developer's checkout), else (a fresh
 * clone, CI) from test/file-durations.json, a file it does not know by what it starts. The
 * committed durations took a fresh clone's vitest from 348 s to 303 s (ordered by the kinds of
 * file alone, a 75 s file started last and ran alone at the end). In-process files that touch nothing outside themselves share
 * workers (test/helpers/shared-worker-files.ts); every other file has a fresh worker of its own.
 */
class LongestFirst extends BaseSequencer {
  override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(specs);
    if (specs.every((s) => this.ctx.cache.getTestSpecificationResult(s))) return sorted;
    const key = (s: TestSpecification) => DURATIONS[relative(this.ctx.config.root, s.moduleId).replaceAll('\\', '/')] ?? GUESS_MS[weight(readFileSync(s.moduleId, 'utf8'))]!;
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
