import type { CheckResult, CheckStatus, Level, Requirement, SkipClass } from './results.ts';

// A green run must be earned: each requirement's result is rolled up from its checks, and the run
// verdict is CONFORMANT only when every requirement that must be judged was judged and passed.

/** warn: a SHOULD requirement failed in a run without --strict (reported; the run is not failed for it). */
export type RequirementStatus = 'pass' | 'fail' | 'warn' | 'error' | 'skip' | 'expected-fail' | 'not-run';
export type Verdict = 'CONFORMANT' | 'NOT CONFORMANT' | 'INCOMPLETE';

export interface RequirementResult {
  id: string;
  level: Level;
  status: RequirementStatus;
  /** For skip: the class of the first skipped check; not-selected when --only left it out. */
  skipClass?: SkipClass;
  /** Why it is not a pass (the first non-passing check's reason or message line). */
  reason?: string;
  checks: number;
}

export interface LevelCounts {
  pass: number;
  fail: number;
  warn: number;
  error: number;
  skip: number;
  'expected-fail': number;
  'not-run': number;
}

export interface RunVerdict {
  verdict: Verdict;
  /** Per level: how many requirements ended in each status. */
  levels: Record<Level, LevelCounts>;
  /** Required requirements that were not judged (why the run is INCOMPLETE). */
  unjudged: string[];
  /** Requirements that failed, plus run-level problems (run errors, expired baseline entries). */
  failures: string[];
  /** SHOULD requirements that failed in a run without --strict: said, not failing the run. */
  warnings: string[];
  requirements: RequirementResult[];
}

/** Reads the class of a skip from its reason, as the checks and the runner word them. */
export function classifySkip(reason: string | undefined): SkipClass {
  const text = reason ?? '';
  if (/^unsupported:/i.test(text)) return 'unsupported';
  if (/^not selected/i.test(text)) return 'not-selected';
  if (/not observ/i.test(text)) return 'not-observable';
  if (/\bprofile\b/i.test(text)) return 'profile';
  return 'precondition';
}

const KNOWN_STATUSES: ReadonlySet<string> = new Set<CheckStatus>(['passed', 'failed', 'skipped', 'error', 'expected-fail', 'stale']);

const firstLine = (text: string | undefined) => (text ?? '').split('\n')[0] ?? '';

/**
 * How the levels count. The service's levels always decide. SHOULD (the receiver catalogue): a
 * failure is a warning and a skip leaves the run judged, unless strict, where SHOULD counts as MUST.
 */
export interface VerdictPolicy {
  strict?: boolean | undefined;
}

const advisory = (level: Level, policy: VerdictPolicy) => level === 'SHOULD' && !policy.strict;

/** One requirement from its checks: a failure anywhere wins, then an unjudgeable answer, then a skip. */
export function rollUp(requirement: Requirement, checks: CheckResult[], policy: VerdictPolicy = {}): RequirementResult {
  const base = { id: requirement.id, level: requirement.level, checks: checks.length };
  if (checks.length === 0) return { ...base, status: 'not-run', reason: 'no check of it ran' };
  const first = (...statuses: CheckStatus[]) => checks.find((c) => statuses.includes(c.status));
  const failed = first('failed', 'stale');
  if (failed) return { ...base, status: advisory(requirement.level, policy) ? 'warn' : 'fail', reason: failed.status === 'stale' ? failed.reason ?? 'stale baseline entry' : firstLine(failed.message) };
  const errored = first('error');
  if (errored) return { ...base, status: 'error', reason: errored.reason ?? 'no judgeable answer' };
  // A status this fold does not know (a stream edited, or one whose status word a secret equal to
  // it redacted) is never a pass.
  const unknown = checks.find((c) => !KNOWN_STATUSES.has(c.status));
  if (unknown) return { ...base, status: 'error', reason: `a check ended with an unknown status (${String(unknown.status)})` };
  const skipped = first('skipped');
  if (skipped) return { ...base, status: 'skip', skipClass: skipped.skipClass ?? classifySkip(skipped.reason), reason: skipped.reason ?? 'skipped' };
  const expected = first('expected-fail');
  if (expected) return { ...base, status: 'expected-fail', reason: expected.baseline?.reason ?? 'listed in the baseline' };
  return { ...base, status: 'pass' };
}

/**
 * A requirement counts as judged when it passed, is a known failure, or (PROFILE only) is declared
 * unsupported; an advisory SHOULD one whatever happened to it.
 */
export function judged(r: Pick<RequirementResult, 'status' | 'level' | 'skipClass'>, policy: VerdictPolicy = {}): boolean {
  if (r.status === 'pass' || r.status === 'expected-fail' || r.status === 'fail' || r.status === 'warn') return true;
  if (advisory(r.level, policy)) return true;
  return r.level === 'PROFILE' && r.status === 'skip' && r.skipClass === 'unsupported';
}

/** selected: the requirement IDs --only and --exclude chose (all when undefined); the others are skipped as not selected. */
export function runVerdict(requirements: Requirement[], checks: CheckResult[], runProblems: string[] = [], selected?: ReadonlySet<string>, policy: VerdictPolicy = {}): RunVerdict {
  const byId = new Map<string, CheckResult[]>();
  for (const c of checks) byId.set(c.id, [...(byId.get(c.id) ?? []), c]);
  const results = requirements.map((r): RequirementResult =>
    selected && !selected.has(r.id)
      ? { id: r.id, level: r.level, status: 'skip', skipClass: 'not-selected', reason: 'not selected (--only, --exclude)', checks: 0 }
      : rollUp(r, byId.get(r.id) ?? [], policy));
  const empty = (): LevelCounts => ({ pass: 0, fail: 0, warn: 0, error: 0, skip: 0, 'expected-fail': 0, 'not-run': 0 });
  const levels: Record<Level, LevelCounts> = { MUST: empty(), INFERRED: empty(), PROFILE: empty(), SHOULD: empty() };
  for (const r of results) levels[r.level][r.status] += 1;
  // Checks whose title names no catalogued requirement still count: a failure there is a failure.
  const stray = checks.filter((c) => !requirements.some((r) => r.id === c.id) && (c.status === 'failed' || c.status === 'stale'));
  const failures = [
    ...results.filter((r) => r.status === 'fail').map((r) => `${r.id}: ${r.reason ?? 'failed'}`),
    ...stray.map((c) => `${c.title}: ${firstLine(c.message ?? c.reason)}`),
    ...runProblems,
  ];
  const warnings = results.filter((r) => r.status === 'warn').map((r) => `${r.id}: ${r.reason ?? 'failed'}`);
  const unjudged = results.filter((r) => !judged(r, policy)).map((r) => `${r.id} (${r.status === 'skip' ? `skipped: ${r.skipClass}` : r.status})`);
  const verdict: Verdict = failures.length > 0 ? 'NOT CONFORMANT' : unjudged.length > 0 ? 'INCOMPLETE' : 'CONFORMANT';
  return { verdict, levels, unjudged, failures, warnings, requirements: results };
}

/** The levels a run's outputs show: the service's three, or (a receiver run) the levels its catalogue has. */
export function shownLevels(v: Pick<RunVerdict, 'levels'>): Level[] {
  const total = (l: Level) => Object.values(v.levels[l] ?? {}).reduce((n, k) => n + k, 0);
  return v.levels.SHOULD && total('SHOULD') > 0 ? (['MUST', 'SHOULD', 'INFERRED', 'PROFILE'] as const).filter((l) => total(l) > 0) : ['MUST', 'INFERRED', 'PROFILE'];
}

/** The verdict line every output carries: the verdict, then per level what happened to its requirements. */
export function verdictLine(v: RunVerdict): string {
  const part = (level: Level) => {
    const c = v.levels[level];
    const bits = [`${c.pass} pass`, c.fail && `${c.fail} fail`, c.warn && `${c.warn} warn`, c.error && `${c.error} error`, c.skip && `${c.skip} skip`, c['expected-fail'] && `${c['expected-fail']} expected-fail`, c['not-run'] && `${c['not-run']} not run`].filter(Boolean);
    return `${level} ${bits.join(', ')}`;
  };
  return `verdict: ${v.verdict} (requirements: ${shownLevels(v).map(part).join('; ')})`;
}
