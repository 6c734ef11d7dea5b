import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import type { RunResult } from '../../src/report/results.ts';
import { proxyTarget, type Hostile } from './hostile-servers.ts';
import { expectValidJunit } from './junit-validate.ts';
import { ROOT, runCli } from './run-cli.ts';
import { cliFixedCostMs } from '../helpers/cli-baseline.ts';
import { useRunServers } from './run-server-pool.ts';

// A run ends with a true, complete report whatever stops it: a signal, its own time budget, a
// setup error, an unreachable target; a partial or known-failing run never reads as green.

// The runs that read only a verdict and reports go to shared children that load the kit once
// (test/suite/run-server-pool.ts); a signal and the time budget keep a process of their own.
const servers = useRunServers(2, { sharedSourceDb: true });

let reference: RunningReference;
let slow: Hostile;

beforeAll(async () => {
  reference = await startReference({ port: 0, faults: [] });
  // Every answer 150 ms late: a run long enough to interrupt.
  slow = await proxyTarget(reference.baseUrl, (e) => e, undefined, 150);
});
afterAll(async () => {
  await slow?.close();
  await reference?.close();
});

const targetArgs = () => ['--base-url', slow.url, `--api-key=${reference.apiKey}`, `--org-key=${reference.orgKey}`, '--profile', 'reference', '--seed', '3', '--num-runs', '3'];
const readResult = (dir: string) => JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as RunResult;

describe.concurrent('interruption', () => {
  test('SIGTERM mid-run: complete reports within 5 s, unfinished requirements are errors, never CONFORMANT', async ({ expect }) => {
    const reports = mkdtempSync(join(tmpdir(), 'dssc-sigterm-'));
    // The baseline is measured while this run (and whatever else) goes on, under the same load.
    const baseline = cliFixedCostMs();
    const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), 'run', ...targetArgs(), '--reports', reports], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let signalledAt = 0;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (!signalledAt && /^ {2}pass {2}CONN-/m.test(stdout)) {
        signalledAt = Date.now();
        child.kill('SIGTERM');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(signalledAt, stdout).toBeGreaterThan(0);
    // 5 s on an idle machine, plus three of the cheapest run's wall times measured now: a run that
    // waits for its checks to end instead of stopping takes the rest of the suite (minutes here).
    const stoppedMs = Date.now() - signalledAt;
    expect(stoppedMs).toBeLessThan(5_000 + 3 * (await baseline));
    expect([1, 4]).toContain(code);
    const result = readResult(reports);
    expect(result.interrupted).toBe('interrupted by SIGTERM');
    expect(result.verdict?.verdict).not.toBe('CONFORMANT');
    expect(result.checks.some((c) => c.status === 'passed')).toBe(true);
    expect(result.checks.filter((c) => c.status === 'error' && /^interrupted/.test(c.reason ?? '')).length).toBeGreaterThan(10);
    await expectValidJunit(readFileSync(join(reports, 'junit.xml'), 'utf8'));
    expect(stdout).toMatch(/^INTERRUPTED interrupted by SIGTERM/m);
    // The event stream is complete too: it ends with the run's end, which says why.
    const events = readFileSync(join(reports, 'results.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; interrupted?: string });
    expect(events[0]!.type).toBe('run-start');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', interrupted: 'interrupted by SIGTERM' });
    expect(readFileSync(join(reports, 'report.html'), 'utf8')).toContain('interrupted: interrupted by SIGTERM');
    // requests.json is written once, at the interruption: it holds the requests of the spec file
    // that was cut short (CONN-001's crm connections, which passed), not only of the files before it.
    const requests = JSON.parse(readFileSync(join(reports, 'requests.json'), 'utf8')) as Array<{ method: string; body?: string }>;
    expect(requests.some((r) => r.method === 'POST' && r.body?.includes('"name":"dssc-<run>-crm-'))).toBe(true);
    expect(readdirSync(reports).filter((f) => f.startsWith('.dssc-'))).toEqual([]);
  }, 600_000);

  test('--max-duration: the run stops at its budget with complete reports', async ({ expect }) => {
    // The baseline is measured while this run goes on, under the same load.
    const baseline = cliFixedCostMs();
    const started = Date.now();
    const run = await runCli(['run', ...targetArgs(), '--max-duration', '3s']);
    const elapsed = Date.now() - started;
    // The budget (3 s) and 9 s of start and reports on an idle machine, plus three of the cheapest
    // run's wall times measured now; without the budget the run would go on for minutes.
    expect(elapsed).toBeLessThan(12_000 + 3 * (await baseline));
    expect(run.code).toBe(4);
    expect(run.result?.interrupted).toMatch(/--max-duration budget of 3 s ran out/);
    expect(run.result?.verdict?.verdict).toBe('INCOMPLETE');
    await expectValidJunit(readFileSync(join(run.reports, 'junit.xml'), 'utf8'));
  }, 600_000);
});

describe.concurrent('reports are never stale', () => {
  test('exit 3 replaces the previous green junit.xml with one saying why', async ({ expect }) => {
    const reports = mkdtempSync(join(tmpdir(), 'dssc-stale-'));
    writeFileSync(join(reports, 'junit.xml'), '<testsuites name="old green run" tests="70" failures="0"/>');
    writeFileSync(join(reports, 'results.json'), '{"old": true}');
    for (const file of ['report.html', 'summary.md', 'results.ndjson']) writeFileSync(join(reports, file), 'old green run');
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    await new Promise((r) => server.close(r));
    const run = await servers.run(['run', '--base-url', `http://127.0.0.1:${port}`, '--api-key', 'k-secret-1', '--reports', reports]);
    expect(run.code).toBe(3);
    const junit = readFileSync(join(reports, 'junit.xml'), 'utf8');
    expect(junit).not.toContain('old green run');
    expect(junit).toMatch(/<error message="target http:\/\/127\.0\.0\.1:\d+ unreachable: connection refused"/);
    await expectValidJunit(junit);
    expect(readResult(reports).aborted).toMatchObject({ exitCode: 3 });
    // Every report says why, from the same stream: it ends with the aborted run's end.
    for (const file of ['report.html', 'summary.md', 'results.ndjson']) expect(readFileSync(join(reports, file), 'utf8')).not.toContain('old green run');
    expect(readFileSync(join(reports, 'summary.md'), 'utf8')).toMatch(/Run aborted \(exit 3\): target http/);
    const last = JSON.parse(readFileSync(join(reports, 'results.ndjson'), 'utf8').trim().split('\n').at(-1)!) as { type: string; aborted?: { exitCode: number } };
    expect(last).toMatchObject({ type: 'run-end', aborted: { exitCode: 3 } });
  });
});

describe.concurrent('setup errors are exit 2 with one line', () => {
  test('an adapter whose factory throws, or that lacks a method', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-adapter-'));
    writeFileSync(join(dir, 'throws.mjs'), 'export default () => { throw new Error("boom"); };\n');
    writeFileSync(join(dir, 'partial.mjs'), 'export default () => ({ createWebhookConnection() {} });\n');
    const [throws, partial] = await Promise.all([servers.run(['run', '--adapter', join(dir, 'throws.mjs')]), servers.run(['run', '--adapter', join(dir, 'partial.mjs')])]);
    expect(throws.code).toBe(2);
    expect(throws.stderr.trim()).toMatch(/^dss-conformance: --adapter .*throws\.mjs: the factory threw: boom$/);
    expect(partial.code).toBe(2);
    expect(partial.stderr.trim()).toMatch(/missing operation\(s\) createModelSync, startRun, waitForRun, createSourceConnection \+ createModel or createSource \+ writeRows$/);
    expect(partial.result?.aborted?.exitCode).toBe(2);
  });

  test('a receiver port already in use', async ({ expect }) => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      const run = await servers.run(['run', '--receiver-port', String(port)]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim()).toMatch(new RegExp(`--receiver-port ${port}: the capturing receiver cannot listen there \\(address already in use\\)$`));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe.concurrent('adapter operations that fail', () => {
  test('an operation declared Unsupported skips its checks as unsupported; any other exception makes them errors', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-adapter-ops-'));
    const example = join(ROOT, 'fixtures/adapters/example-adapter.mjs');
    const variant = (name: string, thrown: string) =>
      writeFileSync(join(dir, name), `import make from ${JSON.stringify(example)};\nexport default async (ctx) => ({ ...(await make(ctx)), async createModel() { ${thrown} } });\n`);
    variant('unsupported.mjs', "const e = new Error('this target has no writable source'); e.name = 'Unsupported'; throw e;");
    variant('broken.mjs', "throw new Error('source service answered 500');");
    const [unsupported, broken] = await Promise.all([
      servers.run(['run', '--adapter', join(dir, 'unsupported.mjs'), '--only', 'WH-001,WH-002', '--seed', '1']),
      servers.run(['run', '--adapter', join(dir, 'broken.mjs'), '--only', 'WH-001', '--seed', '1']),
    ]);
    expect(unsupported.result?.checks.map((c) => [c.id, c.status, c.skipClass])).toEqual([['WH-001', 'skipped', 'unsupported'], ['WH-002', 'skipped', 'unsupported']]);
    expect(unsupported.result?.checks[0]?.reason).toMatch(/^unsupported: the adapter could not create a model over the source table: this target has no writable source$/);
    expect(broken.result?.checks.map((c) => [c.id, c.status, c.reason])).toEqual([['WH-001', 'error', 'the adapter could not create a model over the source table: source service answered 500']]);
    expect(broken.code).toBe(4);
  });
});

describe.concurrent('partial gates and known failures', () => {
  test('a selection is INCOMPLETE (exit 4), or exit 0 with --allow-incomplete', async ({ expect }) => {
    const [run, allowed] = await Promise.all([servers.run(['run', '--only', 'AUTH-001', '--seed', '1']), servers.run(['run', '--only', 'AUTH-001', '--seed', '1', '--allow-incomplete'])]);
    expect(run.code).toBe(4);
    expect(run.result?.verdict?.unjudged).toContain('AUTH-002 (skipped: not-selected)');
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^verdict: INCOMPLETE/m);
  });

  test('a baselined failure is expected-fail; a stale entry fails the run', async ({ expect }) => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-baseline-run-'));
    writeFileSync(join(dir, 'known.json'), JSON.stringify({ entries: [{ id: 'EHS-007', reason: 'vendor ticket 42' }, { id: 'ERR-005', reason: 'vendor ticket 42' }] }));
    const [known, stale] = await Promise.all([
      servers.run(['run', '--fault', 'put-unknown-id-200', '--seed', '3', '--num-runs', '10', '--baseline', join(dir, 'known.json')]),
      servers.run(['run', '--seed', '3', '--num-runs', '10', '--only', 'EHS-007', '--baseline', join(dir, 'known.json')]),
    ]);
    expect(known.code, known.stdout.slice(-2000)).toBe(0);
    expect(known.result?.checks.find((c) => c.id === 'EHS-007')?.status).toBe('expected-fail');
    expect(known.result?.verdict?.verdict).toBe('CONFORMANT');
    expect(readFileSync(join(known.reports, 'junit.xml'), 'utf8')).toMatch(/<skipped type="expected-fail" message="expected failure \(baseline: vendor ticket 42\)/);
    // The live console says what the reports say: the accepted failure is xfail as it finishes, never FAIL.
    expect(known.stdout).toMatch(/^ {2}xfail {2}EHS-007 .* {2}\(baseline: vendor ticket 42\)$/m);
    expect(known.stdout).not.toMatch(/^ {2}FAIL {2}EHS-007/m);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/stale baseline entry "EHS-007"/);
    // A stale entry's check is never printed pass: its line waits for the run's end and says STALE.
    expect(stale.stdout).toMatch(/^ {2}STALE {2}EHS-007 /m);
    expect(stale.stdout).not.toMatch(/^ {2}pass {2}EHS-007/m);
  });
});
