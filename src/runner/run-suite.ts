import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { BaseSequencer, startVitest, type TestSpecification } from 'vitest/node';
import { packageRoot } from '../paths.ts';
import { pollSettings } from '../adapters/options.ts';
import type { CollectReporter } from './collect-reporter.ts';
import type { RunSettings } from './settings.ts';
import { specFilesFor, specGlob } from './spec-files.ts';
import { keptPool } from './kept-pool.ts';

/**
 * The kit's own modules, loaded by Node in the suite's worker as the CLI loads them (Node strips the
 * types), not transformed and evaluated by vitest's module runner: that is what a published install
 * does already (dist/src is under node_modules, which vitest leaves to Node). The worker is new for
 * every run, so each run paid for the runner's copy of every module again: ~0.2 s of CPU of a
 * small run's ~1 s (measured, a run of one or two checks in a warm process). Only the spec files and
 * the setup file go through vitest. (Vite writes module ids with forward slashes on every system.)
 */
const OWN_MODULES = new RegExp(`^${escapeRegExp(join(packageRoot, 'src').replaceAll('\\', '/'))}/`);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const RECEIVER_SPECS = ['specs/receivers.spec.ts', 'dist/specs/receivers.spec.js'];

function setupFile(): string {
  const source = join(packageRoot, 'src', 'suite', 'setup.ts');
  return existsSync(source) ? source : join(packageRoot, 'dist', 'src', 'suite', 'setup.js');
}

/** Spec files in name order, always: vitest's default order follows cached timings, which would
 * change the request sequence between two runs with one seed. */
class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
    // What this pass runs (a shard's slice is chosen before sorting), for the stream.
    ran = sorted.map((f) => basename(f.moduleId).replace(/\.spec\.[cm]?[jt]s$/, ''));
    return sorted;
  }
}

/** How long from now a check may wait for the source database. */
const dbWait = (settings: RunSettings): number => Math.max(0, (settings.sourceDb?.waitUntil ?? 0) - Date.now());

/** The areas (spec files) of the last pass, as vitest handed them to the sequencer. */
let ran: string[] = [];

/**
 * Runs the spec files (the checks whose titles match pattern, all when undefined); results arrive
 * in the collector. shard: vitest's own sharding of the spec files ("2/3"), a deterministic slice
 * (by a hash of each file's path). Returns the areas (spec files) the pass ran.
 */
export async function runSuite(settings: RunSettings, pattern: RegExp | undefined, collector: CollectReporter, shard?: string): Promise<string[]> {
  ran = [];
  const vitest = await startVitest(
    [],
    {
      root: packageRoot,
      config: false,
      watch: false,
      // A shard keeps every file: vitest's slice of the files must be the same in every shard.
      include: settings.sharded ? [specGlob()] : specFilesFor(settings.selected),
      setupFiles: [setupFile()],
      exclude: RECEIVER_SPECS,
      reporters: [collector],
      server: { deps: { external: [OWN_MODULES] } },
      provide: { dssc: settings },
      // One worker, files in order: the request rate stays bounded and fixtures are shared.
      fileParallelism: false,
      sequence: { sequencer: ByName },
      isolate: false,
      // A worker thread, not a forked process: a fork is a second Node runtime (and vitest adds a
      // watchdog process for it), ~100 MB of the run's peak RSS; the thread shares this one.
      // (The test run server keeps one thread for all its runs: src/runner/kept-pool.ts.)
      pool: keptPool() ?? 'threads',
      maxWorkers: 1,
      // A webhook check may wait for three runs one after another (full sync), each up to the poll timeout.
      // The first check that needs the source database may wait for it (settings.sourceDb.waitUntil).
      testTimeout: Math.max(60_000, (settings.profile.schemaCache?.timeoutMs ?? 30_000) + 30_000, 3 * pollSettings(settings.profile).timeoutMs + 30_000, dbWait(settings) + 30_000),
      hookTimeout: Math.max(60_000, dbWait(settings) + 30_000),
      ...(pattern ? { testNamePattern: pattern } : {}),
      ...(shard ? { shard } : {}),
    },
    { logLevel: 'silent', cacheDir: join(tmpdir(), 'dss-conformance-vite') },
  );
  await vitest.close();
  // vitest sets the exit code from its own view; ours comes from the verdict.
  process.exitCode = undefined;
  return ran;
}
