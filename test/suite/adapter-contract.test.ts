import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { loadAdapter } from '../../src/adapters/load.ts';
import { pollSettings } from '../../src/adapters/options.ts';
import { runEnd, DEFAULT_POLL, type AdapterContext, type AdapterFactory, type PollSettings, type TargetAdapter } from '../../src/adapters/types.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { startReference } from '../../src/reference/index.ts';
import { runFaults } from '../../src/reference/faults/benign-runs.ts';
import { SOURCE_COLUMNS } from '../../src/suite/webhook-columns.ts';
import { EDGE_ROWS, MAIN_EDITS, PAIR_ROWS } from '../../src/suite/webhook-data.ts';
import { ROOT } from './run-cli.ts';
import { useRunServers } from './run-server-pool.ts';

// The adapter contract for a real service (README › Webhook deliveries: receiver and adapter), for
// the built-in adapter and the documented example alike: a start refused with 409 is tried again
// within the budget, a run is polled with backoff and Retry-After until one of the real service's
// end states, record errors are an outcome of their own, and the budget comes from the profile.

const example = (await import(join(ROOT, 'fixtures/adapters/example-adapter.mjs'))).default as AdapterFactory;
/** The built-in adapter: the declarative one with the reference profile's section (the real service's shape). */
const builtIn: AdapterFactory = (ctx) => loadAdapter(undefined, ctx);
const ADAPTERS: Array<[string, AdapterFactory]> = [['built-in', builtIn], ['example', example]];

// Sources through the reference's test control (test-control-source.mjs) where a test drives an
// adapter in process, without the kit's source database.
const CONTROL = join(ROOT, 'test/suite/test-control-source.mjs');
const { testControlSource } = (await import(CONTROL)) as { testControlSource: (ctx: AdapterContext) => Required<Pick<TargetAdapter, 'createSource' | 'writeRows'>> };

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/** A loopback target answering each request from `answer`; every request is kept with its arrival time. */
class FakeTarget {
  readonly seen: Array<{ method: string; path: string; at: number }> = [];
  answer: (method: string, path: string, n: number) => Answer = () => ({ status: 404 });
  #server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((req: IncomingMessage, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url ?? '';
        const n = this.seen.filter((s) => s.method === req.method && s.path === path).length;
        this.seen.push({ method: req.method ?? '', path, at: Date.now() });
        const a = this.answer(req.method ?? '', path, n);
        res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
        res.end(JSON.stringify(a.body ?? {}));
      });
    });
    await new Promise<void>((r) => this.#server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((r) => this.#server?.close(() => r()));
  }
}

function context(baseUrl: string, poll: PollSettings, apiKey = 'k', options: Record<string, unknown> = {}): AdapterContext {
  return {
    baseUrl, apiKey, runId: 'contract', timeoutMs: 5000, options, poll,
    request: async (method, path, body) => {
      const res = await fetch(new URL(path, baseUrl), {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: Object.fromEntries(res.headers) };
    },
  };
}

const FAST: PollSettings = { initialMs: 10, maxMs: 40, timeoutMs: 2000 };
const target = new FakeTarget();
beforeAll(() => target.start());
afterAll(() => target.close());

const START = '/api/syncs/s1/executions';
const READ = '/api/syncs/s1/executions/e1';
const run = (status: string, extra: Record<string, unknown> = {}): Answer => ({ status: 200, body: { data: { id: 'e1', status, ...extra } } });
const started = (): Answer => ({ status: 200, body: { data: { id: 'e1', status: 'created' } } });
const conflict = (): Answer => ({ status: 409, body: { key: 'conflict', message: 'a run is active', status: 409 } });

async function make(factory: AdapterFactory, poll = FAST): Promise<TargetAdapter> {
  target.seen.length = 0;
  return factory(context(target.url, poll));
}

describe.each(ADAPTERS)('the %s adapter', (_name, factory) => {
  test('a start refused with 409 is tried again with backoff, and succeeds when the run under way has ended', async () => {
    const ad = await make(factory);
    target.answer = (m, p, n) => (m === 'POST' && p === START ? (n < 3 ? conflict() : started()) : { status: 404 });
    expect(await ad.startRun('s1')).toEqual({ id: 'e1' });
    const starts = target.seen.filter((s) => s.path === START);
    expect(starts).toHaveLength(4);
    // Backoff: each wait at least the last one (10, 20, 40 ms), the first try at once.
    const gaps = starts.slice(1).map((s, i) => s.at - starts[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(8);
    expect(gaps[2]).toBeGreaterThanOrEqual(35);
  });

  test('a start still refused with 409 when the budget is spent is an error that says so', async () => {
    const ad = await make(factory, { ...FAST, timeoutMs: 150 });
    target.answer = () => conflict();
    const t0 = Date.now();
    await expect(ad.startRun('s1')).rejects.toThrow(/409.*150 ms|150 ms.*409|409[^]*after/);
    // The budget ends the tries: one that ignored it would retry until the test's own timeout.
    // (The slack is for a busy machine, not a measure of speed.)
    expect(Date.now() - t0).toBeLessThan(150 + 15_000);
  });

  test('any other refusal of a start is an error at once', async () => {
    const ad = await make(factory);
    target.answer = () => ({ status: 400, body: { message: 'not runnable' } });
    await expect(ad.startRun('s1')).rejects.toThrow(/400/);
    expect(target.seen).toHaveLength(1);
  });

  test('a run is read at once, then with backoff capped at maxMs, through every state under way', async () => {
    const ad = await make(factory, { initialMs: 5, maxMs: 20, timeoutMs: 5000 });
    const states = ['created', 'scheduled', 'queued', 'waiting', 'running', 'processing', 'canceling', 'running'];
    target.answer = (_m, _p, n) => run(states[n] ?? 'completed');
    // The waits the adapter asks for, not the times they took: a busy machine stretches every
    // wait, so measured gaps would judge the machine. The adapter's sleeps are the short ones
    // (the HTTP stack's own timers are 500 ms and longer).
    const timers = vi.spyOn(globalThis, 'setTimeout');
    let waits: number[];
    try {
      const outcome = await ad.waitForRun('s1', 'e1', 5000);
      expect(outcome).toMatchObject({ status: 'completed', failed: false });
      waits = timers.mock.calls.map((c) => Number(c[1] ?? 0)).filter((ms) => ms > 0 && ms < 100);
    } finally {
      timers.mockRestore();
    }
    const reads = target.seen.filter((s) => s.path === READ);
    expect(reads).toHaveLength(states.length + 1);
    // At once (no wait before the first read), then 5, 10, 20 and 20 ms on: the cap holds.
    expect(waits).toEqual([5, 10, 20, 20, 20, 20, 20, 20]);
  });

  test.each([
    ['completed', false],
    ['failed', true],
    ['canceled', true],
    ['interrupted', true],
  ])('the end state %s is an outcome (failed: %s)', async (status, failed) => {
    const ad = await make(factory);
    target.answer = (_m, _p, n) => run(n === 0 ? 'queued' : status);
    const outcome = await ad.waitForRun('s1', 'e1', 1000);
    expect(outcome).toMatchObject({ status, failed });
    expect(runEnd(outcome)).toBe(failed ? 'failed' : 'completed');
  });

  test('a run that completed with counts.error > 0 and errors[] completed with record errors', async () => {
    const ad = await make(factory);
    target.answer = () => run('completed', { counts: { total: 5, upserts: 3, error: 2, warnings: 0 }, errors: [{ message: 'receiver answered 410' }, 'batch 2 refused'] });
    const outcome = await ad.waitForRun('s1', 'e1', 1000);
    expect(outcome).toMatchObject({ status: 'completed', failed: false, recordErrors: 2, errors: ['receiver answered 410', 'batch 2 refused'] });
    expect(runEnd(outcome)).toBe('completed with record errors');
    target.answer = () => run('completed', { counts: { total: 5, error: 0 }, errors: [] });
    expect(runEnd(await ad.waitForRun('s1', 'e1', 1000))).toBe('completed');
  });

  test('a state that is neither an end nor under way is an error naming it', async () => {
    const ad = await make(factory);
    target.answer = () => run('exploded');
    await expect(ad.waitForRun('s1', 'e1', 1000)).rejects.toThrow(/"exploded"/);
  });

  test('a 429 while polling is waited out as its Retry-After asks', async () => {
    const ad = await make(factory);
    target.answer = (_m, _p, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: { message: 'slow down' } } : run('completed'));
    const outcome = await ad.waitForRun('s1', 'e1', 5000);
    expect(outcome.status).toBe('completed');
    const reads = target.seen.filter((s) => s.path === READ);
    expect(reads).toHaveLength(2);
    expect(reads[1]!.at - reads[0]!.at).toBeGreaterThanOrEqual(950);
  });

  test('a Retry-After past the budget ends the wait at once', async () => {
    const ad = await make(factory);
    target.answer = () => ({ status: 503, headers: { 'retry-after': '120' } });
    const t0 = Date.now();
    // A budget of 60 s: ending "at once" and waiting the budget out are 60 s apart, whatever the load.
    await expect(ad.waitForRun('s1', 'e1', 60_000)).rejects.toThrow(/Retry-After/);
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  test('a run still under way when the timeout has passed is an error naming its state and the budget', async () => {
    const ad = await make(factory);
    target.answer = () => run('queued');
    const t0 = Date.now();
    await expect(ad.waitForRun('s1', 'e1', 120)).rejects.toThrow(/still queued.*120 ms/);
    // The budget ends the polling: one that ignored it would poll until the test's own timeout.
    expect(Date.now() - t0).toBeLessThan(120 + 15_000);
  });

  test('createSourceConnection, createModel and createModelSync send the real service\'s bodies: a postgresql connection, a model over the table, an updateOrCreate sync to object http', async () => {
    const sent: Array<{ method: string; path: string; body: unknown }> = [];
    const adapter = await factory({
      ...context(target.url, FAST),
      request: async (method, path, body) => {
        sent.push({ method, path, body });
        return { status: 200, json: { data: { id: 'x', name: 'n', configuration: { secret: 's' } } }, headers: {} };
      },
    });
    const db = { hostname: 'db.example.test', port: 5432, database: 'dssc', username: 'u', password: 'pw-secret', ssl: false, schema: 'public' };
    await adapter.createSourceConnection!(db);
    await adapter.createModel!({ name: 'm1', connectionId: 'pg', table: { schema: 'public', name: 'dssc_t1', key: 'id', columns: SOURCE_COLUMNS } });
    await adapter.createModelSync({ name: 'n', connectionId: 'c', sourceId: 'm', key: 'id', fields: [{ source: 'id', target: 'id' }, { source: 'name', target: 'full_name' }] });
    await adapter.createModelSync({
      name: 'n2', connectionId: 'c', sourceId: 'm', key: 'id', fields: [{ source: 'id', target: 'key' }], batchSize: 7, metadata: null, recordRequests: false, syncAllRecords: true, skipInitialBackfill: false,
    });
    // The schema is the tables' (createModel names it), not the connection's.
    const { schema: _schema, ...connection } = db;
    expect(sent[0]).toEqual({ method: 'POST', path: '/api/connections', body: { name: 'dssc-contract-source-db', type: 'postgresql', configuration: connection } });
    expect(sent[1]).toEqual({ method: 'POST', path: '/api/models', body: { name: 'm1', connection_id: 'pg', configuration: { table: 'public.dssc_t1' }, identifier: 'id' } });
    expect(sent[2]).toEqual({
      method: 'POST',
      path: '/api/syncs',
      body: {
        name: 'n', mode: 'updateOrCreate', target: { connection_id: 'c', object: 'http', configuration: {} },
        fields: [{ source: { model_id: 'm', field: 'id' }, target: 'id' }, { source: { model_id: 'm', field: 'name' }, target: 'full_name' }],
        identity: { source: { model_id: 'm', field: 'id' }, target: 'id', function: 'Equality' },
        schedule: { frequency: 'manual' },
      },
    });
    expect(sent[3]!.body).toEqual({
      name: 'n2', mode: 'updateOrCreate', target: { connection_id: 'c', object: 'http', configuration: { batch_size: 7, metadata: null, record_requests: false } },
      fields: [{ source: { model_id: 'm', field: 'id' }, target: 'key' }],
      identity: { source: { model_id: 'm', field: 'id' }, target: 'key', function: 'Equality' },
      sync_all_records: true, skip_initial_backfill: false,
      schedule: { frequency: 'manual' },
    });
  });

  test('a refused source connection is an error without the database password', async () => {
    const adapter = await factory({
      ...context(target.url, FAST),
      request: async () => ({ status: 422, json: { message: 'cannot connect with password pw-secret-42' }, headers: {} }),
    });
    const error = await adapter.createSourceConnection!({ hostname: 'h', port: 1, database: 'd', username: 'u', password: 'pw-secret-42', ssl: true, schema: 'public' }).catch((e: Error) => e);
    expect(String((error as Error).message)).toMatch(/422/);
    expect(String((error as Error).message)).not.toContain('pw-secret-42');
  });
});

describe('the source columns', () => {
  test('declare every JSON type the enumerated rows and edits write into each column', () => {
    const types = new Map(SOURCE_COLUMNS.map((c) => [c.name, new Set(c.types)]));
    const typeOf = (v: unknown) => (v === null ? 'null' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v);
    for (const row of [...EDGE_ROWS, ...PAIR_ROWS]) for (const [c, v] of Object.entries(row)) expect(types.get(c)?.has(typeOf(v) as never), `${c} ${JSON.stringify(v)}`).toBe(true);
    for (const e of MAIN_EDITS) if (typeof e.to !== 'function') expect(types.get(e.column)?.has(typeOf(e.to) as never)).toBe(true);
    expect(SOURCE_COLUMNS.filter((c) => c.key).map((c) => c.name)).toEqual(['id']);
  });
});

describe('poll settings come from the profile', () => {
  test('adapter.poll, with the real service defaults for what it leaves out', () => {
    expect(pollSettings({ name: 'x' })).toEqual(DEFAULT_POLL);
    expect(pollSettings({ name: 'x', adapter: { poll: { timeoutMs: 1234 } } })).toEqual({ ...DEFAULT_POLL, timeoutMs: 1234 });
  });
});

describe('against the reference and its run variants', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver({ host: '127.0.0.1', port: 0, keepInflated: false });
  });
  afterAll(() => receiver.close());

  /**
   * One sync of 5 rows in batches of 2; the receiver answers `then` from batch 2; two runs (the
   * second answered 200 throughout with `recover`). `rereads` are the first run read again after the second.
   */
  async function twoRuns(factory: AdapterFactory, variant: string, then: number, recover = false) {
    const ref = await startReference({ faults: [variant] });
    try {
      const seen: Array<{ method: string; path: string; status: number; runStatus?: unknown }> = [];
      const base = context(ref.baseUrl, FAST, ref.apiKey);
      const ad = await factory({
        ...base,
        request: async (method, path, body) => {
          const res = await base.request(method, path, body);
          seen.push({ method, path, status: res.status, runStatus: (res.json as { data?: { status?: unknown } })?.data?.status });
          return res;
        },
      });
      const channel = receiver.channel(`${variant}-${then}-${Math.random()}`);
      channel.script([200], then);
      const connection = await ad.createWebhookConnection('c', channel.url);
      const rows = testControlSource(base);
      const source = await rows.createSource('s', 'id', SOURCE_COLUMNS);
      await rows.writeRows(source.id, [1, 2, 3, 4, 5].map((i) => ({ id: `r${i}`, email: `${i}@example.com` })));
      const sync = await ad.createModelSync({ name: 'n', connectionId: connection.id, sourceId: source.id, key: 'id', batchSize: 2, fields: [{ source: 'id', target: 'id' }, { source: 'email', target: 'email' }] });
      const outcomes = [];
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        if (i === 1 && recover) channel.script([], 200);
        const r = await ad.startRun(sync.id);
        ids.push(r.id);
        outcomes.push(await ad.waitForRun(sync.id, r.id, 5000));
      }
      const rereads = [await ad.waitForRun(sync.id, ids[0]!, 5000)];
      return { outcomes, seen, rereads };
    } finally {
      await ref.close();
    }
  }

  test.each(ADAPTERS)('%s: runs-busy-after-end answers 409 to the second start, which the adapter waits out', async (_n, factory) => {
    const { outcomes, seen } = await twoRuns(factory, 'runs-busy-after-end', 200);
    expect(seen.filter((s) => s.method === 'POST' && s.path.endsWith('/executions')).map((s) => s.status)).toEqual([200, 409, 200]);
    expect(outcomes.map(runEnd)).toEqual(['completed', 'completed']);
  });

  test.each(ADAPTERS)('%s: runs-pass-through-states shows states under way before the end', async (_n, factory) => {
    const { outcomes, seen } = await twoRuns(factory, 'runs-pass-through-states', 200);
    const states = seen.filter((s) => s.method === 'GET').map((s) => s.runStatus);
    expect(states.slice(0, 5)).toEqual(['created', 'scheduled', 'queued', 'waiting', 'processing']);
    expect(seen.find((s) => s.method === 'POST' && s.path.endsWith('/executions'))?.runStatus).toBe('created');
    expect(outcomes.map(runEnd)).toEqual(['completed', 'completed']);
  });

  test.each(ADAPTERS)('%s: the fault failure-hidden-as-completed ends a run whose receiver failed completed with no record error', async (_n, factory) => {
    const { outcomes } = await twoRuns(factory, 'failure-hidden-as-completed', 410);
    expect(outcomes[0]).toMatchObject({ status: 'completed', failed: false, recordErrors: 0, errors: [] });
    expect(runEnd(outcomes[0]!)).toBe('completed');
  });

  test('every fault of runFaults (benign-runs.ts) has a probe here', () => {
    expect(runFaults.map((f) => f.name)).toEqual(['failure-hidden-as-completed', 'runs-record-errors', 'failed-run-reads-completed-later', 'completed-run-reads-failed-later', 'completed-run-errors-counted-later', 'completed-run-failed-by-empty-next-run', 'failed-run-completed-by-next-run']);
  });

  test.each(ADAPTERS)('%s: the fault runs-record-errors ends a run whose receiver failed completed with record errors', async (_n, factory) => {
    const { outcomes } = await twoRuns(factory, 'runs-record-errors', 410);
    expect(outcomes[0]).toMatchObject({ status: 'completed', failed: false });
    expect(outcomes[0]!.recordErrors).toBeGreaterThan(0);
    expect(runEnd(outcomes[0]!)).toBe('completed with record errors');
  });

  test.each(ADAPTERS)('%s: the fault failed-run-reads-completed-later answers a failed run completed when it is read again', async (_n, factory) => {
    const { outcomes, rereads } = await twoRuns(factory, 'failed-run-reads-completed-later', 410);
    expect(outcomes.map(runEnd)).toEqual(['failed', 'failed']);
    expect(rereads[0]).toMatchObject({ status: 'completed', failed: false, recordErrors: 0 });
  });

  test.each(ADAPTERS)('%s: the fault completed-run-reads-failed-later answers a completed run failed when it is read again', async (_n, factory) => {
    const { outcomes, rereads } = await twoRuns(factory, 'completed-run-reads-failed-later', 200);
    expect(outcomes.map(runEnd)).toEqual(['completed', 'completed']);
    expect(rereads[0]).toMatchObject({ status: 'failed', failed: true });
  });

  test.each(ADAPTERS)('%s: the fault completed-run-errors-counted-later counts every record of a completed run an error when it is read again', async (_n, factory) => {
    const { outcomes, rereads } = await twoRuns(factory, 'completed-run-errors-counted-later', 200);
    expect(outcomes.map(runEnd)).toEqual(['completed', 'completed']);
    expect(rereads[0]).toMatchObject({ status: 'completed', failed: false, recordErrors: 5 });
  });

  test.each(ADAPTERS)('%s: the fault completed-run-failed-by-empty-next-run answers a completed run failed once a later run sent nothing', async (_n, factory) => {
    const { outcomes, rereads } = await twoRuns(factory, 'completed-run-failed-by-empty-next-run', 200);
    expect(outcomes.map(runEnd)).toEqual(['completed', 'completed']);
    expect(rereads[0]).toMatchObject({ status: 'failed', failed: true });
  });

  test.each(ADAPTERS)('%s: the fault failed-run-completed-by-next-run answers a failed run completed once a later run completed', async (_n, factory) => {
    const { outcomes, rereads } = await twoRuns(factory, 'failed-run-completed-by-next-run', 410, true);
    expect(outcomes.map(runEnd)).toEqual(['failed', 'completed']);
    expect(rereads[0]).toMatchObject({ status: 'completed', failed: false });
  });

  test.each(ADAPTERS)('%s: runs-completed-with-errors ends a run whose receiver failed in a word the profile maps to failed', async (_n, factory) => {
    const { outcomes, rereads } = await twoRuns(factory, 'runs-completed-with-errors', 410);
    expect(outcomes[0]).toMatchObject({ status: 'completed_with_errors', failed: true });
    expect(outcomes[0]!.recordErrors).toBeGreaterThan(0);
    expect(rereads[0]).toMatchObject({ status: 'completed_with_errors', failed: true });
  });
});

describe('adapter options and the poll timeout through the CLI', () => {
  // Judged by a run's output and results.json only: one long-lived child runs them one after
  // another (test/suite/run-server-pool.ts), the kit loaded once instead of once per run.
  const servers = useRunServers(1, { sharedSourceDb: true });
  const dir = mkdtempSync(join(tmpdir(), 'dssc-adapter-contract-'));
  const profile = (extra: Record<string, unknown>) => {
    const file = join(dir, `profile-${Math.random().toString(36).slice(2)}.json`);
    const base = JSON.parse(readFileSync(join(ROOT, 'fixtures/profiles/reference.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...base, $schema: undefined, ...extra }));
    return file;
  };

  test('--adapter-option KEY=VALUE reaches the adapter over the profile\'s adapter.options; values keep their commas', async () => {
    const spy = join(dir, 'spy.mjs');
    writeFileSync(spy, `export default (ctx) => ({ name: 'spy', async createWebhookConnection() { const e = new Error('options ' + JSON.stringify(ctx.options) + ' poll ' + JSON.stringify(ctx.poll)); e.name = 'Unsupported'; throw e; }, async createSource() {}, async writeRows() {}, async createModelSync() {}, async startRun() {}, async waitForRun() {} });\n`);
    const file = profile({ adapter: { options: { region: 'eu', source_connection_id: '1' }, poll: { initialMs: 7, timeoutMs: 4321 } } });
    const r = await servers.run(['run', '--adapter', spy, '--profile', file, '--adapter-option', 'source_connection_id=42', '--adapter-option', 'tables=a,b', '--only', 'WH-001', '--seed', '1']);
    expect(r.result?.checks[0]?.reason).toBe('unsupported: the adapter could not create a webhook connection: options {"region":"eu","source_connection_id":"42","tables":"a,b"} poll {"initialMs":7,"maxMs":5000,"timeoutMs":4321}');
    expect(r.stdout).toMatch(/--adapter-option source_connection_id=42 --adapter-option tables=a,b/);
  });

  test.each([
    [['--adapter-option', 'no-equals'], /^dss-conformance: --adapter-option "no-equals": must be KEY=VALUE/],
    [['--adapter-option', '=value'], /^dss-conformance: --adapter-option "=value": must be KEY=VALUE/],
    [['--adapter-option', 'db_password=hunter2'], /^dss-conformance: --adapter-option db_password: a secret is not given on the command line/],
    [['--adapter-option', 'database_url=postgres://u:hunter2@db/x'], /^dss-conformance: --adapter-option database_url: a secret/],
  ])('%j is one line, exit 2, no secret echoed', async (args, message) => {
    const r = await servers.run(['run', ...args, '--seed', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr + r.stdout).not.toContain('hunter2');
  });

  test('an adapter that cannot read the capture log (captured: null) gets WH-022 skipped with that reason, never passed', async () => {
    const blind = join(dir, 'blind.mjs');
    writeFileSync(blind, `import make from ${JSON.stringify(join(ROOT, 'fixtures/adapters/example-adapter.mjs'))};\nexport default async (ctx) => { const a = await make(ctx); return { ...a, async waitForRun(...args) { return { ...(await a.waitForRun(...args)), captured: null }; } }; };\n`);
    const r = await servers.run(['run', '--adapter', blind, '--only', 'WH-022', '--seed', '1']);
    expect(r.result?.checks.map((c) => [c.id, c.status, c.reason])).toEqual([['WH-022', 'skipped', 'precondition not met: the capture log is not observable: the adapter returns captured: null']]);
  });

  test('the profile\'s adapter.poll.timeoutMs bounds the wait for a run: runs that pass through states for longer are errors', async () => {
    const file = profile({ adapter: { poll: { initialMs: 10, maxMs: 40, timeoutMs: 100 } } });
    const r = await servers.run(['run', '--profile', file, '--variant', 'runs-pass-through-states', '--only', 'WH-001', '--seed', '1']);
    expect(r.result?.checks.map((c) => [c.id, c.status]), r.stdout + r.stderr).toEqual([['WH-001', 'error']]);
    expect(r.result?.checks[0]?.reason).toMatch(/^the adapter could not wait for the run to end: run \S+: still \w+ after \d+ ms \(budget 100 ms\)$/);
  });
});
