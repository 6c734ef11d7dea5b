import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { declarativeAdapter } from '../../src/adapters/declarative.ts';
import { loadAdapter } from '../../src/adapters/load.ts';
import { checkDeclarative, type DeclarativeSpec } from '../../src/adapters/declarative-spec.ts';
import type { AdapterContext, PollSettings } from '../../src/adapters/types.ts';

// The declarative adapter against a small fake target shaped unlike the reference (other paths,
// no {data} envelope, its own status words): every operation is only what the spec says.

const SPEC: DeclarativeSpec = {
  createWebhookConnection: { path: '/v2/hooks', body: { label: '{{name}}', endpoint: '{{url}}' }, id: '/hook/uid', secret: '/hook/signing/token' },
  createSourceConnection: {
    method: 'PUT',
    path: '/v2/databases/{{name}}',
    body: { kind: 'pg', dsn: 'postgres://{{db.username}}@{{db.hostname}}:{{db.port}}/{{db.database}}', password: '{{db.password}}', tls: '{{db.ssl}}' },
    id: '/uid',
  },
  createModel: { path: '/v2/datasets', body: { label: '{{name}}', database: '{{connectionId}}', table: { schema: '{{table.schema}}', name: '{{table.name}}' }, primary: '{{table.key}}' }, id: '/uid' },
  createModelSync: {
    path: '/v2/pipelines',
    body: {
      title: '{{name}}',
      from: '{{sourceId}}',
      to: '{{connectionId}}',
      columns: { $each: 'fields', as: 'f', value: ['{{f.source}}', '{{f.target}}'] },
      key: { column: '{{key}}', as: '{{keyTarget}}' },
      options: { batch: '{{batchSize}}', meta: '{{metadata}}', log: '{{recordRequests}}', full: '{{syncAllRecords}}', skip: '{{skipInitialBackfill}}' },
    },
    id: '/pipeline/uid',
    name: '/pipeline/title',
  },
  startRun: { path: '/v2/pipelines/{{syncId}}/jobs', id: '/job' },
  readRun: {
    path: '/v2/pipelines/{{syncId}}/jobs/{{runId}}',
    status: '/state',
    errorCount: '/stats/rejected',
    errors: '/problems',
    errorMessage: '/text',
    captureLog: '/log',
    capture: { request: '/sent', status: '/got/code', error: '/got/failure' },
  },
  statuses: { inProgress: ['PENDING', 'BUSY'], completed: ['DONE'], failed: ['ERR'], canceled: ['STOPPED'] },
};

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

const seen: Array<{ method: string; path: string; body: unknown; at: number }> = [];
let answer: (method: string, path: string, n: number) => Answer = () => ({ status: 404 });
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      const n = seen.filter((s) => s.method === req.method && s.path === path).length;
      seen.push({ method: req.method ?? '', path, body: raw ? JSON.parse(raw) : undefined, at: Date.now() });
      const a = answer(req.method ?? '', path, n);
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(JSON.stringify(a.body ?? {}));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  seen.length = 0;
});

const FAST: PollSettings = { initialMs: 10, maxMs: 40, timeoutMs: 2000 };

function context(poll = FAST): AdapterContext {
  return {
    baseUrl, apiKey: 'api-key-secret', runId: 'run1', timeoutMs: 5000, options: {}, poll,
    request: async (method, path, body) => {
      const res = await fetch(new URL(path, baseUrl), { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: Object.fromEntries(res.headers) };
    },
  };
}

function adapter(spec: DeclarativeSpec = SPEC, poll = FAST) {
  return declarativeAdapter(context(poll), spec);
}

const job = (state: string, extra: Record<string, unknown> = {}): Answer => ({ status: 200, body: { state, ...extra } });

describe('the declarative adapter sends what its spec says', () => {
  test('the spec used here is a valid one', () => {
    expect(checkDeclarative(SPEC)).toBeUndefined();
  });

  test('every create operation: method, path, body from the templates; ids at the pointers', async () => {
    answer = (_m, p) =>
      p === '/v2/hooks' ? { status: 201, body: { hook: { uid: 'h1', signing: { token: 'tok' } } } }
      : p.startsWith('/v2/databases/') ? { status: 200, body: { uid: 42 } }
      : p === '/v2/datasets' ? { status: 200, body: { uid: 'd1' } }
      : p === '/v2/pipelines' ? { status: 200, body: { pipeline: { uid: 'p1', title: 'as stored' } } }
      : { status: 404 };
    const ad = adapter();
    expect(await ad.createWebhookConnection('hook', 'http://127.0.0.1:9/c/1')).toEqual({ id: 'h1', secret: 'tok' });
    expect(await ad.createSourceConnection!({ hostname: 'db.test', port: 5433, database: 'k', username: 'u', password: 'pw-1234', ssl: true, schema: 'public' })).toEqual({ id: '42' });
    expect(await ad.createModel!({ name: 'm', connectionId: '42', table: { schema: 'public', name: 't1', key: 'id', columns: [] } })).toEqual({ id: 'd1' });
    expect(await ad.createModelSync({ name: 'p', connectionId: 'h1', sourceId: 'd1', key: 'id', fields: [{ source: 'id', target: 'key' }, { source: 'e', target: 'email' }], batchSize: 3, metadata: null })).toEqual({ id: 'p1', name: 'as stored' });
    expect(seen.map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      { method: 'POST', path: '/v2/hooks', body: { label: 'hook', endpoint: 'http://127.0.0.1:9/c/1' } },
      { method: 'PUT', path: '/v2/databases/dssc-run1-source-db', body: { kind: 'pg', dsn: 'postgres://u@db.test:5433/k', password: 'pw-1234', tls: true } },
      { method: 'POST', path: '/v2/datasets', body: { label: 'm', database: '42', table: { schema: 'public', name: 't1' }, primary: 'id' } },
      { method: 'POST', path: '/v2/pipelines', body: { title: 'p', from: 'd1', to: 'h1', columns: [['id', 'key'], ['e', 'email']], key: { column: 'id', as: 'key' }, options: { batch: 3, meta: null } } },
    ]);
  });

  test('an answer without the id at its pointer, or a refusal, is an error saying which', async () => {
    answer = () => ({ status: 200, body: { hook: { uid: '' } } });
    await expect(adapter().createWebhookConnection('h', 'u')).rejects.toThrow('creating a webhook connection: the answer has no /hook/uid (a non-empty string)');
    answer = () => ({ status: 422, body: { message: 'bad url' } });
    await expect(adapter().createWebhookConnection('h', 'u')).rejects.toThrow('creating a webhook connection answered 422 (bad url)');
  });

  test('secrets are never in an error: not the database password, not the API key, even when the target echoes them', async () => {
    answer = () => ({ status: 400, body: { message: 'login failed for pw-1234 with api-key-secret' } });
    const error = (await adapter().createSourceConnection!({ hostname: 'h', port: 1, database: 'd', username: 'u', password: 'pw-1234', ssl: false, schema: 'public' }).catch((e: Error) => e)) as Error;
    expect(error.message).toBe('creating a source connection answered 400 (login failed for [REDACTED] with [REDACTED])');
  });

  test('a start without body sends none, and a 409 is waited out with backoff', async () => {
    answer = (_m, _p, n) => (n < 2 ? { status: 409, body: { message: 'busy' } } : { status: 202, body: { job: 'j1' } });
    expect(await adapter().startRun('p/1')).toEqual({ id: 'j1' });
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([['POST', '/v2/pipelines/p%2F1/jobs', undefined], ['POST', '/v2/pipelines/p%2F1/jobs', undefined], ['POST', '/v2/pipelines/p%2F1/jobs', undefined]]);
    expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(15);
  });
});

describe('reading a run with the target\'s status words and pointers', () => {
  test.each([
    ['DONE', false],
    ['ERR', true],
    ['STOPPED', true],
  ])('through the words under way to %s (failed: %s)', async (end, failed) => {
    answer = (_m, _p, n) => job(['PENDING', 'BUSY'][n] ?? end);
    const outcome = await adapter().waitForRun('p1', 'j1', 2000);
    expect(outcome).toEqual({ status: end, failed, recordErrors: 0, errors: [], captured: null });
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(Array(3).fill('GET /v2/pipelines/p1/jobs/j1'));
  });

  test('a word in none of the lists is an error naming it, and the words there are', async () => {
    answer = () => job('completed');
    await expect(adapter().waitForRun('p1', 'j1', 2000)).rejects.toThrow('run j1 has status "completed", which is neither an end (DONE, ERR, STOPPED) nor a state under way (PENDING, BUSY)');
    answer = () => ({ status: 200, body: {} });
    await expect(adapter().waitForRun('p1', 'j1', 2000)).rejects.toThrow('run j1 has status undefined');
  });

  test('record errors from the count at its pointer, messages from the list with the message pointer', async () => {
    answer = () => job('DONE', { stats: { rejected: 2 }, problems: [{ text: 'receiver answered 410' }, 'batch 2 refused', { code: 9 }] });
    expect(await adapter().waitForRun('p1', 'j1', 2000)).toMatchObject({ status: 'DONE', failed: false, recordErrors: 2, errors: ['receiver answered 410', 'batch 2 refused', '{"code":9}'] });
    answer = () => job('DONE', { problems: [{ text: 'a' }] });
    expect((await adapter().waitForRun('p1', 'j1', 2000)).recordErrors).toBe(1);
  });

  test('the capture log at its pointer, entries read with the entry pointers; null there is an empty log', async () => {
    answer = () => job('DONE', { log: [{ sent: { url: '/c' }, got: { code: 200 } }, { sent: { url: '/c' }, got: { failure: 'ECONNRESET' } }, { sent: null }] });
    expect((await adapter().waitForRun('p1', 'j1', 2000)).captured).toEqual([
      { request: { url: '/c' }, response: { status: 200 } },
      { request: { url: '/c' }, response: { error: 'ECONNRESET' } },
      { request: null, response: null },
    ]);
    answer = () => job('DONE', { log: null });
    expect((await adapter().waitForRun('p1', 'j1', 2000)).captured).toEqual([]);
  });

  test('no captureLog pointer: the log is not observable (captured null, WH-022 skipped), whatever the run holds', async () => {
    const { captureLog: _dropped, ...readRun } = SPEC.readRun;
    answer = () => job('DONE', { log: [{ sent: {}, got: { code: 200 } }] });
    expect((await adapter({ ...SPEC, readRun }).waitForRun('p1', 'j1', 2000)).captured).toBeNull();
  });

  test('a 429 with Retry-After is waited as asked; one past the budget ends the wait at once', async () => {
    answer = (_m, _p, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : job('DONE'));
    await adapter().waitForRun('p1', 'j1', 5000);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    answer = () => ({ status: 503, headers: { 'retry-after': '120' } });
    const t0 = Date.now();
    // At once: an adapter that waited would take the whole 60 s budget (or the 120 s asked for);
    // half the budget tells the two apart on a busy machine too.
    await expect(adapter().waitForRun('p1', 'j1', 60_000)).rejects.toThrow(/Retry-After asks for 120000 ms/);
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  test('a run still under way after the budget is an error naming its word and the budget', async () => {
    answer = () => job('BUSY');
    await expect(adapter().waitForRun('p1', 'j1', 120)).rejects.toThrow(/^run j1: still BUSY after \d+ ms \(budget 120 ms\)$/);
  });
});

describe('the built-in adapter is the declarative one', () => {
  test('with the profile\'s adapter.declarative when it has one', async () => {
    answer = () => ({ status: 200, body: { hook: { uid: 'h9', signing: { token: 't' } } } });
    const ad = await loadAdapter(undefined, context(), SPEC);
    expect(ad.name).toBe('built-in (the profile\'s adapter.declarative)');
    expect(await ad.createWebhookConnection('h', 'u')).toEqual({ id: 'h9', secret: 't' });
    expect(seen.map((s) => s.path)).toEqual(['/v2/hooks']);
  });

  test('else with the reference profile\'s: the real service\'s shape, no test control', async () => {
    answer = () => ({ status: 200, body: { data: { id: 'c1', configuration: { secret: 's' } } } });
    const ad = await loadAdapter(undefined, context());
    expect(ad.name).toBe('built-in (the real service\'s shape)');
    expect(typeof ad.createSource).toBe('undefined');
    await ad.createWebhookConnection('h', 'http://r/c');
    expect(seen.map(({ method, path, body }) => ({ method, path, body }))).toEqual([{ method: 'POST', path: '/api/connections', body: { name: 'h', type: 'webhook', configuration: { url: 'http://r/c' } } }]);
  });
});
