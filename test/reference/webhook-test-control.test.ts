import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { call, createConnection, expectError, start } from './helpers.ts';
import { createSource, rows } from './webhook-helpers.ts';

// The reference's test-control endpoints (/_reference/, not service API) and what POST /api/syncs
// checks of the source its fields name.

let ref: RunningReference;
let webhook: string;
beforeAll(async () => {
  ref = await start();
  webhook = await createConnection(ref, 'webhook');
});
afterAll(() => ref.close());

describe('POST /_reference/sources', () => {
  test('creates an empty source keyed by a column', async () => {
    const answer = await call(ref, 'POST', '/_reference/sources', { body: { name: 'people', key: 'id' } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toEqual({ data: { id: expect.any(String), name: 'people', key: 'id' } });
    expect(ref.store.getSource(answer.json.data.id)!.rows.size).toBe(0);
  });

  test('needs the API credential, not the version header', async () => {
    expectError(await call(ref, 'POST', '/_reference/sources', { auth: null, body: { name: 'x', key: 'id' } }), 403, 'forbidden');
    const answer = await call(ref, 'POST', '/_reference/sources', { body: { name: 'x', key: 'id' } });
    expect(answer.status).toBe(200);
  });

  test.each([
    ['no name', { key: 'id' }, '/name'],
    ['an empty key', { name: 'x', key: '' }, '/key'],
    ['a key that is not a string', { name: 'x', key: 1 }, '/key'],
    ['an array body', [], ''],
  ])('%s is 400 validation_error naming %s', async (_label, body, field) => {
    const answer = await call(ref, 'POST', '/_reference/sources', { body });
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe(field);
  });
});

describe('PUT /_reference/sources/{id}/rows', () => {
  test('inserts and replaces rows by key, keeping the order keys were first written', async () => {
    const source = await createSource(ref);
    const first = await call(ref, 'PUT', `/_reference/sources/${source}/rows`, { body: { rows: rows(3) } });
    expect(first.json).toEqual({ data: { written: 3, total: 3 } });
    const second = await call(ref, 'PUT', `/_reference/sources/${source}/rows`, { body: { rows: [{ id: 'r001', email: null }, { id: 7, active: true }] } });
    expect(second.json).toEqual({ data: { written: 2, total: 4 } });
    const stored = ref.store.getSource(source)!.rows;
    expect([...stored.keys()]).toEqual(['r000', 'r001', 'r002', 7]);
    expect(stored.get('r001')).toEqual({ id: 'r001', email: null });
  });

  test('1 and "1" are different keys', async () => {
    const source = await createSource(ref);
    const answer = await call(ref, 'PUT', `/_reference/sources/${source}/rows`, { body: { rows: [{ id: 1 }, { id: '1' }] } });
    expect(answer.json.data.total).toBe(2);
  });

  test('takes bodies above the API body limit (1 MiB), up to 32 MiB', async () => {
    const source = await createSource(ref);
    const many = Array.from({ length: 20_000 }, (_, i) => ({ id: i, text: 'x'.repeat(80) }));
    const answer = await call(ref, 'PUT', `/_reference/sources/${source}/rows`, { body: { rows: many } });
    expect(answer.status, answer.text.slice(0, 200)).toBe(200);
    expect(answer.json.data.total).toBe(20_000);
    expectError(await call(ref, 'PUT', `/_reference/sources/${source}/rows`, { raw: `{"rows":[],"pad":"${'x'.repeat(33 * 1024 * 1024)}"}` }), 400, 'body_too_large');
  });

  test.each([
    ['a row without the key', [{ id: 'a' }, { email: 'x' }], '/rows/1/id'],
    ['a key that is a boolean', [{ id: true }], '/rows/0/id'],
    ['a key that is null', [{ id: null }], '/rows/0/id'],
    ['a nested value', [{ id: 'a' }, { id: 'b' }, { id: 'c', tags: ['x'] }], '/rows/2/tags'],
    ['an object value', [{ id: 'a', address: { city: 'x' } }], '/rows/0/address'],
    ['a row that is not an object', [{ id: 'a' }, 'b'], '/rows/1'],
  ])('%s is 400 validation_error naming %s, and nothing is written', async (_label, written, field) => {
    const source = await createSource(ref);
    const answer = await call(ref, 'PUT', `/_reference/sources/${source}/rows`, { body: { rows: written } });
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe(field);
    expect(answer.json.message).toMatch(/^\/rows\/\d+/);
    expect(ref.store.getSource(source)!.rows.size).toBe(0);
  });

  test('rows must be an array', async () => {
    const source = await createSource(ref);
    const answer = await call(ref, 'PUT', `/_reference/sources/${source}/rows`, { body: { rows: { id: 1 } } });
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe('/rows');
  });

  test('an unknown source is 404', async () => {
    expectError(await call(ref, 'PUT', '/_reference/sources/nope/rows', { body: { rows: [] } }), 404, 'not_found');
  });
});

describe('POST /api/syncs and the source its fields name', () => {
  const sync = (fields: unknown[]) => ({ name: 'x', target: { connection_id: webhook, object: 'http' }, fields });

  test('keeps the source and the selection', async () => {
    const source = await createSource(ref);
    const answer = await call(ref, 'POST', '/api/syncs', {
      body: sync([{ source: { model_id: source, field: 'id' }, target: 'id' }, { source: { model_id: source, field: 'name' }, target: 'full_name' }]),
    });
    expect(answer.status, answer.text).toBe(200);
    const stored = ref.store.getModelSync(answer.json.data.id)!;
    expect(stored.sourceId).toBe(source);
    expect(stored.selection).toEqual([{ field: 'id', target: 'id' }, { field: 'name', target: 'full_name' }]);
  });

  test.each([
    ['an unknown source', (s: string) => [{ source: { model_id: s, field: 'id' }, target: 'id' }, { source: { model_id: 'nope', field: 'a' }, target: 'a' }], '/fields/1/source/model_id'],
    ['another source', (s: string, t: string) => [{ source: { model_id: s, field: 'id' }, target: 'id' }, { source: { model_id: t, field: 'a' }, target: 'a' }], '/fields/1/source/model_id'],
    ['a field without the source', (s: string) => [{ source: { model_id: s, field: 'id' }, target: 'id' }, { source: { field: 'a' }, target: 'a' }], '/fields/1/source/model_id'],
    ['a repeated target name', (s: string) => [{ source: { model_id: s, field: 'id' }, target: 'id' }, { source: { model_id: s, field: 'b' }, target: 'id' }], '/fields/1/target'],
  ])('%s is 400 validation_error naming %s', async (_label, fields, field) => {
    const [a, b] = [await createSource(ref), await createSource(ref)];
    const before = ref.store.modelSyncs.size;
    const answer = await call(ref, 'POST', '/api/syncs', { body: sync(fields(a, b)) });
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe(field);
    expect(ref.store.modelSyncs.size).toBe(before);
  });
});
