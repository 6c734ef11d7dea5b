import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { BaseSequencer, startVitest, type TestSpecification } from 'vitest/node';
import { packageRoot } from '../paths.ts';
import { pollSettings } from '../adapters/options.ts';
import type { CollectReporter } from './collect-reporter.ts';
import type { RunSettings } from './settings.ts';

/** The spec files: TypeScript in a checkout, compiled JavaScript in the published package. */
function specGlob(): string {
  return existsSync(join(packageRoot, 'specs', 'auth.spec.ts')) ? 'specs/*.spec.ts' : 'dist/specs/*.spec.js';
}

function setupFile(): string {
  const source = join(packageRoot, 'src', 'suite', 'setup.ts');
  return existsSync(source) ? source : join(packageRoot, 'dist', 'src', 'suite', 'setup.js');
}

/** Spec files in name order, always: vitest's default order follows cached timings, which would
 * change the request sequence between two runs with one seed. */
class ByName extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
  }
}

export function onlyPattern(ids: string[]): RegExp {
  return new RegExp(`^(${ids.map((id) => id.replace(/[^A-Z0-9-]/g, '')).join('|')})\\b`);
}

/** Runs the spec files (the checks whose titles match pattern, all when undefined); results arrive in the collector. */
export async function runSuite(settings: RunSettings, pattern: RegExp | undefined, collector: CollectReporter): Promise<void> {
  const vitest = await startVitest(
    [],
    {
      root: packageRoot,
      config: false,
      watch: false,
      include: [specGlob()],
      setupFiles: [setupFile()],
      exclude: [],
      reporters: [collector],
      provide: { dssc: settings },
      // One worker, files in order: the request rate stays bounded and fixtures are shared.
      fileParallelism: false,
      sequence: { sequencer: ByName },
      isolate: false,
      maxWorkers: 1,
      // A webhook check may wait for three runs one after another (full sync), each up to the poll timeout.
      testTimeout: Math.max(60_000, (settings.profile.schemaCache?.timeoutMs ?? 30_000) + 30_000, 3 * pollSettings(settings.profile).timeoutMs + 30_000),
      hookTimeout: 60_000,
      ...(pattern ? { testNamePattern: pattern } : {}),
    },
    { logLevel: 'silent', cacheDir: join(tmpdir(), 'dss-conformance-vite') },
  );
  await vitest.close();
  // vitest sets the exit code from its own view; ours comes from the verdict.
  process.exitCode = undefined;
}
