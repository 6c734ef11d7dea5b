import { summarize, type RunResult, replayCommand } from './results.ts';

const MARK = { passed: 'pass', failed: 'FAIL', skipped: 'skip' } as const;

/** The human summary printed after a run: one line per check, then the failures with their replay. */
export function consoleSummary(run: RunResult): string {
  const lines: string[] = [];
  for (const c of run.checks) {
    lines.push(`  ${MARK[c.status]}  ${c.title}${c.status === 'skipped' && c.reason ? `  (${c.reason})` : ''}`);
  }
  for (const c of run.checks.filter((x) => x.status === 'failed')) {
    lines.push('', `FAIL ${c.title} [${c.level}] ${c.section}`, ...(c.message ?? '').split('\n').map((l) => `  ${l}`), `  replay: ${replayCommand(run, c.id)}`);
  }
  for (const e of run.errors) lines.push('', `ERROR ${e}`);
  if (run.deliveries) {
    const flawed = run.deliveries.filter((d) => d.violations.length > 0 || d.scenario === null);
    lines.push('', `receiver: ${run.deliveries.length} deliveries, ${flawed.length} malformed or on an unknown path`);
    for (const d of flawed.slice(0, 10)) lines.push(`  #${d.seq} ${d.method || '(not HTTP)'} ${d.path} -> ${d.status}: ${d.violations.join(', ') || 'unknown path'}`);
  }
  const s = summarize(run);
  lines.push('', `checks: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped (${(run.durationMs / 1000).toFixed(1)} s, seed ${run.seed})`, '');
  return lines.join('\n');
}
