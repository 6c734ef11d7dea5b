import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { RunEvent } from '../../src/report/events.ts';
import type { LoggedRequest } from '../../src/report/request-log.ts';
import type { RunResult } from '../../src/report/results.ts';
import { mergeCommand } from '../../src/runner/merge-command.ts';
import { mergeRequestLists } from '../../src/runner/merge-requests.ts';

// Issue 16 item 5: merge reports the wall span of its shards (not the sum of their durations, not
// the first shard's start to the last shard's end in shard order) and writes requests.json. Two
// shard folders are written by hand, so no run is needed: shard 2 ran first, shard 1 ended last.

afterEach(() => vi.restoreAllMocks());

const T0 = Date.parse('2026-11-22T04:00:00.000Z');
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();

function shardEvents(index: number, runId: string, startS: number, endS: number): RunEvent[] {
  return [
    {
      type: 'run-start', at: iso(startS), tool: 'dss-conformance', kitVersion: '0.1.0', node: '24', target: 't', embedded: false, faults: [], profile: 'p',
      capabilities: { name: 'p', kinds: {}, unsupported: {} }, seed: 7, runId, replay: 'npx dss-conformance run --seed 7', apiVersions: ['2025-09-18'], settings: { seed: 7 }, shard: { index, count: 2 },
    },
    { type: 'check-result', at: iso(endS - 1), check: { id: index === 1 ? 'AUTH-001' : 'CONN-001', title: `${index === 1 ? 'AUTH-001' : 'CONN-001'} x`, area: index === 1 ? 'auth' : 'connections', level: 'MUST', section: 's', status: 'passed', durationMs: 5 } },
    { type: 'suite-files', at: iso(endS - 1), areas: [index === 1 ? 'auth' : 'connections'] },
    { type: 'run-end', at: iso(endS), durationMs: (endS - startS) * 1000 },
  ];
}

function shardFolder(root: string, index: number, events: RunEvent[], requests: LoggedRequest[] | undefined, walked: unknown[]): string {
  const dir = join(root, `shard-${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'results.ndjson'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  if (requests) writeFileSync(join(dir, 'requests.json'), JSON.stringify(requests));
  writeFileSync(join(dir, 'walked.json'), JSON.stringify(walked));
  return dir;
}

async function merge(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const code = await mergeCommand(args);
  vi.restoreAllMocks();
  return { code, stdout };
}

describe('merge', () => {
  test('the run lasted from the first start to the last end; the console names both the span and each shard', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dssc-merge-span-'));
    // Shard 2 ran 0–32 s, shard 1 10–58 s: side by side, a 58 s span (their sum is 80 s).
    const one = shardFolder(root, 1, shardEvents(1, 'aaaa', 10, 58), [], []);
    const two = shardFolder(root, 2, shardEvents(2, 'bbbb', 0, 32), [], []);
    const out = join(root, 'merged');
    const { stdout } = await merge(['--reports', out, two, one]);
    const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResult;
    expect(result.durationMs).toBe(58_000);
    expect(result.startedAt).toBe(iso(0));
    expect(stdout).toMatch(/^wall span 58\.0 s from the first start to the last end; the shards took 48\.0 s, 32\.0 s$/m);
    expect(stdout).toMatch(/\(58\.0 s, seed 7\)/);
  });

  test('shards run one after another: the span covers both', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dssc-merge-serial-'));
    const one = shardFolder(root, 1, shardEvents(1, 'aaaa', 40, 60), [], []);
    const two = shardFolder(root, 2, shardEvents(2, 'bbbb', 0, 30), [], []);
    const out = join(root, 'merged');
    await merge(['--reports', out, one, two]);
    expect((JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as RunResult).durationMs).toBe(60_000);
  });

  test('writes requests.json and walked.json: each shard\'s in shard order, ids numbered on', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dssc-merge-requests-'));
    const r1: LoggedRequest[] = [
      { method: 'POST', path: '/api/connections', version: '2025-09-18', credential: 'bearer user key', contentType: 'application/json', body: '{"name":"dssc-<run>-a"}' },
      { method: 'GET', path: '/api/connections/<id1>', version: '2025-09-18', credential: 'bearer user key' },
    ];
    const r2: LoggedRequest[] = [{ method: 'PUT', path: '/api/syncs/<id1>/error-handling', version: '2025-09-18', credential: 'bearer user key', body: '{"x":"<id2>"}' }];
    const walk = (n: number) => ({ operation: 'op', values: { n } });
    const one = shardFolder(root, 1, shardEvents(1, 'aaaa', 0, 10), r1, [walk(2), walk(1)]);
    const two = shardFolder(root, 2, shardEvents(2, 'bbbb', 0, 10), r2, [walk(1), walk(3)]);
    const out = join(root, 'merged');
    const { stdout } = await merge(['--reports', out, two, one]);
    const merged = JSON.parse(readFileSync(join(out, 'requests.json'), 'utf8')) as LoggedRequest[];
    expect(merged.map((r) => `${r.method} ${r.path}${r.body ? ` ${r.body}` : ''}`)).toEqual([
      'POST /api/connections {"name":"dssc-<run>-a"}',
      'GET /api/connections/<id1>',
      // Shard 2's <id1> and <id2> are other ids than shard 1's <id1>.
      'PUT /api/syncs/<id2>/error-handling {"x":"<id3>"}',
    ]);
    expect(merged[0]).toEqual(r1[0]);
    expect(JSON.parse(readFileSync(join(out, 'walked.json'), 'utf8'))).toEqual([walk(1), walk(2), walk(3)]);
    expect(stdout).toContain(join(out, 'requests.json'));
    expect(stdout).not.toMatch(/no requests\.json/);
  });

  test('a shard without requests.json is named, and the merge still writes the others\'', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dssc-merge-norequests-'));
    const one = shardFolder(root, 1, shardEvents(1, 'aaaa', 0, 10), [{ method: 'GET', path: '/a' }], []);
    const two = shardFolder(root, 2, shardEvents(2, 'bbbb', 0, 10), undefined, []);
    const out = join(root, 'merged');
    const { stdout } = await merge(['--reports', out, one, two]);
    expect(JSON.parse(readFileSync(join(out, 'requests.json'), 'utf8'))).toEqual([{ method: 'GET', path: '/a' }]);
    expect(stdout).toContain(`note: ${two} has no requests.json`);
  });

  test('a hand-edited shard requests.json (entries that are not requests) is merged without them, never an internal error', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dssc-merge-garbage-'));
    const one = shardFolder(root, 1, shardEvents(1, 'aaaa', 0, 10), [null, 7, { method: 'GET', path: 5 }, { method: 'GET', path: '/a/<id1>', body: 9 }, { method: 'GET', path: '/b' }] as unknown as LoggedRequest[], []);
    const two = shardFolder(root, 2, shardEvents(2, 'bbbb', 0, 10), [{ method: 'GET', path: '/c/<id1>' }], []);
    const out = join(root, 'merged');
    const { code } = await merge(['--reports', out, one, two]);
    // Two checks of the catalogue: INCOMPLETE, the merge itself went through.
    expect(code).toBe(4);
    expect(JSON.parse(readFileSync(join(out, 'requests.json'), 'utf8')).map((r: LoggedRequest) => r.path)).toEqual(['/a/<id1>', '/b', '/c/<id2>']);
  });

  test('id placeholders: a shard with none shifts nothing; ids inside longer text are shifted too', () => {
    expect(mergeRequestLists([[{ method: 'GET', path: '/x' }], [{ method: 'GET', path: '/y/<id1>/<id12>' }]]).map((r) => r.path)).toEqual(['/x', '/y/<id1>/<id12>']);
    expect(mergeRequestLists([[{ method: 'GET', path: '/<id3>' }], [{ method: 'GET', path: '/<id1>', body: 'a<id2>b' }]])).toEqual([{ method: 'GET', path: '/<id3>' }, { method: 'GET', path: '/<id4>', body: 'a<id5>b' }]);
  });
});
