import pc from 'picocolors';
import { baselineEntryFor, type Baseline, type BaselineEntry } from './baseline.ts';
import { notKeptText, summarize, type CheckResult, type RunResult, replayCommand } from './results.ts';
import { consoleSafe } from './safe-text.ts';
import { verdictLine } from './verdict.ts';

const MARK: Record<CheckResult['status'], string> = { passed: 'pass', failed: 'FAIL', skipped: 'skip', error: 'ERR ', 'expected-fail': 'xfail', stale: 'STALE' };

// Text that came from the target (messages, reasons, delivery paths) is printed through
// consoleSafe: no escape sequences, and no line a CI runner would take as a command. Colour is
// added after that, by us, and only where colourEnabled says so: never cursor movement.

export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colour on a terminal only: NO_COLOR (any non-empty value) turns it off, FORCE_COLOR (other than
 * 0 or false) on, otherwise a TTY that is not TERM=dumb. Unlike picocolors' own guess, CI=true
 * alone does not colour a log file.
 */
export function colourEnabled(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return !/^(0|false)$/i.test(env.FORCE_COLOR);
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export const plain: Colors = pc.createColors(false);

function markColour(c: Colors, status: CheckResult['status']): (s: string) => string {
  if (status === 'passed') return c.green;
  if (status === 'failed' || status === 'stale') return (s) => c.bold(c.red(s));
  if (status === 'error') return c.magenta;
  if (status === 'expected-fail') return c.yellow;
  return c.dim;
}

/** The line printed as each check finishes. */
export function checkLine(c: CheckResult, colors: Colors = plain): string {
  const why = c.status === 'skipped' || c.status === 'error' || c.status === 'stale' ? c.reason : c.status === 'expected-fail' ? `baseline: ${c.baseline?.reason ?? ''}` : c.status === 'passed' ? c.note : undefined;
  const title = consoleSafe(c.title);
  const note = why ? consoleSafe(`  (${why.split('\n')[0]})`) : '';
  const mark = c.warning ? colors.yellow('WARN') : markColour(colors, c.status)(MARK[c.status]);
  return `  ${mark}  ${title}${colors.dim(note)}\n`;
}

/**
 * The live lines with the baseline applied as the fold will apply it, so the console never says
 * FAIL for an accepted failure nor pass for a check whose entry then fails the run as stale. A
 * listed failure is printed expected-fail at once. A listed pass is stale only if no other check
 * of its entry fails, which may come later: its line is held until a sibling fails (then it is a
 * pass) or the run ends (then the fold says which it is).
 */
export class LiveConsole {
  readonly #held = new Map<BaselineEntry, CheckResult[]>();
  readonly #failing = new Set<BaselineEntry>();
  readonly baseline: Baseline | undefined;
  readonly colors: Colors;
  readonly today: () => Date;

  constructor(baseline: Baseline | undefined, colors: Colors = plain, today: () => Date = () => new Date()) {
    this.baseline = baseline;
    this.colors = colors;
    this.today = today;
  }

  /** What to print as a check finishes: its line, lines it releases, or nothing while it is held. */
  line(check: CheckResult): string {
    const entry = this.baseline && baselineEntryFor(this.baseline, check, this.today());
    if (!entry) return checkLine(check, this.colors);
    if (check.status === 'failed') {
      this.#failing.add(entry);
      const released = this.#held.get(entry) ?? [];
      this.#held.delete(entry);
      const expected: CheckResult = { ...check, status: 'expected-fail', baseline: { reason: entry.reason, ...(entry.until !== undefined ? { until: entry.until } : {}) } };
      return [...released, expected].map((c) => checkLine(c, this.colors)).join('');
    }
    if (check.status === 'passed' && !this.#failing.has(entry)) {
      this.#held.set(entry, [...(this.#held.get(entry) ?? []), check]);
      return '';
    }
    return checkLine(check, this.colors);
  }

  /** At the run's end: the held lines, each as the folded run has it (stale, or pass). */
  end(folded: readonly CheckResult[]): string {
    const held = [...this.#held.values()].flat();
    this.#held.clear();
    return held.map((c) => checkLine(folded.find((f) => f.title === c.title && f.version === c.version) ?? c, this.colors)).join('');
  }
}

/** A wait past the heartbeat interval: what the run is waiting for and for how long. */
export function heartbeatLine(waitingFor: string, elapsedMs: number, boundMs: number | undefined, colors: Colors = plain): string {
  const of = boundMs !== undefined ? ` of ${Math.round(boundMs / 1000)} s` : '';
  return colors.dim(consoleSafe(`  ...   waiting for ${waitingFor}, ${Math.round(elapsedMs / 1000)} s${of}`)) + '\n';
}

/** Printed after the run: failures with their replay, the receiver's log, the counts and the verdict last. */
export function consoleSummary(run: RunResult, colors: Colors = plain): string {
  const lines: string[] = [];
  for (const c of run.checks.filter((x) => x.status === 'failed' || x.status === 'error' || x.status === 'stale')) {
    const text = c.status === 'failed' ? c.message ?? '' : c.reason ?? '';
    lines.push('', `${c.status === 'error' ? 'ERROR' : c.warning ? 'WARN' : 'FAIL'} ${c.title} [${c.level}] ${c.section}`, ...text.split('\n').map((l) => `  ${l}`), `  replay: ${replayCommand(run, c)}`);
  }
  for (const e of run.errors) lines.push('', `ERROR ${e}`);
  for (const p of run.problems ?? []) lines.push('', `FAIL ${p}`);
  if (run.interrupted) lines.push('', `INTERRUPTED ${run.interrupted}: unfinished requirements are reported as errors`);
  if (run.deliveries) {
    const flawed = run.deliveries.filter((d) => d.violations.length > 0 || d.scenario === null);
    lines.push('', `receiver: ${run.deliveries.length} deliveries, ${flawed.length} malformed or on an unknown path${notKeptText(run)}`);
    for (const d of flawed.slice(0, 10)) lines.push(`  #${d.seq} ${d.method || '(not HTTP)'} ${d.path} -> ${d.status}: ${d.violations.join(', ') || 'unknown path'}`);
  }
  const s = summarize(run);
  lines.push('', `checks: ${s.passed} passed, ${s.failed} failed, ${s.error} error, ${s.skipped} skipped${s.expectedFail ? `, ${s.expectedFail} expected-fail` : ''} (${(run.durationMs / 1000).toFixed(1)} s, seed ${run.seed})`);
  if (run.verdict?.warnings?.length) lines.push(`warnings (SHOULD, not failing the run without --strict): ${run.verdict.warnings.map((w) => w.split(':')[0]).join(', ')}`);
  if (run.verdict?.verdict === 'INCOMPLETE') lines.push(`not judged: ${run.verdict.unjudged.slice(0, 12).join(', ')}${run.verdict.unjudged.length > 12 ? `, and ${run.verdict.unjudged.length - 12} more` : ''}`);
  const body = consoleSafe(lines.join('\n')).replace(/^(FAIL|ERROR|INTERRUPTED) /gm, (m, word: string) => (word === 'ERROR' ? colors.magenta(word) : colors.bold(colors.red(word))) + ' ');
  if (!run.verdict) return body + '\n';
  const v = run.verdict.verdict;
  const paint = v === 'CONFORMANT' ? colors.green : v === 'NOT CONFORMANT' ? colors.red : colors.yellow;
  return body + '\n' + colors.bold(paint(consoleSafe(verdictLine(run.verdict)))) + '\n';
}
