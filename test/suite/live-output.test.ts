import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { readEvents } from '../../src/report/events.ts';
import { sha256 } from '../../src/report/certificate.ts';
import { foldEvents } from '../../src/report/from-events.ts';
import { loadRequirements, type RunResult } from '../../src/report/results.ts';
import { ROOT, withoutTargetEnv } from './run-cli.ts';
import { useRunServers } from './run-server-pool.ts';

// The console is live: each check's line is printed when it finishes, a wait says what it waits
// for, the verdict comes last. And the CI outputs (summary.md, the step summary, annotations) come
// from the same stream as every other report.

interface Line { at: number; text: string }

/** A loopback proxy that answers the requests `slow` picks delayMs late, the others at once. */
async function slowProxy(upstream: string, slow: (method: string, path: string) => boolean, delayMs: number): Promise<{ server: Server; url: string }> {
  let delayed = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', upstream);
      const late = !delayed && slow(req.method ?? 'GET', target.pathname);
      if (late) delayed = true;
      const out = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (up) => {
        const parts: Buffer[] = [];
        up.on('data', (c: Buffer) => parts.push(c));
        up.on('end', () => setTimeout(() => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(Buffer.concat(parts));
        }, late ? delayMs : 0));
      });
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Runs the CLI and stamps each stdout line with when it arrived. */
function timedRun(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; lines: Line[]; reports: string }> {
  const reports = mkdtempSync(join(tmpdir(), 'dssc-live-'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), 'run', ...args, '--reports', reports], { cwd: ROOT, env: { ...withoutTargetEnv(process.env), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: Line[] = [];
    let partial = '';
    child.stdout.on('data', (c: Buffer) => {
      const parts = (partial + c.toString()).split('\n');
      partial = parts.pop()!;
      for (const text of parts) lines.push({ at: Date.now(), text });
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, lines, reports }));
  });
}

describe('live console', () => {
  let reference: RunningReference | undefined;
  let slow: Server | undefined;
  afterAll(async () => {
    slow?.close();
    await reference?.close();
  });

  test('results arrive as they finish, waits get heartbeats, the verdict is last, no escape codes off a TTY', async () => {
    // A slow target: the reference caching a new source's schemas after 3 s (schema-cache-slow),
    // behind a loopback proxy that answers the first model sync creation 4 s late.
    reference = await startReference({ port: 0, faults: ['schema-cache-slow'] });
    const proxy = await slowProxy(reference.baseUrl, (method, path) => method === 'POST' && path === '/api/syncs', 4000);
    slow = proxy.server;
    const args = ['--base-url', proxy.url, `--api-key=${reference.apiKey}`, `--org-key=${reference.orgKey}`, '--profile', 'reference', '--only', 'CONN-001,EHS-001,ERR-001', '--seed', '20261122', '--num-runs', '3'];
    // The heartbeat interval is shortened to 1 s (10 s in real runs).
    const run = await timedRun(args, { DSSC_HEARTBEAT_MS: '1000' });
    const all = run.lines.map((l) => l.text).join('\n');
    const find = (re: RegExp) => run.lines.find((l) => re.test(l.text));
    const conn = find(/^ {2}pass {2}CONN-001 /);
    const ehs = find(/^ {2}pass {2}EHS-001 /);
    const err = find(/^ {2}pass {2}ERR-001 /);
    expect(conn && ehs && err, all).toBeTruthy();
    // Each line was on the console when its check finished, seconds apart: not all at the end.
    expect(ehs!.at - conn!.at, all).toBeGreaterThan(3000);
    expect(err!.at - ehs!.at, all).toBeGreaterThan(2000);
    // A wait a check declares is named with its bound; any other long quiet names the check.
    const cacheBeat = find(/^ {2}\.\.\. {3}waiting for the schema cache of a new \w+ source connection \(ERR-001\), \d+ s of 15 s$/);
    const checkBeat = find(/^ {2}\.\.\. {3}waiting for check EHS-001 .*, \d+ s$/);
    expect(cacheBeat, all).toBeDefined();
    expect(checkBeat, all).toBeDefined();
    expect(checkBeat!.at).toBeGreaterThan(conn!.at);
    expect(checkBeat!.at).toBeLessThan(ehs!.at);
    expect(cacheBeat!.at).toBeGreaterThan(ehs!.at);
    expect(cacheBeat!.at).toBeLessThan(err!.at);
    expect(run.lines.at(-1)!.text).toMatch(/^verdict: INCOMPLETE \(requirements: /);
    expect(all).not.toMatch(/[\u001b\r]/);
    // The stream tells the same story with its own timestamps.
    const events = readEvents(join(run.reports, 'results.ndjson'));
    expect(events[0]!.type).toBe('run-start');
    expect(events.at(-1)!.type).toBe('run-end');
    const at = (id: string) => Date.parse(events.find((e) => e.type === 'check-result' && e.check.id === id)!.at);
    expect(at('EHS-001') - at('CONN-001')).toBeGreaterThan(3000);
    expect(events.filter((e) => e.type === 'heartbeat').length).toBeGreaterThanOrEqual(2);
  });

  test('FORCE_COLOR colours the lines, with no cursor movement; NO_COLOR wins', async () => {
    const coloured = await timedRun(['--only', 'AUTH-001', '--seed', '1', '--num-runs', '1'], { FORCE_COLOR: '1' });
    const text = coloured.lines.map((l) => l.text).join('\n');
    expect(text).toMatch(/\u001b\[32mpass\u001b\[39m {2}AUTH-001/);
    // Only SGR (colour) sequences: ESC [ digits ; m, nothing that moves the cursor or clears.
    expect(text.replace(/\u001b\[[\d;]*m/g, '')).not.toMatch(/[\u001b\r]/);
    const plain = await timedRun(['--only', 'AUTH-001', '--seed', '1', '--num-runs', '1'], { FORCE_COLOR: '1', NO_COLOR: '1' });
    expect(plain.lines.map((l) => l.text).join('\n')).not.toContain('\u001b');
  });
});

describe('CI outputs under simulated GitHub Actions variables', () => {
  // Judged by the reports and the whole output, not by when lines arrive: one long-lived child runs
  // both (test/suite/run-server-pool.ts), which reads the variables per run, as a process does.
  const servers = useRunServers(1);

  test('summary.md, the step summary appended, bounded ::error annotations; results.json is the folded stream', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-gh-'));
    const stepSummary = join(dir, 'step-summary.md');
    writeFileSync(stepSummary, '# an earlier step\n');
    const run = await servers.run(['run', '--fault', 'no-auth-url', '--only', 'connections,AUTH-001', '--seed', '20261122', '--num-runs', '3'], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary });
    expect(run.code, run.stderr).toBe(1);

    const summary = readFileSync(join(run.reports, 'summary.md'), 'utf8');
    expect(summary).toMatch(/^## ❌ dss-conformance: NOT CONFORMANT$/m);
    expect(summary).toMatch(/^\| MUST \| \d+ \| 1 \| 0 \|/m);
    // The four checks of CONN-002 and CONN-007 fail for one reason (no auth_url): one entry with the count, one replay line.
    expect(summary).toMatch(/^- \*\*FAIL ×4\*\* CONN-002, CONN-007: no auth\\_url /m);
    expect(summary).toContain('npx dss-conformance run --seed 20261122 --num-runs 3 --fault no-auth-url --only CONN-002,CONN-007');
    const appended = readFileSync(stepSummary, 'utf8');
    expect(appended.startsWith('# an earlier step\n')).toBe(true);
    expect(appended).toContain(summary);

    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations.length).toBeGreaterThan(0);
    expect(annotations.length).toBeLessThanOrEqual(10);
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(/^::error title=4 checks%3A CONN-002%2C CONN-007::no auth_url .*%0Areplay: .* --only CONN-002,CONN-007$/);
    // The verdict line stays last.
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^verdict: NOT CONFORMANT/);

    // Every report is a rendering of the stream: folding results.ndjson again gives results.json.
    const refolded = foldEvents(readEvents(join(run.reports, 'results.ndjson')), loadRequirements()).run;
    const written = JSON.parse(readFileSync(join(run.reports, 'results.json'), 'utf8')) as RunResult;
    // Exactly, apart from the digest of the stream itself, which is added once the stream is closed.
    expect(written.stream?.sha256).toBe(sha256(readFileSync(join(run.reports, 'results.ndjson'))));
    expect(refolded).toEqual({ ...written, stream: undefined });

    // Off GitHub: no annotation, and no step summary to write.
    const local = await servers.run(['run', '--fault', 'no-auth-url', '--only', 'CONN-002', '--seed', '20261122', '--num-runs', '3']);
    expect(local.stdout).not.toMatch(/^::/m);
  });
});
