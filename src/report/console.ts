import { summarize, type CheckResult, type RunResult, replayCommand } from './results.ts';
import { consoleSafe } from './safe-text.ts';
import { verdictLine } from './verdict.ts';

const MARK: Record<CheckResult['status'], string> = { passed: 'pass', failed: 'FAIL', skipped: 'skip', error: 'ERR ', 'expected-fail': 'xfail', stale: 'STALE' };

// Text that came from the target (messages, reasons, delivery paths) is printed through
// consoleSafe: no escape sequences, and no line a CI runner would take as a command.

/** The line printed as each check finishes. */
export function checkLine(c: CheckResult): string {
  const why = c.status === 'skipped' || c.status === 'error' || c.status === 'stale' ? c.reason : c.status === 'expected-fail' ? `baseline: ${c.baseline?.reason ?? ''}` : undefined;
  return consoleSafe(`  ${MARK[c.status]}  ${c.title}${why ? `  (${why.split('\n')[0]})` : ''}`) + '\n';
}

/** Printed after the run: failures with their replay, the receiver's log, the counts and the verdict last. */
export function consoleSummary(run: RunResult): string {
  const lines: string[] = [];
  for (const c of run.checks.filter((x) => x.status === 'failed' || x.status === 'error' || x.status === 'stale')) {
    const text = c.status === 'failed' ? c.message ?? '' : c.reason ?? '';
    lines.push('', `${c.status === 'error' ? 'ERROR' : 'FAIL'} ${c.title} [${c.level}] ${c.section}`, ...text.split('\n').map((l) => `  ${l}`), `  replay: ${replayCommand(run, c)}`);
  }
  for (const e of run.errors) lines.push('', `ERROR ${e}`);
  for (const p of run.problems ?? []) lines.push('', `FAIL ${p}`);
  if (run.interrupted) lines.push('', `INTERRUPTED ${run.interrupted}: unfinished requirements are reported as errors`);
  if (run.deliveries) {
    const flawed = run.deliveries.filter((d) => d.violations.length > 0 || d.scenario === null);
    lines.push('', `receiver: ${run.deliveries.length} deliveries, ${flawed.length} malformed or on an unknown path`);
    for (const d of flawed.slice(0, 10)) lines.push(`  #${d.seq} ${d.method || '(not HTTP)'} ${d.path} -> ${d.status}: ${d.violations.join(', ') || 'unknown path'}`);
  }
  const s = summarize(run);
  lines.push('', `checks: ${s.passed} passed, ${s.failed} failed, ${s.error} error, ${s.skipped} skipped${s.expectedFail ? `, ${s.expectedFail} expected-fail` : ''} (${(run.durationMs / 1000).toFixed(1)} s, seed ${run.seed})`);
  if (run.verdict) {
    if (run.verdict.verdict === 'INCOMPLETE') lines.push(`not judged: ${run.verdict.unjudged.slice(0, 12).join(', ')}${run.verdict.unjudged.length > 12 ? `, and ${run.verdict.unjudged.length - 12} more` : ''}`);
    lines.push(verdictLine(run.verdict));
  }
  return consoleSafe(lines.join('\n')) + '\n';
}
