import { createServer, type AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { call, CACHE_DELAY_MS, expectError, sleep, start } from './helpers.ts';
import { createWebhookSync, recordsOf, runOnce, waitForRun } from './webhook-helpers.ts';

// The reference's postgresql connections really connect (README › Connections, Models): schema
// discovery in the background, models over a table, and runs that read the table anew.

const PASSWORD = 'pglite-secret-password';
let db: PGlite;
let server: PGLiteSocketServer;
let ref: RunningReference;
let receiver: Receiver;
let port: number;

beforeAll(async () => {
  db = await PGlite.create();
  server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
  await server.start();
  port = Number(server.getServerConn().split(':').at(-1));
  await db.exec(`
    CREATE TABLE people (id bigint PRIMARY KEY, email text, name text, score double precision, active boolean, tags jsonb, amount numeric);
    CREATE SCHEMA crm;
    CREATE TABLE crm.accounts (code text PRIMARY KEY, title text);
    INSERT INTO people VALUES
      (1, 'a@example.com', 'Ann', 1.5, true, '{"k":[1,"x",null]}', 10.25),
      (2, 'b@example.com', NULL, 2, false, '[1,2]', 3),
      (9007199254740991, 'big@example.com', 'Big', 0, NULL, NULL, NULL);
  `);
  [ref, receiver] = await Promise.all([start(), startReceiver()]);
}); // PGlite takes seconds to start, a minute and more on a saturated machine: the default hook timeout (vitest.config.ts)

afterAll(async () => {
  await ref?.close();
  await receiver?.close();
  await server?.stop();
  await db?.close();
});

function database(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { hostname: '127.0.0.1', port, database: 'postgres', username: 'postgres', password: PASSWORD, ssl: false, ...overrides };
}

async function createDatabaseConnection(configuration: Record<string, unknown>): Promise<any> {
  const answer = await call(ref, 'POST', '/api/connections', { body: { name: 'db', type: 'postgresql', configuration } });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data;
}

async function settled(id: string, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call(ref, 'GET', `/api/connections/${id}`);
    expect(answer.status, answer.text).toBe(200);
    if (answer.json.data.status !== 'pending') return answer.json.data;
    if (Date.now() > deadline) throw new Error(`connection ${id} still pending`);
    await sleep(20);
  }
}

function bulkSync(sourceId: string, destinationId: string, schemas?: string[]): Promise<any> {
  const body: Record<string, unknown> = { name: 'bulk', source_connection_id: sourceId, destination_connection_id: destinationId, mode: 'replicate', schedule: { frequency: 'manual' }, destination_configuration: { schema: 'x' } };
  if (schemas) body.schemas = schemas;
  return call(ref, 'POST', '/api/bulk/syncs', { body });
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

describe('schema discovery', () => {
  test('lists the user tables; the cache is ready only after discovery and the delay', async () => {
    const created = await createDatabaseConnection(database());
    expect(created).toMatchObject({ status: 'pending', status_error: null });
    expect(JSON.stringify(created)).not.toContain(PASSWORD);
    const destination = await createDatabaseConnection(database({ hostname: 'dest.dssc-example.test' }));
    expectError(await bulkSync(created.id, destination.id), 400, 'schemas_not_cached');
    const done = await settled(created.id);
    expect(done).toMatchObject({ status: 'healthy', status_error: null });
    await sleep(CACHE_DELAY_MS);
    const answer = await bulkSync(created.id, destination.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.schemas).toEqual(['crm.accounts', 'public.people']);
    const named = await bulkSync(created.id, destination.id, ['public.later']);
    expect(named.json.metadata.field).toBe('/schemas/0');
    // A table created after discovery is found when a bulk sync names it (after the 1 s refresh interval).
    await db.exec('CREATE TABLE later (id int)');
    await sleep(1000);
    const later = await bulkSync(created.id, destination.id, ['public.later']);
    expect(later.status, later.text).toBe(200);
    await db.exec('DROP TABLE later');
  });

  test('an unreachable database never caches, and the connection says why without the password', async () => {
    const closed = await freePort();
    const created = await createDatabaseConnection(database({ port: closed }));
    const done = await settled(created.id);
    expect(done.status).toBe('failed');
    expect(done.status_error).toMatch(/ECONNREFUSED/);
    expect(done.status_error).not.toMatch(/\n/);
    expect(JSON.stringify(done)).not.toContain(PASSWORD);
    const destination = await createDatabaseConnection(database({ hostname: 'dest.dssc-example.test' }));
    await sleep(CACHE_DELAY_MS * 2);
    expectError(await bulkSync(created.id, destination.id), 400, 'schemas_not_cached');
  });

  test('a made-up .test hostname is not looked up: fixed source objects, cached after the delay', async () => {
    const created = await createDatabaseConnection(database({ hostname: 'db.dssc-example.test', port: 5432 }));
    expect(created.status).toBe('healthy');
    await sleep(CACHE_DELAY_MS + 10);
    const answer = await bulkSync(created.id, created.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.schemas).toEqual(['public.orders', 'public.users']);
  });
});

describe('closing', () => {
  test('ends discoveries under way at once, even against a server that never answers', async () => {
    const sockets: Array<import('node:net').Socket> = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const own = await start();
    try {
      const configuration = database({ port: (silent.address() as AddressInfo).port });
      for (let i = 0; i < 6; i++) expect((await call(own, 'POST', '/api/connections', { body: { name: 'db', type: 'postgresql', configuration } })).status).toBe(200);
      // Four discoveries connect (however long a busy machine takes), and no fifth follows.
      for (const until = Date.now() + 60_000; sockets.length < 4 && Date.now() < until; ) await sleep(50);
      await sleep(200);
      expect(sockets.length).toBe(4); // at most 4 discoveries at once
      const began = Date.now();
      await own.close();
      // At once, against a server that never answers (waiting on it would last to the test's timeout).
      expect(Date.now() - began).toBeLessThan(10_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});

describe('models', () => {
  let connectionId: string;
  beforeAll(async () => {
    connectionId = (await createDatabaseConnection(database())).id;
  });

  test('POST /api/models answers the model with its table\'s fields, and echoes other fields', async () => {
    const answer = await call(ref, 'POST', '/api/models', { body: { name: 'people', connection_id: connectionId, configuration: { table: 'people' }, identifier: 'id', labels: ['x'] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({ name: 'people', connection_id: connectionId, configuration: { table: 'public.people' }, identifier: 'id', labels: ['x'] });
    expect(answer.json.data.fields.map((f: any) => f.name)).toEqual(['id', 'email', 'name', 'score', 'active', 'tags', 'amount']);
    const read = await call(ref, 'GET', `/api/models/${answer.json.data.id}`);
    expect(read.json).toEqual(answer.json);
  });

  test('identifier is optional, as in the real service: the table\'s primary key keys the rows', async () => {
    const answer = await call(ref, 'POST', '/api/models', { body: { name: 'accounts', connection_id: connectionId, configuration: { table: 'crm.accounts' } } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({ configuration: { table: 'crm.accounts' }, identifier: 'code' });
    // Without a single-column primary key there is nothing to key by: then it must be given.
    await db.exec('CREATE TABLE crm.loose (a int, b int); CREATE TABLE crm.pair (a int, b int, PRIMARY KEY (a, b));');
    for (const table of ['crm.loose', 'crm.pair']) {
      const refused = await call(ref, 'POST', '/api/models', { body: { name: 'm', connection_id: connectionId, configuration: { table } } });
      expectError(refused, 400, 'validation_error');
      expect(refused.json.message).toBe(`/identifier is required: ${table} has no single-column primary key to key its rows by`);
      const given = await call(ref, 'POST', '/api/models', { body: { name: 'm', connection_id: connectionId, configuration: { table }, identifier: 'a' } });
      expect(given.status, given.text).toBe(200);
    }
  });

  test('refuses an unknown table or identifier, a non-database connection, an unreachable database', async () => {
    const post = (body: Record<string, unknown>) => call(ref, 'POST', '/api/models', { body: { name: 'm', connection_id: connectionId, configuration: { table: 'people' }, identifier: 'id', ...body } });
    expect((await post({ configuration: { table: 'crm.nope' } })).json.metadata.field).toBe('/configuration/table');
    expect((await post({ identifier: 'nope' })).json.metadata.field).toBe('/identifier');
    expect((await post({ connection_id: 'nope' })).json.metadata.field).toBe('/connection_id');
    const webhook = await call(ref, 'POST', '/api/connections', { body: { name: 'w', type: 'webhook', configuration: { url: 'http://127.0.0.1:1/' } } });
    expect((await post({ connection_id: webhook.json.data.id })).json.metadata.field).toBe('/connection_id');
    const down = await createDatabaseConnection(database({ port: await freePort() }));
    const refused = await post({ connection_id: down.id });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/cannot be read: .*ECONNREFUSED/);
    expect(refused.text).not.toContain(PASSWORD);
  });
});

describe('a model sync to a webhook', () => {
  const selection = [
    { field: 'id', target: 'id' },
    { field: 'email', target: 'email' },
    { field: 'name', target: 'full_name' },
    { field: 'score', target: 'score' },
    { field: 'active', target: 'active' },
    { field: 'tags', target: 'tags' },
    { field: 'amount', target: 'amount' },
  ];

  async function model(table: string, identifier: string): Promise<string> {
    const connectionId = (await createDatabaseConnection(database())).id;
    const answer = await call(ref, 'POST', '/api/models', { body: { name: table, connection_id: connectionId, configuration: { table }, identifier } });
    expect(answer.status, answer.text).toBe(200);
    return answer.json.data.id;
  }

  test('delivers the rows typed as JSON, then only what changed', async () => {
    await db.exec('CREATE TABLE run_people AS SELECT * FROM people; ALTER TABLE run_people ADD PRIMARY KEY (id);');
    const modelId = await model('run_people', 'id');
    const channel = receiver.channel('pg-run');
    const { syncId } = await createWebhookSync(ref, channel, modelId, { selection });
    const first = await runOnce(ref, channel, syncId);
    expect(first.run).toMatchObject({ status: 'completed', counts: expect.objectContaining({ total: 3, error: 0 }) });
    expect(recordsOf(first.deliveries).map((r) => r.fields)).toEqual([
      { id: 1, email: 'a@example.com', full_name: 'Ann', score: 1.5, active: true, tags: { k: [1, 'x', null] }, amount: 10.25 },
      { id: 2, email: 'b@example.com', full_name: null, score: 2, active: false, tags: [1, 2], amount: 3 },
      { id: 9007199254740991, email: 'big@example.com', full_name: 'Big', score: 0, active: null, tags: null, amount: null },
    ]);

    await db.exec(`UPDATE run_people SET name = 'Bob' WHERE id = 2; INSERT INTO run_people (id, email) VALUES (3, 'c@example.com');`);
    const second = await runOnce(ref, channel, syncId);
    expect(second.run).toMatchObject({ status: 'completed', counts: expect.objectContaining({ total: 2, error: 0 }) });
    expect(recordsOf(second.deliveries).map((r) => r.fields.id)).toEqual([2, 3]);
    expect((await runOnce(ref, channel, syncId)).run).toMatchObject({ status: 'completed', counts: expect.objectContaining({ total: 0, error: 0 }) });
  });

  test('reads a large table in pages, in key order', async () => {
    await db.exec(`CREATE TABLE crm.many (code text PRIMARY KEY, n int); INSERT INTO crm.many SELECT 'c' || lpad(g::text, 5, '0'), g FROM generate_series(1, 2500) g;`);
    const modelId = await model('crm.many', 'code');
    const channel = receiver.channel('pg-many');
    const { syncId } = await createWebhookSync(ref, channel, modelId, { selection: [{ field: 'code', target: 'code' }, { field: 'n', target: 'n' }], configuration: { batch_size: 1000 } });
    const { run, deliveries } = await runOnce(ref, channel, syncId);
    expect(run).toMatchObject({ status: 'completed', counts: expect.objectContaining({ total: 2500, error: 0 }), batches_delivered: 3 });
    expect(recordsOf(deliveries).map((r) => r.fields.n)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
  });

  test('skip backfill and full sync work over a table', async () => {
    await db.exec('CREATE TABLE skip_people AS SELECT * FROM people;');
    const modelId = await model('skip_people', 'id');
    const channel = receiver.channel('pg-skip');
    const { syncId } = await createWebhookSync(ref, channel, modelId, { selection: selection.slice(0, 2), skip_initial_backfill: true });
    expect((await runOnce(ref, channel, syncId)).run).toMatchObject({ status: 'completed', counts: expect.objectContaining({ total: 0, error: 0 }) });
    await db.exec(`UPDATE skip_people SET email = 'new@example.com' WHERE id = 1`);
    expect(recordsOf((await runOnce(ref, channel, syncId)).deliveries).map((r) => r.fields)).toEqual([{ id: 1, email: 'new@example.com' }]);
    const all = receiver.channel('pg-all');
    const full = await createWebhookSync(ref, all, modelId, { selection: selection.slice(0, 1), sync_all_records: true });
    await runOnce(ref, all, full.syncId);
    expect((await runOnce(ref, all, full.syncId)).run).toMatchObject({ counts: expect.objectContaining({ total: 3, error: 0 }) });
  });

  test('a table that disappeared fails the run with the reason', async () => {
    await db.exec('CREATE TABLE gone (id int PRIMARY KEY, email text);');
    const modelId = await model('gone', 'id');
    const channel = receiver.channel('pg-gone');
    const { syncId } = await createWebhookSync(ref, channel, modelId, { selection: [{ field: 'id', target: 'id' }] });
    await db.exec('DROP TABLE gone;');
    const started = await call(ref, 'POST', `/api/syncs/${syncId}/executions`, { body: {} });
    const run = await waitForRun(ref, syncId, started.json.data.id);
    expect(run.status).toBe('failed');
    expect(run.errors[0]).toMatch(/public\.gone could not be read: .*does not exist/);
  });

  test('a field that is not a column of the model is refused at sync creation', async () => {
    const modelId = await model('people', 'id');
    const connection = await call(ref, 'POST', '/api/connections', { body: { name: 'w', type: 'webhook', configuration: { url: 'http://127.0.0.1:1/' } } });
    const answer = await call(ref, 'POST', '/api/syncs', {
      body: { name: 's', target: { connection_id: connection.json.data.id, object: 'http' }, fields: [{ source: { model_id: modelId, field: 'nope' }, target: 'x' }] },
    });
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe('/fields/0/source/field');
  });
});
