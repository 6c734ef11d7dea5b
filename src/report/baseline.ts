import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { UsageError, readJsonFile } from '../cli-errors.ts';
import { fixturesDir } from '../paths.ts';
import type { CheckResult } from './results.ts';

// Known failures: a platform team gates on "nothing new broke" while a vendor fixes what is
// already known. An entry excuses a failure, never a pass (stale) and never past its date (expired),
// so a baseline cannot quietly outlive the problem it was written for.

// ajv-formats is CommonJS; under nodenext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const baselineSchemaPath = join(fixturesDir, 'baseline.schema.json');

export interface BaselineEntry {
  /** A requirement ID (every check of it) or a check's exact title (that check only). */
  id: string;
  reason: string;
  /** Last day (UTC, YYYY-MM-DD) the entry applies. */
  until?: string;
}

export interface Baseline {
  $schema?: string;
  comment?: string;
  entries: BaselineEntry[];
}

export interface AppliedBaseline {
  checks: CheckResult[];
  /** Run-level problems that fail the run (expired entries). */
  problems: string[];
  /** IDs of entries that matched no check (not a problem: --only may have left the check out). */
  unmatched: string[];
}

let compiled: ValidateFunction | undefined;

function schemaValidator(): ValidateFunction {
  if (!compiled) {
    // allErrors off: the user is told the first problem, and the first is the one Ajv found first.
    const ajv = new Ajv2020({ allErrors: false, strict: true });
    addFormats(ajv);
    compiled = ajv.compile(JSON.parse(readFileSync(baselineSchemaPath, 'utf8')) as object);
  }
  return compiled;
}

/** One Ajv error as "POINTER: problem", naming the offending property itself where Ajv names its parent. */
function describe(e: ErrorObject): string {
  const at = e.instancePath;
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `${at}/${String(params.missingProperty)}: is required`;
    case 'additionalProperties':
      return `${at}/${String(params.additionalProperty)}: is not allowed`;
    case 'format':
    case 'pattern':
      if (at.endsWith('/until')) return `${at}: must be a date YYYY-MM-DD`;
      if (params.pattern === '\\S') return `${at}: must not be blank`;
      break;
    case 'minLength':
      return `${at}: must not be empty`;
  }
  return `${at || '(root)'}: ${e.message ?? 'is invalid'}`;
}

/** The first schema problem of a would-be baseline, or undefined when it is one. */
export function baselineProblem(value: unknown): string | undefined {
  const validate = schemaValidator();
  if (validate(value)) return undefined;
  const first = validate.errors?.[0];
  return first ? describe(first) : 'is invalid';
}

/** Reads and validates a baseline file; any problem is one UsageError line. */
export function loadBaseline(path: string): Baseline {
  const raw: unknown = readJsonFile(path, `baseline ${path}`);
  const problem = baselineProblem(raw);
  if (problem) throw new UsageError(`baseline ${path}: ${problem}`);
  const baseline = raw as Baseline;
  // Two entries for one ID would make the reason and the expiry depend on their order.
  const seen = new Map<string, number>();
  for (const [i, entry] of baseline.entries.entries()) {
    const earlier = seen.get(entry.id);
    if (earlier !== undefined) throw new UsageError(`baseline ${path}: /entries/${i}/id: "${entry.id}" is already listed at /entries/${earlier}`);
    seen.set(entry.id, i);
  }
  return baseline;
}

/** The UTC calendar day of a date, as YYYY-MM-DD (comparable as a string with `until`). */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Marks the checks a baseline lists: a listed failure becomes expected-fail, a listed pass becomes
 * stale, an expired entry excuses nothing and is a problem. Pure: the input is not changed.
 */
/**
 * The entry that applies to a check on a day: its exact title wins over its requirement's ID (the
 * more specific one); an expired entry applies to nothing.
 */
export function baselineEntryFor(baseline: Baseline, check: Pick<CheckResult, 'id' | 'title'>, today: Date): BaselineEntry | undefined {
  const entry = baseline.entries.find((e) => e.id === check.title) ?? baseline.entries.find((e) => e.id === check.id);
  return entry && !isExpired(entry, utcDay(today)) ? entry : undefined;
}

const isExpired = (e: BaselineEntry, day: string) => e.until !== undefined && e.until < day;

export function applyBaseline(checks: CheckResult[], baseline: Baseline, today: Date): AppliedBaseline {
  const day = utcDay(today);
  const byId = new Map(baseline.entries.map((e) => [e.id, e]));
  // An entry naming the exact title is the more specific one, so it wins over the requirement's ID.
  const entryOf = (c: CheckResult): BaselineEntry | undefined => byId.get(c.title) ?? byId.get(c.id);
  const matched = checks.map(entryOf);
  const expired = (e: BaselineEntry) => isExpired(e, day);

  // An ID entry covers every check of its requirement; while one of them still fails the entry is
  // earning its keep, so its passing siblings stay passed instead of making the entry stale (the
  // baseline command writes entries per requirement, which would otherwise fail the run at once).
  const stillFailing = new Set(checks.flatMap((c, i) => (c.status === 'failed' && matched[i] ? [matched[i]] : [])));

  const out = checks.map((check, i): CheckResult => {
    const entry = matched[i];
    if (!entry || expired(entry)) return check;
    const baselineInfo = { reason: entry.reason, ...(entry.until !== undefined ? { until: entry.until } : {}) };
    if (check.status === 'failed') return { ...check, status: 'expected-fail', baseline: baselineInfo };
    if (check.status === 'passed' && !stillFailing.has(entry)) {
      return { ...check, status: 'stale', reason: `stale baseline entry "${entry.id}": the check passes now; remove the entry`, baseline: baselineInfo };
    }
    return check;
  });

  const meetsACheck = (e: BaselineEntry) => checks.some((c) => c.id === e.id || c.title === e.id);
  return {
    checks: out,
    // Only entries that meet a check of this run: one that --only left out says nothing about it.
    problems: baseline.entries.filter((e) => expired(e) && meetsACheck(e)).map((e) => `baseline entry "${e.id}" expired on ${e.until} (${e.reason})`),
    unmatched: baseline.entries.filter((e) => !meetsACheck(e)).map((e) => e.id),
  };
}
