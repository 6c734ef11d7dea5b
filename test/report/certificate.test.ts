import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cli } from '../../src/cli-main.ts';
import { catalogueDigest, sha256, shortDigest } from '../../src/report/certificate.ts';
import { EventLog, type NewEvent } from '../../src/report/events.ts';
import { runCaseNames } from '../../src/report/junit.ts';
import { Redactor } from '../../src/report/redact.ts';
import { githubAnnotations, summaryMarkdown } from '../../src/report/render-markdown.ts';
import { loadRequirements, type CheckResult } from '../../src/report/results.ts';
import { verifyFolder } from '../../src/report/verify.ts';
import { runStartEvent } from '../../src/runner/run-events.ts';
import type { RunSettings } from '../../src/runner/settings.ts';
import { writeReports } from '../../src/runner/write-reports.ts';

// The certificate: what was tested, with which kit and catalogue, and a digest that ties every
// report to the stream; `verify` recomputes both the digest and the verdict from the stream.

const requirements = loadRequirements();

const check = (id: string, status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => {
  const r = requirements.find((x) => x.id === id)!;
  return { id, title: `${id} title`, area: r.spec.replace(/\.spec\.ts$/, ''), level: r.level, section: r.section, status, durationMs: 1250, ...extra };
};

const WH = requirements.filter((r) => r.id.startsWith('WH-')).slice(0, 5).map((r) => r.id);
const EXCHANGE = '> POST http://127.0.0.1:1/api/connections\n> authorization: Bearer [REDACTED]\n< 200 (3 ms)\n< {"data":{}}';

function start(runId: string): NewEvent {
  return {
    type: 'run-start', tool: 'dss-conformance', kitVersion: '9.9.9', node: '24', implementation: 'Acme Sync 4.2.1', catalogue: catalogueDigest(),
    target: 'https://api.example.test', embedded: false, faults: [], profile: 'p.json', capabilities: { name: 'p', kinds: {}, unsupported: {} },
    seed: 7, runId, replay: 'npx dss-conformance run --seed 7', apiVersions: ['2025-09-18'], settings: {},
  };
}

/** A run on disk: its stream, then every report written from it. */
function runFolder(checks: CheckResult[], runId = 'a1b2c3d4', problems: NewEvent[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'dssc-cert-'));
  dirs.push(dir);
  const redactor = new Redactor([]);
  const log = new EventLog(join(dir, 'results.ndjson'), redactor);
  log.emit(start(runId));
  for (const c of checks) log.emit({ type: 'check-result', check: c });
  for (const p of problems) log.emit(p);
  log.emit({ type: 'run-end', durationMs: 5 });
  log.close();
  writeReports(dir, log.events, redactor);
  return dir;
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  vi.restoreAllMocks();
});

const failing = () => requirements.map((r) =>
  r.id === 'CONN-002' ? check(r.id, 'failed', { message: `POST /api/connections: no auth_url\n\n${EXCHANGE}` })
    : WH.includes(r.id) ? check(r.id, 'error', { reason: 'source database unreachable' })
      : check(r.id, 'passed'));

/** Runs a command line in this process, as src/cli.ts would: its exit code and what it printed. */
async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((stdout += String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c) => ((stderr += String(c)), true));
  const code = await cli(argv);
  vi.restoreAllMocks();
  return { code, stdout, stderr };
}

describe('certificate', () => {
  it('names the implementation, the kit, the catalogue revision and the stream digest in every report', () => {
    const dir = runFolder(failing());
    const digest = sha256(readFileSync(join(dir, 'results.ndjson')));
    const json = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    expect(json).toMatchObject({ implementation: 'Acme Sync 4.2.1', kitVersion: '9.9.9', catalogue: catalogueDigest(), stream: { file: 'results.ndjson', sha256: digest } });
    expect(catalogueDigest()).toBe(sha256(readFileSync(new URL('../../specs/requirements.json', import.meta.url))));
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    for (const [name, value] of [['implementation', 'Acme Sync 4.2.1'], ['kit-version', '9.9.9'], ['catalogue-sha256', catalogueDigest()], ['results-sha256', digest]]) expect(junit).toContain(`<property name="${name}" value="${value}"/>`);
    const md = readFileSync(join(dir, 'summary.md'), 'utf8');
    expect(md).toContain('Implementation **Acme Sync 4.2.1**');
    expect(md).toContain(`dss-conformance 9.9.9 · requirement catalogue sha256:${shortDigest(catalogueDigest())} · results.ndjson SHA-256 \`${digest}\``);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain(`data-results-sha256="${digest}"`);
    expect(html).toContain('Conformance of Acme Sync 4.2.1');
    expect(html).toContain(`title="${catalogueDigest()}">sha256:${shortDigest(catalogueDigest())}<`);
    // The banner counts requirements, as the score does: one failed, five errors here and the
    // three ERR checks, which no error answer let the fold judge.
    expect(html).toMatch(new RegExp(`${requirements.length} requirements: 1 failed, 8 error, ${requirements.length - 9} passed`));
  });

  it('verify: the untouched folder agrees; a changed byte of the stream, or a verdict changed in a report, does not', async () => {
    const dir = runFolder(failing());
    const ok = await run(['verify', dir]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^verified: results\.ndjson sha256:[0-9a-f]{64} is the stream results\.json, junit\.xml, summary\.md, report\.html record; folded again it is NOT CONFORMANT, as they say\n$/);

    const file = join(dir, 'results.ndjson');
    const bytes = readFileSync(file);
    const at = bytes.indexOf('"failed"') + 2;
    bytes[at] = 'F'.charCodeAt(0);
    writeFileSync(file, bytes);
    const changed = await run(['verify', dir]);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toMatch(/^dss-conformance: verify: results\.ndjson has SHA-256 [0-9a-f]{12}…, results\.json records [0-9a-f]{12}…: the stream is not the one the reports were written from\n$/);

    // The stream untouched, a report's verdict edited: the re-fold catches it.
    const other = runFolder(failing(), 'e5f6a7b8');
    const json = join(other, 'results.json');
    writeFileSync(json, readFileSync(json, 'utf8').replace('"verdict": "NOT CONFORMANT"', '"verdict": "CONFORMANT"'));
    expect(verifyFolder(other, requirements)).toEqual({ ok: false, reason: 'results.ndjson folds to NOT CONFORMANT, results.json says CONFORMANT' });

    const help = await run(['help', 'verify']);
    expect(help.stdout).toMatch(/^usage: dss-conformance verify DIR\n/);
    const bad = await run(['verify', join(dir, 'nowhere')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^dss-conformance: verify: .*nowhere: no such folder\n$/);
  });

  it('verify: a hand-edited results.json or a stream with lines that are not events is a verdict or exit 2, never an internal error', async () => {
    const dir = runFolder(failing());
    const file = join(dir, 'results.ndjson');
    const before = sha256(readFileSync(file));
    // Lines that parse as JSON but are not events, the digest re-stamped in every report as a forger would.
    writeFileSync(file, readFileSync(file, 'utf8') + ['null', '42', '[]', '{"type":"check-result"}', '{"type":"check-result","check":null}'].join('\n') + '\n');
    const after = sha256(readFileSync(file));
    for (const name of ['results.json', 'junit.xml', 'summary.md', 'report.html']) writeFileSync(join(dir, name), readFileSync(join(dir, name), 'utf8').split(before).join(after));
    const lines = await run(['verify', dir]);
    expect(lines.stderr).not.toContain('internal error');
    expect(lines.code, lines.stderr).toBe(0);

    // Only the banner a reader sees edited, its attribute left as it was.
    const banner = runFolder(failing(), 'b4b4b4b4');
    const page = join(banner, 'report.html');
    writeFileSync(page, readFileSync(page, 'utf8').replace(/(data-verdict="NOT CONFORMANT"[^>]*>)NOT CONFORMANT</, '$1CONFORMANT<'));
    expect(verifyFolder(banner, requirements)).toEqual({ ok: false, reason: 'results.ndjson folds to NOT CONFORMANT, report.html says CONFORMANT' });

    for (const text of ['null', '[]', '"x"', '{"stream": 5, "verdict": "yes"}']) {
      const other = runFolder(failing(), 'f0f0f0f0');
      writeFileSync(join(other, 'results.json'), text);
      const r = await run(['verify', other]);
      expect(r.stderr, text).not.toContain('internal error');
      expect([1, 2], `${text}: ${r.stderr}`).toContain(r.code);
    }
  });

  it('the implementation comes from --implementation, else from the profile; the catalogue digest is in the stream', () => {
    const settings = (implementation?: string) => ({ baseUrl: 'https://t.example', embedded: false, profileSource: 'p.json', profile: { name: 'p', ...(implementation ? { implementation } : {}) }, seed: 1, runId: 'r', replay: 'x' }) as unknown as RunSettings;
    const event = (flags: Record<string, string>, implementation?: string) => runStartEvent({ settings: settings(implementation), flags, faults: [], versions: ['2025-09-18'], selected: [], baseline: undefined }) as { implementation?: string; catalogue?: string };
    expect(event({ implementation: 'Acme Sync 4.2.1' }, 'Acme Sync (profile) 4.0').implementation).toBe('Acme Sync 4.2.1');
    expect(event({}, 'Acme Sync (profile) 4.0').implementation).toBe('Acme Sync (profile) 4.0');
    expect(event({ implementation: '  ' })).not.toHaveProperty('implementation');
    expect(event({}).catalogue).toBe(catalogueDigest());
  });

  it('run-level JUnit testcases are named by what failed, the same in every run', () => {
    const one = runCaseNames(['source database unreachable at 127.0.0.1:5433 after 30 s (run a1b2c3d4)', 'unhandled rejection: boom', 'unhandled rejection: boom'], 'a1b2c3d4');
    const two = runCaseNames(['source database unreachable at 127.0.0.1:6001 after 12.5 s (run ffee0011)', 'unhandled rejection: boom', 'unhandled rejection: boom'], 'ffee0011');
    expect(one).toEqual(['run: source database unreachable at 127.0.0.1:<port> after <duration> (run <run id>)', 'run: unhandled rejection: boom', 'run: unhandled rejection: boom (2)']);
    expect(two).toEqual(one);
  });
});

describe('summary and annotations', () => {
  it('put failures first and fold identical reasons into one entry with the count', () => {
    const dir = runFolder(failing());
    const run = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    const md = summaryMarkdown(run);
    expect(md).toContain('### Failures and errors (9 checks, 3 distinct reasons)');
    const fail = md.indexOf('- **FAIL CONN-002 title**');
    const errors = md.indexOf(`- **ERROR ×5** ${WH.join(', ')}: source database unreachable`);
    expect(fail).toBeGreaterThan(0);
    expect(errors).toBeGreaterThan(fail);
    expect(md).toContain(`--only ${WH.join(',')}`);
    // A failure's request and response are there, folded away.
    expect(md).toContain('<details><summary>evidence</summary>');
    expect(md).toContain('> authorization: Bearer [REDACTED]');
    const annotations = githubAnnotations(run).trim().split('\n');
    expect(annotations).toHaveLength(3);
    expect(annotations[0]).toMatch(/^::error title=CONN-002 \[MUST\]::/);
    expect(annotations[2]).toMatch(/^::error title=5 checks%3A WH-\d{3}%2C .*::no judgeable answer: source database unreachable/);
  });
});
