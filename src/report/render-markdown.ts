import { shortDigest } from './certificate.ts';
import { failureGroups, groupIds, groupReplay, type FailureGroup } from './failure-groups.ts';
import { replayCommand, summarize, type RunResult } from './results.ts';
import { escapeControls } from './safe-text.ts';
import { shownLevels, verdictLine } from './verdict.ts';

// CI-native output: summary.md (what GitHub shows on the run's page when it is appended to
// $GITHUB_STEP_SUMMARY, and what a GitLab job can attach) and ::error workflow commands, which
// GitHub turns into annotations on the run. Target text in either must not become markup or a
// command of its own.

/** GitHub shows at most 10 error annotations per step; more would only be dropped. */
export const MAX_ANNOTATIONS = 10;
const MAX_FAILURES_LISTED = 50;
/** How many entries show their evidence (the request and response) folded under them. */
const MAX_EVIDENCE = 10;
const MAX_EVIDENCE_CHARS = 4000;

/** Text in a table cell or inline: no markup, no HTML, one line. */
export function cell(text: string): string {
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
  if (run.implementation) out.push(`Implementation **${cell(run.implementation)}**`, '');
  out.push(`Target ${cell(run.target || '(none)')} · profile ${cell(run.profile || '(none)')} · seed ${run.seed} · run id ${cell(run.runId || '-')} · ${(run.durationMs / 1000).toFixed(1)} s`, '');
  const kit = [run.kitVersion && `dss-conformance ${cell(run.kitVersion)}`, run.catalogue && `requirement catalogue sha256:${shortDigest(run.catalogue)}`, run.stream && `${run.stream.file} SHA-256 \`${run.stream.sha256}\``].filter(Boolean);
  if (kit.length > 0) out.push(`${kit.join(' · ')}`, '');
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
  const groups = failureGroups(run);
  if (groups.length > 0) {
    const total = groups.reduce((n, g) => n + g.checks.length, 0);
    out.push(`### Failures and errors (${total}${groups.length < total ? ` checks, ${groups.length} distinct reasons` : ''})`, '');
    groups.slice(0, MAX_FAILURES_LISTED).forEach((g, i) => out.push(...groupEntry(run, g, i < MAX_EVIDENCE)));
    if (groups.length > MAX_FAILURES_LISTED) out.push(`… and ${groups.length - MAX_FAILURES_LISTED} more reasons (results.json, report.html).`, '');
  }
  const runLevel = [...run.errors.map((e) => `ERROR ${e}`), ...(run.problems ?? []).map((p) => `FAIL ${p}`), ...(run.interrupted ? [`INTERRUPTED ${run.interrupted}`] : [])];
  if (runLevel.length > 0) out.push('### Run', '', ...runLevel.map((l) => `- ${cell(l)}`), '');
  if (v?.verdict === 'INCOMPLETE') out.push(`Not judged: ${cell(v.unjudged.slice(0, 20).join(', '))}${v.unjudged.length > 20 ? ` and ${v.unjudged.length - 20} more` : ''}`, '');
  if (run.replay) out.push('Rerun:', '', fenced(run.replay), '');
  if (v) out.push(`\`${cell(verdictLine(v)).replace(/\\/g, '')}\``, '');
  return out.join('\n');
}

/** One reason: the check (or how many share it, and which), its replay line, and a failure's evidence folded away. */
function groupEntry(run: RunResult, g: FailureGroup, withEvidence: boolean): string[] {
  const c = g.checks[0]!;
  const head = g.checks.length === 1
    ? `- **${g.kind} ${cell(c.title)}** [${c.level}] ${cell(c.section)}: ${cell(g.why)}`
    : `- **${g.kind} ×${g.checks.length}** ${cell(groupIds(g))}: ${cell(g.why)}`;
  const out = [head, '', indent(fenced(g.checks.length === 1 ? replayCommand(run, c) : groupReplay(run, g))), ''];
  // The rest of a failure's message: the request and response that show it (redacted like all of it).
  const rest = g.kind !== 'ERROR' && c.message ? c.message.split('\n').slice(c.message.split('\n').findIndex((l) => l.trim() !== '') + 1).join('\n').trim() : '';
  if (withEvidence && rest) {
    const shown = rest.length > MAX_EVIDENCE_CHARS ? `${rest.slice(0, MAX_EVIDENCE_CHARS)}\n… (cut: the whole of it is in report.html)` : rest;
    out.push(indent('<details><summary>evidence</summary>'), '', indent(fenced(shown)), '', indent('</details>'), '');
  }
  return out;
}

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
  const groups = failureGroups(run);
  for (const g of groups.slice(0, MAX_ANNOTATIONS - 1 + (groups.length <= MAX_ANNOTATIONS ? 1 : 0))) {
    const c = g.checks[0]!;
    const why = g.kind !== 'ERROR' ? g.why : `no judgeable answer: ${g.why}`;
    const command = g.kind === 'WARN' ? 'warning' : 'error';
    if (g.checks.length === 1) lines.push(`::${command} title=${commandProperty(`${c.id} [${c.level}]`)}::${commandData(`${c.title}: ${why}\nreplay: ${replayCommand(run, c)}`)}`);
    else lines.push(`::${command} title=${commandProperty(`${g.checks.length} checks: ${groupIds(g, 4)}`)}::${commandData(`${why}\nreplay: ${groupReplay(run, g)}`)}`);
  }
  if (groups.length > MAX_ANNOTATIONS) {
    const left = groups.slice(MAX_ANNOTATIONS - 1).reduce((n, g) => n + g.checks.length, 0);
    lines.push(`::error title=dss-conformance::${commandData(`${left} more failures and errors (${groups.length - (MAX_ANNOTATIONS - 1)} reasons): see the step summary or report.html`)}`);
  }
  const runLevel = [...run.errors, ...(run.problems ?? [])];
  if (lines.length === 0 && runLevel.length > 0) lines.push(`::error title=dss-conformance run::${commandData(runLevel.join('\n'))}`);
  if (lines.length === 0 && run.aborted) lines.push(`::error title=dss-conformance::${commandData(run.aborted.message)}`);
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}
