import type { Redactor } from './redact.ts';
import { replayCommand, summarize, type RunResult } from './results.ts';

// JUnit XML as Jenkins, GitLab and GitHub test reporters read it: one <testsuite> per spec area,
// one <testcase> per check named by its requirement ID.

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

/** Every delivery the receiver got, one line each, malformed ones included. */
function deliveryLines(run: RunResult): string {
  return (run.deliveries ?? [])
    .map((d) => `#${d.seq} ${d.receivedAt} ${d.scenario ?? '(unknown path)'} ${d.method || '(not HTTP)'} ${d.path} ${d.bodyBytes} B gzip=${d.gzip} records=${d.records ?? '-'} -> ${d.status}${d.violations.length ? ` violations: ${d.violations.join('; ')}` : ''}`)
    .join('\n');
}

export function junitXml(run: RunResult, redactor: Redactor): string {
  const areas = new Map<string, RunResult['checks']>();
  for (const c of run.checks) areas.set(c.area, [...(areas.get(c.area) ?? []), c]);
  const total = summarize(run);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="dss-conformance" tests="${run.checks.length + run.errors.length}" failures="${total.failed - run.errors.length}" errors="${run.errors.length}" skipped="${total.skipped}" time="${seconds(run.durationMs)}" timestamp="${escape(run.startedAt)}">`,
  ];
  for (const [area, checks] of areas) {
    const failures = checks.filter((c) => c.status === 'failed').length;
    const skipped = checks.filter((c) => c.status === 'skipped').length;
    const time = checks.reduce((s, c) => s + c.durationMs, 0);
    out.push(`  <testsuite name="${escape(area)}" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(time)}" timestamp="${escape(run.startedAt)}">`);
    out.push('    <properties>');
    for (const [name, value] of [['target', run.target], ['profile', run.profile], ['seed', String(run.seed)], ['run-id', run.runId]] as const) {
      out.push(`      <property name="${name}" value="${escape(redactor.text(value))}"/>`);
    }
    out.push('    </properties>');
    for (const c of checks) {
      const open = `    <testcase classname="dss-conformance.${escape(area)}" name="${escape(c.title)}" time="${seconds(c.durationMs)}"`;
      if (c.status === 'passed') {
        out.push(`${open}/>`);
      } else if (c.status === 'skipped') {
        out.push(`${open}>`, `      <skipped message="${escape(redactor.text(c.reason ?? 'skipped'))}"/>`, '    </testcase>');
      } else {
        const body = [
          `${c.id} [${c.level}] ${c.section}`,
          '',
          c.message ?? '(no message)',
          '',
          `replay: ${replayCommand(run, c.id)}`,
        ].join('\n');
        const first = (c.message ?? 'failed').split('\n')[0] ?? 'failed';
        out.push(`${open}>`, `      <failure message="${escape(redactor.text(first))}" type="${escape(c.level)}">${escape(redactor.text(body))}</failure>`, '    </testcase>');
      }
    }
    if (area === 'webhooks' && run.deliveries) out.push(`    <system-out>${escape(redactor.text(deliveryLines(run)))}</system-out>`);
    out.push('  </testsuite>');
  }
  if (run.errors.length > 0) {
    out.push(`  <testsuite name="run" tests="${run.errors.length}" failures="0" errors="${run.errors.length}" skipped="0" time="0">`);
    run.errors.forEach((e, i) => {
      out.push(`    <testcase classname="dss-conformance.run" name="run error ${i + 1}" time="0">`, `      <error message="${escape(redactor.text(e.split('\n')[0] ?? e))}">${escape(redactor.text(e))}</error>`, '    </testcase>');
    });
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', '');
  return out.join('\n');
}
