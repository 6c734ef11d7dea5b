import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The project's own tests. The conformance specs in specs/ are run by `dss-conformance run`,
// which builds its own vitest configuration (src/runner/).

const ROOT = new URL('.', import.meta.url).pathname;

/** test/<dir>/<name>.test.ts, relative to the root. */
function testFiles(): string[] {
  return readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/${f}`)
    .sort();
}

// What a file does decides where it runs, read from its text so a new file is placed without
// being listed. A file that mocks modules, fakes timers or stubs globals, touches the process's
// own state (listeners, environment, exit code), or starts processes runs in a fresh worker of its
// own (vitest's isolation). The rest (the in-process tests: the reference, the receiver, the
// suite's parts) share workers and their loaded modules: each fresh worker cost ~0.5 s of CPU to
// start and load the kit, for ~half of the files.
const NEEDS_ISOLATION = /\bvi\.(?:mock|doMock|unmock|stubEnv|stubGlobal|useFakeTimers|resetModules)\b|process\.(?:on|once|chdir|exit|exitCode|env\.[A-Z_]+\s*=[^=]|env\[[^\]]+\]\s*=[^=])|delete process\.env|\bspawn\(|\bfork\(|\bexecFile|\brunCli\b|\buseRunServers\b|\bcreateRunServerPool\b/;

/** Files that start CLI runs (their cost is child processes): run first, the matrices before them. */
function weight(text: string): number {
  if (/\buseRunServers\b/.test(text)) return 3;
  if (/\brunCli\b|\bspawn\(|\bfork\(|\bexecFile/.test(text)) return 2;
  return 1;
}

const files = testFiles();
const texts = new Map(files.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const isolated = files.filter((f) => NEEDS_ISOLATION.test(texts.get(f)!));
const shared = files.filter((f) => !isolated.includes(f));

/**
 * The longest files first, so none of them starts last and runs alone at the end: from the last
 * run's durations when vitest has them for every file (a developer's checkout), else (a fresh
 * clone, CI) the matrices, then the other files that start processes, then the rest, each group
 * in vitest's own order (larger files first). Isolated files before shared ones either way: a
 * shared worker is reused only while the next file is shared too.
 */
class LongestFirst extends BaseSequencer {
  override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(specs);
    if (specs.every((s) => this.ctx.cache.getTestSpecificationResult(s))) return sorted;
    const key = (s: TestSpecification) => (s.project.config.isolate ? 10 : 0) + weight(readFileSync(s.moduleId, 'utf8'));
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
    // Two files at a time: most files wait on child processes and loopback servers, so a second
    // one fills the gaps (vitest's default on 2 cores is one file at a time).
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
      { extends: true, test: { name: 'shared', include: shared, isolate: false, setupFiles: ['test/helpers/shared-worker-setup.ts'] } },
    ],
  },
});
