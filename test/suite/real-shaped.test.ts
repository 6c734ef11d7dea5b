import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startReference, type RunningReference } from '../../src/reference/index.ts';
import { readEvents } from '../../src/report/events.ts';
import { ROOT, runCli } from './run-cli.ts';

// Issue 16's acceptance: a target shaped like the real service, whose capture log is behind
// signed, expiring URLs to gzip JSON-lines files on a second origin (the reference with
// captureLog 'signed-urls'), driven by a declarative-only profile (fixtures/profiles/real-shaped.json),
// is CONFORMANT: WH-022 is judged from those files. The API key never reaches the files' origin,
// and when the run is over nothing it created is left on the target.

const KEY = 'real-shaped-api-key';
const ORG = 'real-shaped-org-key';

let target: RunningReference;
beforeAll(async () => {
  target = await startReference({ port: 0, apiKey: KEY, orgKey: ORG, captureLog: 'signed-urls' });
});
afterAll(() => target.close());

test('the real-shaped target with its log behind signed URLs is CONFORMANT, and keeps nothing of the run', async () => {
  const profile = join(ROOT, 'fixtures/profiles/real-shaped.json');
  const run = await runCli(['run', '--base-url', target.baseUrl, '--profile', profile, '--seed', '20261122', '--num-runs', '5', '--max-rps', '1000'], { DSS_API_KEY: KEY, DSS_ORG_KEY: ORG });
  expect(run.result, run.stdout + run.stderr).toBeDefined();
  expect(run.result!.verdict?.verdict, run.stdout).toBe('CONFORMANT');
  expect(run.code).toBe(0);
  const wh022 = run.result!.checks.filter((c) => c.id === 'WH-022');
  expect(wh022.map((c) => c.status)).toEqual(['passed']);
  // The log was read from the files: the run read no log inline, and the key never went there.
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
