import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readEvents } from '../../src/report/events.ts';
import type { RunResult } from '../../src/report/results.ts';
import { ROOT, withoutTargetEnv, type CliRun } from './run-cli.ts';
import { useRunServers } from './run-server-pool.ts';

// Issue 9 item 8: a deep run split across CI jobs. Three shards run against one `serve`, side by
// side as three jobs would; their folders are merged; the merged verdict and every check's result
// equal those of the unsharded run against the same target.

const KEY = 'shard-merge-test-key-0123456789';
const ORG = 'shard-merge-test-org-0123456789';
const SEED = '20261122';

// The runs are judged by their exit code, output and reports: they go to three shared run servers
// (test/suite/run-server-pool.ts), side by side as three CI jobs would run the shards.
const servers = useRunServers(3, { sharedSourceDb: true });

let serve: ChildProcess | undefined;
let baseUrl = '';
const dir = mkdtempSync(join(tmpdir(), 'dssc-shards-'));

beforeAll(async () => {
  serve = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), 'serve', '--port', '0', '--api-key', KEY, '--org-key', ORG], { cwd: ROOT, env: withoutTargetEnv(process.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  serve.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  // A hang guard, not a speed bound: a busy machine starts a process in tens of seconds.
  const deadline = Date.now() + 240_000;
  while (!/http:\/\/\S+/.test(out)) {
    if (serve.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  baseUrl = /(http:\/\/[^\s,]+)/.exec(out)![1]!;
});

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const closed = once(serve, 'close');
    serve.kill('SIGTERM');
    await closed;
  }
});

const target = () => ['--base-url', baseUrl, `--api-key=${KEY}`, `--org-key=${ORG}`, '--profile', 'reference', '--seed', SEED, '--num-runs', '3', '--max-rps', '100000'];
const results = (r: RunResult) => r.checks.map((c) => ({ id: c.id, title: c.title, status: c.status })).sort((a, b) => a.title.localeCompare(b.title));
const resultIn = (reports: string) => JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as RunResult;
const oneLine = (r: CliRun) => r.stderr.trim().split('\n').length === 1 && !/\n\s+at /.test(r.stderr);

describe('run --shard I/N and merge', () => {
  const shardDir = (i: number) => join(dir, `shard-${i}`);

  test('three shards merged give the unsharded run\'s verdict and per-check results', async () => {
    const shards = await Promise.all([1, 2, 3].map((i) => servers.run(['run', ...target(), '--shard', `${i}/3`, '--reports', shardDir(i)])));
    for (const [i, s] of shards.entries()) {
      // A shard alone is never CONFORMANT: the other shards' requirements are not run in it.
      expect(s.code, `shard ${i + 1}: ${s.stdout}${s.stderr}`).toBe(4);
      const alone = resultIn(shardDir(i + 1));
      expect(alone.verdict?.verdict).toBe('INCOMPLETE');
      expect(alone.verdict?.unjudged[0]).toMatch(/^shards .*\(not merged\)$/);
      expect(s.stdout).toContain('/3 (not merged)');
    }
    // Each shard has its own run id, and together they ran every spec file once.
    const starts = [1, 2, 3].map((i) => readEvents(join(shardDir(i), 'results.ndjson')).find((e) => e.type === 'run-start'));
    expect(new Set(starts.map((s) => s?.type === 'run-start' && s.runId)).size).toBe(3);
    const areas = [1, 2, 3].flatMap((i) => readEvents(join(shardDir(i), 'results.ndjson')).flatMap((e) => (e.type === 'suite-files' ? e.areas : [])));
    expect(areas.length).toBe(new Set(areas).size);

    const merged = await servers.run(['merge', '--reports', join(dir, 'merged'), shardDir(3), shardDir(1), shardDir(2)]);
    const whole = await servers.run(['run', ...target(), '--reports', join(dir, 'whole')]);
    expect(whole.code, whole.stdout).toBe(0);
    const mergedResult = resultIn(join(dir, 'merged'));
    const wholeResult = resultIn(join(dir, 'whole'));
    expect(merged.code, merged.stdout + merged.stderr).toBe(whole.code);
    expect(mergedResult.verdict?.verdict).toBe(wholeResult.verdict?.verdict);
    expect(results(mergedResult)).toEqual(results(wholeResult));
    expect(mergedResult.verdict?.requirements.map((r) => [r.id, r.status])).toEqual(wholeResult.verdict?.requirements.map((r) => [r.id, r.status]));
    // ERR-001 judged the error answers of all three shards, not only those of its own.
    const err = mergedResult.checks.find((c) => c.id === 'ERR-001');
    expect(err?.status).toBe('passed');
    const seenIn = Number(/seen in (\d+) check/.exec(err?.note ?? '')?.[1]);
    expect(seenIn).toBeGreaterThan(3);
    // One set of reports, the merged stream among them.
    const stream = readEvents(join(dir, 'merged', 'results.ndjson'));
    expect(stream.filter((e) => e.type === 'run-start').length).toBe(3);
    for (const f of ['junit.xml', 'report.html', 'summary.md']) expect(readFileSync(join(dir, 'merged', f), 'utf8').length).toBeGreaterThan(0);
    expect(merged.stdout).toMatch(/verdict: CONFORMANT/);
  });

  test('folders that do not make one run: one line, exit 2', async () => {
    // Two different seeds: a shard of another run.
    const other = join(dir, 'other-seed');
    const otherRun = await servers.run(['run', ...target().map((a) => (a === SEED ? '7' : a)), '--shard', '2/3', '--only', 'AUTH-001', '--reports', other]);
    expect(otherRun.code).toBe(4);
    const empty = join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    const unsharded = join(dir, 'unsharded');
    mkdirSync(unsharded, { recursive: true });
    writeFileSync(join(unsharded, 'results.ndjson'), readFileSync(join(dir, 'whole', 'results.ndjson')));
    const cases: Array<[string[], RegExp]> = [
      [[shardDir(1), shardDir(2)], /^dss-conformance: merge: shard 3\/3 missing/],
      [[shardDir(1), other, shardDir(3)], /is not a shard of the run in .*: seed 7 there, 20261122 here$/m],
      [[shardDir(1), shardDir(2), shardDir(3), empty], /: no results\.ndjson/],
      [[shardDir(1), shardDir(1), shardDir(2), shardDir(3)], /shard 1\/3 given twice/],
      [[unsharded], /not a shard/],
      [[], /name the report folders/],
    ];
    for (const [dirs, message] of cases) {
      const r = await servers.run(['merge', '--reports', join(dir, 'bad-merge'), ...dirs]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(oneLine(r), r.stderr).toBe(true);
    }
  });

  test('bad --shard values: one line, exit 2', async () => {
    for (const [value, message] of [['0/3', /I must be between 1 and N/], ['4/3', /I must be between 1 and N/], ['x', /must be I\/N/], ['1/99', /at most \d+ shards \(one per spec file\)/]] as const) {
      const r = await servers.run(['run', '--shard', value, '--only', 'AUTH-001']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(oneLine(r)).toBe(true);
    }
  });
});
