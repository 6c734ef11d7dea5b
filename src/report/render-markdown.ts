import { replayCommand, summarize, type CheckResult, type RunResult } from './results.ts';
import { escapeControls } from './safe-text.ts';
import { shownLevels, verdictLine } from './verdict.ts';

// CI-native output: summary.md (what GitHub shows on the run's page when it is appended to
// $GITHUB_STEP_SUMMARY, and what a GitLab job can attach) and ::error workflow commands, which
// GitHub turns into annotations on the run. Target text in either must not become markup or a
// command of its own.

/** GitHub shows at most 10 error annotations per step; more would only be dropped. */
export const MAX_ANNOTATIONS = 10;
const MAX_FAILURES_LISTED = 50;

const notJudged = (c: CheckResult) => c.status === 'failed' || c.status === 'stale' || c.status === 'error';

/** Text in a table cell or inline: no markup, no HTML, one line. */
function cell(text: string): string {
  return escapeControls(text)
    .replace(/\r?\n/g, ' ')
    // Whatever could open markup, a link, HTML or a table cell; text never starts a line here.
    .replace(/[\\`*_{}[\]<>|~&]/g, (c) => `\\${c}`)
    .slice(0, 300);
}

/** A fenced block that the text inside cannot close: the fence is longer than any run of backticks in it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${escapeControls(text)}\n${fence}`;
}

export function summaryMarkdown(run: RunResult): string {
  const v = run.verdict;
  const icon = v?.verdict === 'CONFORMANT' ? '✅' : v?.verdict === 'NOT CONFORMANT' ? '❌' : '⚠️';
  const out: string[] = [`## ${icon} dss-conformance: ${v?.verdict ?? 'no verdict'}`, ''];
  if (run.aborted) out.push(`Run aborted (exit ${run.aborted.exitCode}): ${cell(run.aborted.message)}`, '');
  out.push(`Target ${cell(run.target || '(none)')} · profile ${cell(run.profile || '(none)')} · seed ${run.seed} · run id ${cell(run.runId || '-')} · ${(run.durationMs / 1000).toFixed(1)} s`, '');
  if (v) {
    const levels = shownLevels(v);
    const warn = levels.includes('SHOULD');
    out.push(`| level | pass | fail |${warn ? ' warn |' : ''} error | skip | expected-fail | not run |`, `|---|---:|---:|${warn ? '---:|' : ''}---:|---:|---:|---:|`);
    for (const level of levels) {
      const c = v.levels[level];
      out.push(`| ${level} | ${c.pass} | ${c.fail} |${warn ? ` ${c.warn ?? 0} |` : ''} ${c.error} | ${c.skip} | ${c['expected-fail']} | ${c['not-run']} |`);
    }
    out.push('');
  }
  const s = summarize(run);
  out.push(`Checks: ${s.passed} passed, ${s.failed} failed, ${s.error} error, ${s.skipped} skipped${s.expectedFail ? `, ${s.expectedFail} expected-fail` : ''}.`, '');
  const bad = run.checks.filter(notJudged);
  if (bad.length > 0) {
    out.push(`### Failures and errors (${bad.length})`, '');
    for (const c of bad.slice(0, MAX_FAILURES_LISTED)) {
      const why = c.status === 'failed' ? firstLine(c.message) : c.reason ?? '';
      out.push(`- **${c.status === 'error' ? 'ERROR' : c.warning ? 'WARN' : 'FAIL'} ${cell(c.title)}** [${c.level}] ${cell(c.section)}: ${cell(why)}`, '', indent(fenced(replayCommand(run, c))), '');
    }
    if (bad.length > MAX_FAILURES_LISTED) out.push(`… and ${bad.length - MAX_FAILURES_LISTED} more (results.json, report.html).`, '');
  }
  const runLevel = [...run.errors.map((e) => `ERROR ${e}`), ...(run.problems ?? []).map((p) => `FAIL ${p}`), ...(run.interrupted ? [`INTERRUPTED ${run.interrupted}`] : [])];
  if (runLevel.length > 0) out.push('### Run', '', ...runLevel.map((l) => `- ${cell(l)}`), '');
  if (v?.verdict === 'INCOMPLETE') out.push(`Not judged: ${cell(v.unjudged.slice(0, 20).join(', '))}${v.unjudged.length > 20 ? ` and ${v.unjudged.length - 20} more` : ''}`, '');
  if (run.replay) out.push('Rerun:', '', fenced(run.replay), '');
  if (v) out.push(`\`${cell(verdictLine(v)).replace(/\\/g, '')}\``, '');
  return out.join('\n');
}

const firstLine = (text: string | undefined) => (text ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
const indent = (text: string) => text.split('\n').map((l) => `  ${l}`).join('\n');

/** A workflow command's data: % and line breaks encoded (GitHub's rules), so it stays one command. */
function commandData(text: string): string {
  return escapeControls(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
}

/** A workflow command's property value: also `:` and `,`, which would end it. */
function commandProperty(text: string): string {
  return commandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * `::error title=<ID>::<first line> (replay: …)` per failed or unjudgeable check, at most
 * MAX_ANNOTATIONS; one more line says how many were left out. Empty when nothing failed.
 */
export function githubAnnotations(run: RunResult): string {
  const lines: string[] = [];
  const bad = run.checks.filter(notJudged);
  for (const c of bad.slice(0, MAX_ANNOTATIONS - 1 + (bad.length <= MAX_ANNOTATIONS ? 1 : 0))) {
    const why = c.status === 'failed' ? firstLine(c.message) : `no judgeable answer: ${c.reason ?? ''}`;
    // A SHOULD failure without --strict does not fail the run: a warning annotation, not an error.
    lines.push(`::${c.warning ? 'warning' : 'error'} title=${commandProperty(`${c.id} [${c.level}]`)}::${commandData(`${c.title}: ${why}\nreplay: ${replayCommand(run, c)}`)}`);
  }
  if (bad.length > MAX_ANNOTATIONS) lines.push(`::error title=dss-conformance::${commandData(`${bad.length - (MAX_ANNOTATIONS - 1)} more failures and errors: see the step summary or report.html`)}`);
  const runLevel = [...run.errors, ...(run.problems ?? [])];
  if (lines.length === 0 && runLevel.length > 0) lines.push(`::error title=dss-conformance run::${commandData(runLevel.join('\n'))}`);
  if (lines.length === 0 && run.aborted) lines.push(`::error title=dss-conformance::${commandData(run.aborted.message)}`);
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}
