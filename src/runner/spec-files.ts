import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.ts';
import { loadRequirements } from '../report/results.ts';

// What the run's flags need to know of the spec files, apart from running them: a refused flag
// is answered without loading vitest (~0.35 s of CPU), which run-suite.ts loads when the suite runs.

/** The spec files: TypeScript in a checkout, compiled JavaScript in the published package. */
export function specGlob(): string {
  return existsSync(join(packageRoot, 'specs', 'auth.spec.ts')) ? 'specs/*.spec.ts' : 'dist/specs/*.spec.js';
}

/**
 * The spec files that hold the checks of the selected requirements (each requirement's checks are
 * in the spec file specs/requirements.json names for it: test/suite/spec-files.test.ts holds every
 * spec file to that), every file when all are selected. A narrow run (a replay line, a fault's
 * run) then loads only the files it runs, not every spec file and what they import (~0.1 s of
 * CPU a run, measured on one-check runs).
 */
export function specFilesFor(selected: readonly string[] | undefined): string[] {
  if (selected === undefined) return [specGlob()];
  const compiled = specGlob().startsWith('dist/');
  const files = [...new Set(loadRequirements('service').filter((r) => selected.includes(r.id)).map((r) => r.spec))].sort();
  if (files.length === 0) return [specGlob()];
  return files.map((f) => (compiled ? `dist/specs/${f.replace(/\.ts$/, '.js')}` : `specs/${f}`));
}

/** How many spec files there are: a run can be cut into at most that many shards. */
export function specFileCount(): number {
  const [dir, suffix] = existsSync(join(packageRoot, 'specs', 'auth.spec.ts')) ? [join(packageRoot, 'specs'), '.spec.ts'] : [join(packageRoot, 'dist', 'specs'), '.spec.js'];
  return readdirSync(dir).filter((f) => f.endsWith(suffix) && !isReceiverSpec(f)).length;
}

/** The receiver checks (specs/receivers.spec.ts) judge a webhook receiver: 'receiver' runs them, never 'run'. */
export const isReceiverSpec = (file: string) => /(^|\/)receivers\.spec\.[jt]s$/.test(file);

export function onlyPattern(ids: string[]): RegExp {
  return new RegExp(`^(${ids.map((id) => id.replace(/[^A-Z0-9-]/g, '')).join('|')})\\b`);
}
