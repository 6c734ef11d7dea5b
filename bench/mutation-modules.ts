/**
 * What `npm run mutation` mutates, which parts of the suite each module's mutants are run
 * against, and the triage of the mutants the suite lets through (bench/mutation-triage.json).
 * Shared by bench/mutation.ts and test/suite/mutation-triage.test.ts, so this file must not load
 * Stryker.
 */
import { readFileSync } from 'node:fs';

/** The suite's areas: the spec file names (specs/<area>.spec.ts). */
export const AREAS = ['connections', 'bulk-syncs', 'versions', 'error-handling', 'error-handling-bulk', 'auth', 'errors', 'webhooks'] as const;
export type Area = (typeof AREAS)[number];

/**
 * The reference's spec-facing modules (paths under src/reference/, without .ts), each with the
 * areas whose checks reach its code. A mutant runs only those areas: the rest of the suite cannot
 * see it, and running it would only cost time. The map is a speed-up, so it errs on the wide side
 * (a module's state is often observed by another area: the connections route's schema-cache
 * timing by bulk-syncs, its webhook secret by webhooks); `--all-areas` checks a survivor against
 * the whole suite before it is triaged. Left out on purpose: faults/ (the faults are
 * mutants we wrote), the CLI and server plumbing (serve-command, start, build, config, index,
 * cli-flags, faults*), the test-control routes (the kit's own, not the spec's), and the routes
 * the built-in adapter drives but the spec does not show (models, model-syncs, executions):
 * they can be named explicitly (`npm run mutation -- routes/models`), with every area.
 */
export const MODULES: Record<string, readonly Area[]> = {
  auth: ['auth'],
  versions: ['versions', 'bulk-syncs'],
  'http-plumbing': ['auth', 'versions', 'errors', 'bulk-syncs'],
  validation: ['connections', 'bulk-syncs', 'error-handling', 'error-handling-bulk', 'errors'],
  errors: ['errors', 'auth', 'versions', 'connections', 'bulk-syncs'],
  // Discovery runs only for real (postgresql) sources after the creation answer is sent, so the
  // connections area cannot see it (its creations answer 'pending' before any discovery ends):
  // only waits for a source's schemas (bulk-syncs, and errors' bulk creations) can.
  discovery: ['bulk-syncs', 'errors'],
  'connection-kinds': ['connections', 'bulk-syncs', 'webhooks'],
  'routes/connections': ['connections', 'errors', 'bulk-syncs', 'webhooks'],
  'routes/bulk-syncs': ['bulk-syncs', 'versions', 'errors', 'error-handling-bulk'],
  'routes/error-handling': ['error-handling', 'error-handling-bulk', 'errors'],
  delivery: ['webhooks'],
  // Runs start only through POST /api/syncs/{id}/executions, which only the webhooks area calls
  // (error-handling sets a sync's settings and never runs it): error-handling doubled each
  // mutant's time (dry run 63 s against 29 s) for nothing it could see.
  runs: ['webhooks'],
  store: [...AREAS],
};

/** Reference routes the spec does not show (the built-in adapter drives them); run only when named. */
export const OTHER_MODULES: Record<string, readonly Area[]> = {
  'routes/models': [...AREAS],
  'routes/model-syncs': [...AREAS],
  'routes/executions': [...AREAS],
};

export function areasOf(name: string): readonly Area[] | undefined {
  return MODULES[name] ?? OTHER_MODULES[name];
}

/** A module name as the command line and the triage file give it: `auth`, `routes/connections`, or its path. */
export function moduleName(given: string): string {
  return given.replace(/^(\.\/)?src\/reference\//, '').replace(/\.ts$/, '');
}

export function modulePath(name: string): string {
  return `src/reference/${name}.ts`;
}

/**
 * Why a surviving mutant is not counted against the suite, or that it should be killed:
 * - equivalent: no program could tell the mutant from the original (the same behaviour);
 * - spec-open: the mutant changes behaviour the spec leaves open (it is conforming either way);
 * - not-observable: the change is real but cannot be seen through the API (logs, timing, memory);
 * - to-kill: a real, observable deviation the suite misses; `kill` says which check, value or
 *   observation would catch it. These count against the score.
 */
export const REASONS = ['equivalent', 'spec-open', 'not-observable', 'to-kill'] as const;
export type Reason = (typeof REASONS)[number];
/** Reasons that take a survivor out of the score's denominator. */
export const EXCUSED: ReadonlySet<Reason> = new Set(['equivalent', 'spec-open', 'not-observable']);

/**
 * One surviving mutant. It is found again by module, place, mutator, original and replacement code
 * (Stryker's ids change between runs; one place can hold several mutants of different extent).
 */
export interface TriageEntry {
  module: string;
  /** 1-based line and column where the mutated code starts. */
  line: number;
  column: number;
  mutator: string;
  /** The code the mutant puts in place of the original. */
  replacement: string;
  /** The code the mutant replaces. */
  original: string;
  reason: Reason;
  /** Why the reason holds (equivalent, spec-open, not-observable), or what the mutant breaks (to-kill). */
  why: string;
  /** to-kill only: the check, value or observation that would kill it. */
  kill?: string;
}

export const TRIAGE_FILE = new URL('./mutation-triage.json', import.meta.url);

export function readTriage(file: URL | string = TRIAGE_FILE): TriageEntry[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { mutants?: unknown };
  const problems = triageProblems(parsed);
  if (problems.length > 0) throw new Error(`${String(file)} is malformed:\n${problems.join('\n')}`);
  return parsed.mutants as TriageEntry[];
}

/** Everything wrong with a parsed triage file; empty when it is well-formed. */
export function triageProblems(parsed: unknown): string[] {
  const mutants = (parsed as { mutants?: unknown } | null)?.mutants;
  if (!Array.isArray(mutants)) return ['the file must be {"mutants": [...]}'];
  const problems: string[] = [];
  const seen = new Set<string>();
  mutants.forEach((entry: Partial<TriageEntry>, i) => {
    const at = `mutants[${i}]`;
    if (typeof entry !== 'object' || entry === null) return problems.push(`${at}: not an object`);
    if (typeof entry.module !== 'string' || areasOf(moduleName(entry.module)) === undefined) {
      problems.push(`${at}: module ${JSON.stringify(entry.module)} is not a module of bench/mutation-modules.ts`);
    }
    for (const key of ['line', 'column'] as const) {
      if (!Number.isInteger(entry[key]) || (entry[key] as number) < 1) problems.push(`${at}: ${key} must be a positive integer`);
    }
    for (const key of ['mutator', 'original', 'replacement', 'why'] as const) {
      if (typeof entry[key] !== 'string' || ((key === 'mutator' || key === 'why') && entry[key] === '')) problems.push(`${at}: ${key} must be a string`);
    }
    if (!REASONS.includes(entry.reason as Reason)) problems.push(`${at}: reason must be one of ${REASONS.join(', ')}`);
    if (entry.reason === 'to-kill' && (typeof entry.kill !== 'string' || entry.kill === '')) {
      problems.push(`${at}: a to-kill entry says in "kill" which check, value or observation would kill it`);
    }
    const key = triageKey(entry as TriageEntry);
    if (seen.has(key)) problems.push(`${at}: the same mutant is listed twice`);
    seen.add(key);
  });
  return problems;
}

export function triageKey(m: Pick<TriageEntry, 'module' | 'line' | 'column' | 'mutator' | 'original' | 'replacement'>): string {
  return [moduleName(m.module), m.line, m.column, m.mutator, m.original, m.replacement].join('\u0000');
}
