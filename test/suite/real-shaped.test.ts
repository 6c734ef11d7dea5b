import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { readEvents } from '../../src/report/events.ts';
import { CREATED_LOG_FILE, readCreated } from '../../src/report/created-log.ts';
import { ROOT, withoutTargetEnv } from './run-cli.ts';
import { useRunServers } from './run-server-pool.ts';

// Issue 16's acceptance: a target shaped like the real service, whose capture log is behind
// signed, expiring URLs to gzip JSON-lines files on a second origin (the reference with
// captureLog 'signed-urls'), driven by a declarative-only profile (fixtures/profiles/real-shaped.json),
// is CONFORMANT: WH-022 is judged from those files. The API key never reaches the files' origin,
// and when the run is over nothing it created is left on the target.

// The runs judged by their verdict and reports go to one long-lived child that loads the kit once
// (test/suite/run-server-pool.ts); the interrupted run is a process of its own, as a signal needs.
const servers = useRunServers(1, { sharedSourceDb: true });

const KEY = 'real-shaped-api-key';
const ORG = 'real-shaped-org-key';

let target: RunningReference;
beforeAll(async () => {
  target = await startReference({ port: 0, apiKey: KEY, orgKey: ORG, captureLog: 'signed-urls' });
});
afterAll(() => target.close());

test('the real-shaped target with its log behind signed URLs is CONFORMANT, and keeps nothing of the run', async () => {
  const profile = join(ROOT, 'fixtures/profiles/real-shaped.json');
  const run = await servers.run(['run', '--base-url', target.baseUrl, '--profile', profile, '--seed', '20261122', '--num-runs', '5', '--max-rps', '1000'], { DSS_API_KEY: KEY, DSS_ORG_KEY: ORG });
  expect(run.result, run.stdout + run.stderr).toBeDefined();
  expect(run.result!.verdict?.verdict, run.stdout).toBe('CONFORMANT');
  expect(run.code).toBe(0);
  const wh022 = run.result!.checks.filter((c) => c.id === 'WH-022');
  expect(wh022.map((c) => c.status)).toEqual(['passed']);
  // The log was read from the files (the run's read holds none on this target), and the key never went there.
  const requests = readFileSync(join(run.reports, 'requests.json'), 'utf8');
  expect(requests).toMatch(/\/executions\/<id\d+>\/records"/);
  expect(target.logFiles!.credentialed).toBe(0);

  // Nothing of the run is left: every connection, model, model sync and bulk sync it made is gone.
  const { store } = target;
  expect([...store.connections.values(), ...store.models.values(), ...store.modelSyncs.values(), ...store.bulkSyncs.values()].map((r) => r.name)).toEqual([]);
  const cleanup = readEvents(join(run.reports, 'results.ndjson')).find((e) => e.type === 'cleanup');
  expect(cleanup).toMatchObject({ failures: [], notTried: 0, kept: {} });
  expect((cleanup as { deleted: number }).deleted).toBeGreaterThan(20);
  expect(run.stdout).toMatch(/dss-conformance: note: deleted \d+ resources the run created/);
});

test('interrupted (SIGTERM), the run writes its reports, then deletes what it had created', async () => {
  const reports = mkdtempSync(join(tmpdir(), 'dssc-interrupted-'));
  const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), 'run', '--base-url', target.baseUrl, '--profile', join(ROOT, 'fixtures/profiles/real-shaped.json'), '--seed', '1', '--only', 'connections', '--reports', reports], {
    cwd: ROOT,
    env: { ...withoutTargetEnv(process.env), DSS_API_KEY: KEY, DSS_ORG_KEY: ORG },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  // Waits for the state it needs: creations the run has logged (what it will delete), not a time.
  const log = join(reports, CREATED_LOG_FILE);
  while (!existsSync(log) || readCreated(reports).length < 3) {
    if (child.exitCode !== null) throw new Error(`the run ended before it created anything: ${out}`);
    await sleep(20);
  }
  const before = readCreated(reports).map((r) => r.id);
  child.kill('SIGTERM');
  expect(await exited, out).toBe(4);
  // What it had logged is gone; a creation answered after the signal may be left (cleanup --base-url).
  for (const id of before) expect(target.store.connections.has(id), id).toBe(false);
  // The reports came first, complete: the deletes are said on the console, after them.
  expect(readEvents(join(reports, 'results.ndjson')).at(-1)).toMatchObject({ type: 'run-end', interrupted: 'interrupted by SIGTERM' });
  expect(out).toMatch(/^INTERRUPTED interrupted by SIGTERM[^]*\ndss-conformance: note: deleted \d+ resources the run created\n/m);
});

test('WH-022 judges what it reads from the files: a log that misstates a status fails it', async () => {
  const faulty = await startReference({ port: 0, apiKey: KEY, orgKey: ORG, captureLog: 'signed-urls', faults: ['capture-failure-logged-200'] });
  try {
    const run = await servers.run(['run', '--base-url', faulty.baseUrl, '--profile', join(ROOT, 'fixtures/profiles/real-shaped.json'), '--only', 'WH-022', '--seed', '3', '--max-rps', '1000'], { DSS_API_KEY: KEY, DSS_ORG_KEY: ORG });
    expect(run.result?.checks.map((c) => [c.id, c.status]), run.stdout).toEqual([['WH-022', 'failed']]);
    expect(run.code).toBe(1);
  } finally {
    await faulty.close();
  }
});
