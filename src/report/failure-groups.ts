import type { CheckResult, RunResult } from './results.ts';

// One cause, one entry: fifty webhook checks that all stopped at an unreachable source database
// are one line with the count, not fifty. Failures come before errors, since a failure is a
// finding about the target and an error only says a rule could not be judged.

export interface FailureGroup {
  /** WARN: a SHOULD failure that does not fail the run (no --strict). */
  kind: 'FAIL' | 'WARN' | 'ERROR';
  /** The first line of the message (a failure) or of the reason (an error): what the group shares. */
  why: string;
  checks: CheckResult[];
}

const firstLine = (text: string | undefined) => (text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';

export const isFailure = (c: CheckResult) => c.status === 'failed' || c.status === 'stale';

/** Failed and unjudgeable checks folded by identical reason, failures first, then errors, then warnings, each kind in the order first seen. */
export function failureGroups(run: RunResult): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const c of run.checks) {
    const kind = isFailure(c) ? (c.warning ? 'WARN' : 'FAIL') : c.status === 'error' ? 'ERROR' : undefined;
    if (!kind) continue;
    const why = c.status === 'failed' ? firstLine(c.message) : c.reason ?? (kind === 'ERROR' ? 'no judgeable answer' : 'stale baseline entry');
    const key = `${kind}\u0000${why}`;
    const group = groups.get(key) ?? { kind, why, checks: [] };
    group.checks.push(c);
    groups.set(key, group);
  }
  const all = [...groups.values()];
  return [...all.filter((g) => g.kind === 'FAIL'), ...all.filter((g) => g.kind === 'ERROR'), ...all.filter((g) => g.kind === 'WARN')];
}

/** The line that reruns every check of the group: `--only` takes a list. */
export function groupReplay(run: RunResult, group: FailureGroup): string {
  const ids = [...new Set(group.checks.map((c) => c.id))];
  const versions = [...new Set(group.checks.map((c) => c.version))];
  const version = versions.length === 1 && versions[0] ? ` --api-version ${versions[0]}` : '';
  return `${run.replay} --only ${ids.join(',')}${version}`;
}

/** `AUTH-001` or `WH-010, WH-011 and 3 more`: the checks of a group, by requirement. */
export function groupIds(group: FailureGroup, listed = 6): string {
  const ids = [...new Set(group.checks.map((c) => c.id))];
  return ids.length <= listed ? ids.join(', ') : `${ids.slice(0, listed).join(', ')} and ${ids.length - listed} more`;
}
