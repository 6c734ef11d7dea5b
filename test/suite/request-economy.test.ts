import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fakerValue } from '../../src/generators/from-schema.ts';
import { normaliseRequestLog, REQUEST_LOG_FILE, RequestLogWriter, startRequestLog, writeRequestLog } from '../../src/report/request-log.ts';
import { MODEL_CHECKS, MODEL_RUNS_FLOOR, modelRuns } from '../../src/suite/error-handling-model.ts';
import { runCli } from './run-cli.ts';

// What a deep run costs: the model-based checks share one check's run count, faker is not reseeded
// per value, and requests.json is rendered once from a log the worker appends to.

describe('model-based checks at depth', () => {
  test('up to the floor each does the full count; past it they share one count, never under the floor', () => {
    for (const n of [1, 3, 10, MODEL_RUNS_FLOOR - 1, MODEL_RUNS_FLOOR]) expect(modelRuns(n)).toBe(n);
    // The default run (--num-runs 25) does the floor's count: the budget of issue 18.
    expect(modelRuns(25)).toBe(MODEL_RUNS_FLOOR);
    expect(modelRuns(100)).toBe(MODEL_RUNS_FLOOR);
    expect(modelRuns(1000)).toBe(Math.ceil(1000 / MODEL_CHECKS));
    for (let n = 1; n <= 5000; n += 7) {
      expect(modelRuns(n)).toBeLessThanOrEqual(n);
      expect(modelRuns(n)).toBeGreaterThanOrEqual(Math.min(n, MODEL_RUNS_FLOOR));
      // The six together do about one check's count at depth.
      expect(MODEL_CHECKS * modelRuns(n)).toBeLessThanOrEqual(Math.max(n, MODEL_CHECKS * MODEL_RUNS_FLOOR) + MODEL_CHECKS);
      expect(modelRuns(n + 7)).toBeGreaterThanOrEqual(modelRuns(n));
    }
  });

  test('a model-based check at --num-runs 200 sends at most its share of runs (each a start and up to 8 PUTs)', async () => {
    const run = await runCli(['run', '--only', 'EHS-001', '--num-runs', '200', '--seed', '5', '--allow-incomplete']);
    expect(run.code, run.stdout.slice(-2000)).toBe(0);
    expect(run.result!.checks.find((c) => c.id === 'EHS-001')?.status).toBe('passed');
    const requests = JSON.parse(readFileSync(join(run.reports, 'requests.json'), 'utf8')) as Array<{ method: string; path: string }>;
    const puts = requests.filter((r) => r.method === 'PUT' && r.path.endsWith('/error-handling')).length;
    // Uncapped, 200 runs would send at least 200 start PUTs.
    expect(puts).toBeGreaterThanOrEqual(modelRuns(200));
    expect(puts).toBeLessThanOrEqual(modelRuns(200) * 9);
    expect(existsSync(join(run.reports, REQUEST_LOG_FILE))).toBe(false);
  });
});

describe('faker draws from the property\'s random stream', () => {
  const names = fakerValue((f) => `${f.person.firstName()} ${f.internet.email({ provider: 'example.com' })}`);

  test('one seed gives the same values; values differ within a stream and between seeds', () => {
    const sample = (seed: number) => fc.sample(names, { numRuns: 30, seed });
    expect(sample(7)).toEqual(sample(7));
    expect(new Set(sample(7)).size).toBeGreaterThan(25);
    expect(sample(8)).not.toEqual(sample(7));
  });

  test('a value does not depend on what was generated before it in the process', () => {
    const first = fc.sample(names, { numRuns: 5, seed: 11 });
    fc.sample(names, { numRuns: 50, seed: 12 });
    expect(fc.sample(names, { numRuns: 5, seed: 11 })).toEqual(first);
  });
});

describe('the request log', () => {
  const run = { runId: 'r1d', baseUrl: 'http://127.0.0.1:4000', sourceDbPort: 5433 };

  test('normalised once: the run id, the target, learned ids and the port replaced; repeats collapsed; a cut line left out', () => {
    const raw = [
      { request: { method: 'POST', path: '/api/connections', body: '{"name":"dssc-r1d-crm-1","configuration":{"port":5433}}' } },
      { learned: 'abc-123' },
      { request: { method: 'GET', path: '/api/connections/abc-123' } },
      { request: { method: 'GET', path: '/api/connections/abc-123' } },
      { learned: 'abc-1234' },
      { request: { method: 'PUT', path: '/api/syncs/abc-1234/error-handling', body: '{"url":"http://127.0.0.1:4000/x"}' } },
    ].map((l) => JSON.stringify(l));
    const text = raw.join('\n') + '\n{"request":{"method":"GE';
    expect(normaliseRequestLog(text, run)).toEqual([
      { method: 'POST', path: '/api/connections', body: '{"name":"dssc-<run>-crm-1","configuration":{"port":"<source-db-port>"}}' },
      { method: 'GET', path: '/api/connections/<id1>' },
      { method: 'PUT', path: '/api/syncs/<id2>/error-handling', body: '{"url":"<target>/x"}' },
    ]);
  });

  test('the worker appends; requests.json is written from it and the raw log removed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-requests-'));
    startRequestLog(dir);
    const writer = new RequestLogWriter(dir);
    writer.request({ method: 'GET', path: '/api/bulk/syncs/dssc-r1d-missing-bulk/error-handling' });
    writer.learned('id-9');
    writer.request({ method: 'DELETE', path: '/api/connections/id-9' });
    writer.close();
    writeRequestLog(dir, run);
    expect(JSON.parse(readFileSync(join(dir, 'requests.json'), 'utf8'))).toEqual([
      { method: 'GET', path: '/api/bulk/syncs/dssc-<run>-missing-bulk/error-handling' },
      { method: 'DELETE', path: '/api/connections/<id1>' },
    ]);
    expect(existsSync(join(dir, REQUEST_LOG_FILE))).toBe(false);
    // A run whose worker sent nothing still has the file.
    writeFileSync(join(dir, 'requests.json'), 'stale');
    writeRequestLog(dir, run);
    expect(readFileSync(join(dir, 'requests.json'), 'utf8')).toBe('[]\n');
  });
});
