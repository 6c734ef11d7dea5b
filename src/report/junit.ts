import type { Redactor } from './redact.ts';
import { notKeptText, replayCommand, summarize, type RunResult } from './results.ts';
import { classifySkip, verdictLine } from './verdict.ts';

// JUnit XML as Jenkins (valid against the xUnit plugin's junit-10.xsd), GitLab and the GitHub
// test reporters read it: one <testsuite> per spec area, one <testcase> per check named by its
// requirement ID, no `file` attribute (a path in this kit would misplace annotations in the
// user's repository), the verdict in every testsuite's properties.

function escape(text: string): string {
  return text
    // XML 1.0 forbids most control characters even when escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** The first line with text, for a message attribute: consumers show it as the one-line summary. */
const summaryLine = (text: string, fallback: string) => text.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? fallback;

/** Every delivery the receiver got, one line each, malformed ones included. */
function deliveryLines(run: RunResult): string {
  const notKept = notKeptText(run);
  const lines = (run.deliveries ?? []).map((d) => `#${d.seq} ${d.receivedAt} ${d.scenario ?? '(unknown path)'} ${d.method || '(not HTTP)'} ${d.path} ${d.bodyBytes} B gzip=${d.gzip} records=${d.records ?? '-'} -> ${d.status}${d.violations.length ? ` violations: ${d.violations.join('; ')}` : ''}`);
  if (notKept) lines.push(`(${lines.length} listed${notKept})`);
  return lines.join('\n');
}

/**
 * A run-level testcase's name, from what failed (`run: source database unreachable`): the same
 * problem gets the same name in every run, which is what test-history tools key on. What changes
 * from run to run (the run id, times, durations, ports) is taken out; a name given twice gets ` (2)`.
 */
export function runCaseNames(texts: readonly string[], runId: string): string[] {
  const seen = new Map<string, number>();
  return texts.map((text) => {
    let line = summaryLine(text, 'problem');
    for (const id of runId.split('+').filter((x) => x.length >= 4)) line = line.split(id).join('<run id>');
    line = line
      .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z?/g, '<time>')
      .replace(/\b\d+(\.\d+)?\s?(ms|s|min)\b/g, '<duration>')
      .replace(/(127\.0\.0\.1|localhost|\[::1\]):\d+/g, '$1:<port>')
      .replace(/\s+/g, ' ')
      .trim();
    if (line.length > 120) line = `${line.slice(0, 119)}…`;
    const name = `run: ${line}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name} (${n})`;
  });
}

export function junitXml(run: RunResult, redactor: Redactor): string {
  const areas = new Map<string, RunResult['checks']>();
  for (const c of run.checks) areas.set(c.area, [...(areas.get(c.area) ?? []), c]);
  const total = summarize(run);
  // Run-level problems (errors outside checks, expired baseline entries, an aborted run) are
  // testcases of their own, so a JUnit consumer that reads only testcases still sees them.
  const runCases = [
    ...run.errors.map((e) => ({ kind: 'error' as const, text: e })),
    ...(run.problems ?? []).map((p) => ({ kind: 'failure' as const, text: p })),
    ...(run.aborted ? [{ kind: 'error' as const, text: run.aborted.message }] : []),
  ];
  const failures = total.failed + runCases.filter((c) => c.kind === 'failure').length;
  const errors = total.error - run.errors.length + runCases.filter((c) => c.kind === 'error').length;
  const properties = [
    // The bare verdict for a pipeline to read; the line with the per-level counts beside it.
    ['verdict', run.verdict?.verdict ?? 'none'],
    ['verdict-line', run.verdict ? verdictLine(run.verdict) : 'verdict: none'],
    ['target', run.target],
    ['profile', run.profile],
    ['seed', String(run.seed)],
    ['run-id', run.runId],
    ...(run.implementation ? [['implementation', run.implementation]] : []),
    ...(run.kitVersion ? [['kit-version', run.kitVersion]] : []),
    ...(run.catalogue ? [['catalogue-sha256', run.catalogue]] : []),
    ...(run.stream ? [['results-sha256', run.stream.sha256]] : []),
    ...(run.interrupted ? [['interrupted', run.interrupted]] : []),
  ] as const;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="dss-conformance" tests="${run.checks.length + runCases.length}" failures="${failures}" errors="${errors}" time="${seconds(run.durationMs)}">`,
  ];
  const propertyLines = () => {
    out.push('    <properties>');
    for (const [name, value] of properties) out.push(`      <property name="${name}" value="${escape(redactor.text(value))}"/>`);
    out.push('    </properties>');
  };
  for (const [area, checks] of areas) {
    const count = (...s: string[]) => checks.filter((c) => s.includes(c.status)).length;
    const time = checks.reduce((s, c) => s + c.durationMs, 0);
    out.push(`  <testsuite name="${escape(area)}" tests="${checks.length}" failures="${count('failed', 'stale')}" errors="${count('error')}" skipped="${count('skipped', 'expected-fail')}" time="${seconds(time)}" timestamp="${escape(run.startedAt.replace(/\.\d+Z$/, ''))}">`);
    propertyLines();
    for (const c of checks) {
      const open = `    <testcase classname="dss-conformance.${escape(area)}" name="${escape(c.title)}" time="${seconds(c.durationMs)}"`;
      if (c.status === 'passed') {
        out.push(`${open}/>`);
      } else if (c.status === 'skipped' || c.status === 'expected-fail') {
        const reason = c.status === 'expected-fail' ? `expected failure (baseline: ${c.baseline?.reason ?? ''}): ${(c.message ?? '').split('\n')[0]}` : `${c.skipClass ?? classifySkip(c.reason)}: ${c.reason ?? 'skipped'}`;
        const type = c.status === 'expected-fail' ? 'expected-fail' : c.skipClass ?? classifySkip(c.reason);
        // GitLab shows the element text, Jenkins the attribute: both carry the reason.
        out.push(`${open}>`, `      <skipped type="${type}" message="${escape(redactor.text(reason))}">${escape(redactor.text(reason))}</skipped>`, '    </testcase>');
      } else if (c.status === 'error') {
        const reason = c.reason ?? 'no judgeable answer';
        out.push(`${open}>`, `      <error message="${escape(redactor.text(summaryLine(reason, 'no judgeable answer')))}" type="unjudgeable">${escape(redactor.text(`${c.id} [${c.level}] ${c.section}\n\n${reason}\n\nreplay: ${replayCommand(run, c)}`))}</error>`, '    </testcase>');
      } else {
        const message = c.status === 'stale' ? c.reason ?? 'stale baseline entry' : c.message ?? '(no message)';
        const body = [`${c.id} [${c.level}] ${c.section}`, '', message, '', `replay: ${replayCommand(run, c)}`].join('\n');
        const first = summaryLine(message, 'failed');
        out.push(`${open}>`, `      <failure message="${escape(redactor.text(first))}" type="${c.warning ? 'warning' : escape(c.level)}">${escape(redactor.text(body))}</failure>`, '    </testcase>');
      }
    }
    if (area === 'webhooks' && run.deliveries) out.push(`    <system-out>${escape(redactor.text(deliveryLines(run)))}</system-out>`);
    out.push('  </testsuite>');
  }
  if (runCases.length > 0 || areas.size === 0) {
    const failed = runCases.filter((c) => c.kind === 'failure').length;
    out.push(`  <testsuite name="run" tests="${runCases.length}" failures="${failed}" errors="${runCases.length - failed}" skipped="0" time="0">`);
    propertyLines();
    const names = runCaseNames(runCases.map((c) => c.text), run.runId);
    runCases.forEach((c, i) => {
      const first = escape(redactor.text(summaryLine(c.text, c.kind)));
      out.push(`    <testcase classname="dss-conformance.run" name="${escape(redactor.text(names[i]!))}" time="0">`, `      <${c.kind} message="${first}">${escape(redactor.text(c.text))}</${c.kind}>`, '    </testcase>');
    });
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
