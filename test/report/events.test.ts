import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colourEnabled, checkLine, heartbeatLine } from '../../src/report/console.ts';
import { EventLog, readEvents, type NewEvent, type RunEvent } from '../../src/report/events.ts';
import { foldEvents } from '../../src/report/from-events.ts';
import { Redactor } from '../../src/report/redact.ts';
import { githubAnnotations, MAX_ANNOTATIONS, summaryMarkdown } from '../../src/report/render-markdown.ts';
import { renderHtml } from '../../src/report/render-html.ts';
import { loadRequirements, type CheckResult } from '../../src/report/results.ts';

// The stream is the run: a report folded from it, from the file it was written to, or from several
// shards' files read one after another, says the same thing.

const requirements = loadRequirements();
const SECRET = 'sk-live-0123456789abcdef';

function start(runId: string, selected?: string[]): NewEvent {
  return {
    type: 'run-start', tool: 'dss-conformance', kitVersion: '0.0.0', node: '24', target: 'https://api.example.test', embedded: false, faults: [],
    profile: 'p.json', capabilities: { name: 'p', kinds: { crm: 'salesforce' }, unsupported: {} }, seed: 7, runId, replay: 'npx dss-conformance run --seed 7',
    apiVersions: ['2025-09-18'], ...(selected ? { selected } : {}), settings: { seed: '7' },
  };
}

const check = (id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => {
  const r = requirements.find((x) => x.id === id)!;
  return { id, title: `${id} title`, area: r.spec.replace(/\.spec\.ts$/, ''), level: r.level, section: r.section, status, durationMs: 1, ...extra };
};

function stream(file: string | undefined, events: NewEvent[]): RunEvent[] {
  const log = new EventLog(file, new Redactor([SECRET]));
  for (const e of events) log.emit(e);
  return log.events;
}

const checks = requirements.map((r) => (r.id === 'ERR-002' ? check(r.id, 'failed', { message: `status 500 in the body, 400 on the wire\n\n> GET /api/x\n> authorization: Bearer ${SECRET}\n< 400 (3 ms)\n< {"status":500}` }) : check(r.id, 'passed')));

describe('event stream', () => {
  it('is written as it happens, redacted, and folds to the same run from memory and from the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-events-'));
    const file = join(dir, 'results.ndjson');
    const log = new EventLog(file, new Redactor([SECRET]));
    log.emit(start('aaaa'));
    log.emit({ type: 'check-result', check: checks[0]! });
    // Each event is on disk before the next one happens.
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    for (const c of checks.slice(1)) log.emit({ type: 'check-result', check: c });
    log.emit({ type: 'run-end', durationMs: 5 });
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ type: 'run-start', runId: 'aaaa' });
    const fromFile = foldEvents(readEvents(file), requirements).run;
    expect(fromFile).toEqual(foldEvents(log.events, requirements).run);
    expect(fromFile.verdict?.verdict).toBe('NOT CONFORMANT');
    expect(fromFile.verdict?.failures[0]).toMatch(/^ERR-002: status 500/);
  });

  it('a last line cut short by a kill is dropped, the rest read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-events-'));
    const file = join(dir, 'results.ndjson');
    stream(file, [start('aaaa'), { type: 'check-result', check: checks[0]! }]);
    writeFileSync(file, readFileSync(file, 'utf8') + '{"type":"check-res');
    expect(readEvents(file).map((e) => e.type)).toEqual(['run-start', 'check-result']);
  });

  it('two shards folded one after another give the verdict of one run', () => {
    const half = Math.floor(checks.length / 2);
    const one = stream(undefined, [start('aaaa'), ...checks.map((c): NewEvent => ({ type: 'check-result', check: c })), { type: 'run-end', durationMs: 9 }]);
    const shardA = stream(undefined, [start('aaaa', checks.slice(0, half).map((c) => c.id)), ...checks.slice(0, half).map((c): NewEvent => ({ type: 'check-result', check: c })), { type: 'run-end', durationMs: 4 }]);
    const shardB = stream(undefined, [start('bbbb', checks.slice(half).map((c) => c.id)), ...checks.slice(half).map((c): NewEvent => ({ type: 'check-result', check: c })), { type: 'run-end', durationMs: 5 }]);
    const whole = foldEvents(one, requirements).run;
    const sharded = foldEvents([...shardA, ...shardB], requirements).run;
    expect(sharded.verdict).toEqual(whole.verdict);
    expect(sharded.checks).toEqual(whole.checks);
    expect(sharded.runId).toBe('aaaa+bbbb');
    // One shard alone judges only its half: the rest is not selected, so at best INCOMPLETE.
    expect(foldEvents(shardB, requirements).run.verdict?.verdict).not.toBe('CONFORMANT');
  });

  it('an interrupted stream makes the unfinished requirements errors; the baseline comes from the stream', () => {
    const events = stream(undefined, [
      { ...start('aaaa'), baseline: { file: 'b.json', entries: [{ id: 'ERR-002', reason: 'known: ticket 12' }] } } as NewEvent,
      { type: 'check-result', check: checks.find((c) => c.id === 'ERR-002')! },
      { type: 'run-end', durationMs: 3, interrupted: 'interrupted by SIGTERM' },
    ]);
    const run = foldEvents(events, requirements).run;
    expect(run.checks.find((c) => c.id === 'ERR-002')?.status).toBe('expected-fail');
    expect(run.checks.filter((c) => c.status === 'error')).toHaveLength(requirements.length - 1);
    expect(run.verdict?.verdict).toBe('INCOMPLETE');
  });
});

describe('summary.md and annotations', () => {
  // Each its own reason: identical ones would fold into one entry.
  const many = requirements.map((r) => check(r.id, 'failed', { message: `${r.id} ::warning::forged %0A::error::also forged \`\`\` <b>x</b>\nsecond line` }));
  const run = foldEvents(stream(undefined, [start('aaaa'), ...many.map((c): NewEvent => ({ type: 'check-result', check: c })), { type: 'run-end', durationMs: 1 }]), requirements).run;

  it('annotations are bounded, one line each, titled with the ID, and target text cannot start a command', () => {
    const lines = githubAnnotations(run).trimEnd().split('\n');
    expect(lines).toHaveLength(MAX_ANNOTATIONS);
    for (const l of lines) expect(l).toMatch(/^::error title=[^:]+::/);
    expect(lines[0]).toMatch(/^::error title=[A-Z]+-\d{3} \[\w+\]::/);
    expect(lines.at(-1)).toContain(`${many.length - (MAX_ANNOTATIONS - 1)} more failures`);
    // The target's '::warning::' stays data: its line break is encoded, so it never starts a line.
    expect(lines.join('\n')).toContain('forged %250A::error::also forged');
    expect(githubAnnotations({ ...run, checks: run.checks.map((c) => ({ ...c, status: 'passed' })) })).toBe('');
  });

  it('summary.md has the verdict, counts per level and replay lines; target text is not markup', () => {
    const md = summaryMarkdown(run);
    expect(md).toMatch(/^## ❌ dss-conformance: NOT CONFORMANT/);
    expect(md).toMatch(/^\| MUST \| 0 \| \d+ \|/m);
    expect(md).toContain('npx dss-conformance run --seed 7 --only AUTH-001');
    expect(md).not.toContain('<b>');
    expect(md).toContain('\\<b\\>');
  });

  it('report.html escapes target text and makes no request', () => {
    const html = renderHtml(foldEvents(stream(undefined, [start('aaaa'), { type: 'check-result', check: check('AUTH-001', 'failed', { message: '<script>alert(1)</script><img src=http://evil.test/x>' }) }, { type: 'run-end', durationMs: 1 }]), requirements), requirements);
    // The only links are the page's own: the failure list's, each to a row of this page.
    expect(html.replace(/<a href="#[A-Za-z0-9-]+">/g, '')).not.toMatch(/<(script|img|link|iframe|a|object|embed)\b/i);
    expect(html).toContain('&lt;script&gt;');
    expect(html).toContain("default-src 'none'");
  });
});

describe('console', () => {
  it('colours only on a TTY, honouring NO_COLOR and FORCE_COLOR', () => {
    expect(colourEnabled({ isTTY: true }, {})).toBe(true);
    expect(colourEnabled({ isTTY: false }, {})).toBe(false);
    expect(colourEnabled({ isTTY: false }, { CI: 'true' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(colourEnabled({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
    expect(colourEnabled({ isTTY: true }, { FORCE_COLOR: '0' })).toBe(false);
    expect(colourEnabled({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });

  it('lines without colours hold no escape at all; target escapes stay visible', () => {
    const line = checkLine(check('AUTH-001', 'error', { reason: 'timeout \u001b[2J\u001b[H' }));
    expect(line).not.toContain('\u001b');
    expect(line).toContain('\\x1b[2J');
    expect(heartbeatLine('the schema cache of a new crm source connection', 12_400, 30_000)).toBe('  ...   waiting for the schema cache of a new crm source connection, 12 s of 30 s\n');
  });
});
