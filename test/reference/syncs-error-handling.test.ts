import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { validate } from '../../src/schemas.ts';
import { call, createBulkSync, createConnection, createModelSync, expectError, MODEL_FIELDS, start } from './helpers.ts';

let ref: RunningReference;
let webhook: string;
let postgres: string;
beforeAll(async () => {
  ref = await start();
  webhook = await createConnection(ref, 'webhook');
  postgres = await createConnection(ref, 'postgresql');
});
afterAll(() => ref.close());

const DEFAULTS = { auto_retry_record_errors: false, notify_on_record_errors: false, subscribers: [], warning_notifications: false };

describe('POST /api/syncs (extension)', () => {
  test('a webhook target gets the webhook defaults', async () => {
    const answer = await call(ref, 'POST', '/api/syncs', { body: { name: 'to webhook', target: { connection_id: webhook, object: 'http' }, fields: MODEL_FIELDS } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toEqual({
      id: expect.any(String),
      name: 'to webhook',
      mode: expect.any(String),
      target: { connection_id: webhook, object: 'http', configuration: { batch_size: 100, metadata: null, record_requests: true } },
      fields: MODEL_FIELDS,
      sync_all_records: false,
      skip_initial_backfill: false,
      schedule: { frequency: 'manual' },
      active: true,
    });
    const stored = ref.store.getModelSync(answer.json.data.id)!;
    expect(stored.executions).toEqual([]);
    expect(stored.deliveredHashes.size).toBe(0);
  });

  test('given settings win over the defaults', async () => {
    const body = {
      name: 'tuned',
      mode: 'create',
      target: { connection_id: webhook, object: 'http', configuration: { batch_size: 7, metadata: { team: 'data' } } },
      fields: MODEL_FIELDS,
      sync_all_records: true,
      skip_initial_backfill: true,
    };
    const { json } = await call(ref, 'POST', '/api/syncs', { body });
    expect(json.data).toMatchObject({ mode: 'create', sync_all_records: true, skip_initial_backfill: true });
    expect(json.data.target.configuration).toEqual({ batch_size: 7, metadata: { team: 'data' }, record_requests: true });
  });

  test('a non-webhook target keeps its object and gets no webhook settings', async () => {
    const { status, json } = await call(ref, 'POST', '/api/syncs', { body: { name: 'db', target: { connection_id: postgres, object: 'public.users' }, fields: MODEL_FIELDS } });
    expect(status).toBe(200);
    expect(json.data.target).toEqual({ connection_id: postgres, object: 'public.users' });
  });

  test.each([
    ['an unknown target connection', () => ({ name: 'x', target: { connection_id: 'nope', object: 'http' }, fields: MODEL_FIELDS }), '/target/connection_id'],
    ['a webhook target object other than http', () => ({ name: 'x', target: { connection_id: webhook, object: 'users' }, fields: MODEL_FIELDS }), '/target/object'],
    ['fields missing', () => ({ name: 'x', target: { connection_id: webhook, object: 'http' } }), '/fields'],
    ['fields empty', () => ({ name: 'x', target: { connection_id: webhook, object: 'http' }, fields: [] }), '/fields'],
    ['batch_size zero', () => ({ name: 'x', target: { connection_id: webhook, object: 'http', configuration: { batch_size: 0 } }, fields: MODEL_FIELDS }), '/target/configuration/batch_size'],
    ['target.object missing', () => ({ name: 'x', target: { connection_id: webhook }, fields: MODEL_FIELDS }), '/target/object'],
  ])('%s is 400 validation_error naming %s', async (_label, body, field) => {
    const before = ref.store.modelSyncs.size;
    const answer = await call(ref, 'POST', '/api/syncs', { body: body() });
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe(field);
    expect(ref.store.modelSyncs.size).toBe(before);
  });
});

describe('bulk sync error handling', () => {
  test('GET answers the defaults of a new bulk sync', async () => {
    const id = await createBulkSync(ref);
    const answer = await call(ref, 'GET', `/api/bulk/syncs/${id}/error-handling`);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: { ingestion_failure_threshold: null, subscribers: [] } });
    expect(validate('bulk-sync-error-handling.schema.json#/$defs/response', answer.json)).toEqual([]);
  });

  test('GET of an unknown id is 404 not_found', async () => {
    expectError(await call(ref, 'GET', '/api/bulk/syncs/nope/error-handling'), 404, 'not_found');
  });

  test('PUT (extension) updates what it is given, leaves the rest, and GET reads it back', async () => {
    const id = await createBulkSync(ref);
    const path = `/api/bulk/syncs/${id}/error-handling`;
    const first = await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: 300, subscribers: ['a@example.com'] } });
    expect(first.json).toEqual({ data: { ingestion_failure_threshold: 300, subscribers: ['a@example.com'] } });
    expect((await call(ref, 'PUT', path, { body: { subscribers: [] } })).json.data).toEqual({ ingestion_failure_threshold: 300, subscribers: [] });
    expect((await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: null } })).json.data.ingestion_failure_threshold).toBe(300);
    expect((await call(ref, 'GET', path)).json.data).toEqual({ ingestion_failure_threshold: 300, subscribers: [] });
    expectError(await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: -1 } }), 400, 'validation_error');
    expectError(await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: '10' } }), 400, 'validation_error');
    expectError(await call(ref, 'PUT', '/api/bulk/syncs/nope/error-handling', { body: {} }), 404, 'not_found');
  });
});

describe('PUT /api/syncs/{id}/error-handling', () => {
  let id: string;
  let path: string;
  const put = (body: unknown) => call(ref, 'PUT', path, { body });
  const get = async () => (await call(ref, 'GET', path)).json.data;

  beforeAll(async () => {
    id = await createModelSync(ref);
    path = `/api/syncs/${id}/error-handling`;
  });

  test('GET (extension) answers the defaults, all four fields', async () => {
    const other = await createModelSync(ref);
    const answer = await call(ref, 'GET', `/api/syncs/${other}/error-handling`);
    expect(answer.json).toEqual({ data: DEFAULTS });
    expectError(await call(ref, 'GET', '/api/syncs/nope/error-handling'), 404, 'not_found');
  });

  test('{} is valid: 200 with all four fields, nothing changes', async () => {
    const answer = await put({});
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ data: await get() });
    expect(validate('sync-error-handling.schema.json#/$defs/response', answer.json)).toEqual([]);
  });

  test('omitted fields stay unchanged', async () => {
    await put({ auto_retry_record_errors: true, notify_on_record_errors: true, subscribers: ['a@example.com'], warning_notifications: true });
    const answer = await put({ notify_on_record_errors: false });
    expect(answer.json.data).toEqual({ auto_retry_record_errors: true, notify_on_record_errors: false, subscribers: ['a@example.com'], warning_notifications: true });
    expect(await get()).toEqual(answer.json.data);
  });

  test('subscribers replaces the whole list, and [] removes all', async () => {
    await put({ subscribers: ['a@example.com', 'b@example.com'] });
    expect((await put({ subscribers: ['c@example.com'] })).json.data.subscribers).toEqual(['c@example.com']);
    expect((await put({ subscribers: [] })).json.data.subscribers).toEqual([]);
    expect((await get()).subscribers).toEqual([]);
  });

  test('null leaves each field unchanged (interpretation)', async () => {
    const before = (await put({ auto_retry_record_errors: true, subscribers: ['n@example.com'], warning_notifications: false })).json.data;
    const answer = await put({ auto_retry_record_errors: null, notify_on_record_errors: null, subscribers: null, warning_notifications: null });
    expect(answer.status).toBe(200);
    expect(answer.json.data).toEqual(before);
  });

  test('fields outside the schema are ignored', async () => {
    const before = await get();
    const answer = await put({ colour: 'red' });
    expect(answer.status).toBe(200);
    expect(answer.json.data).toEqual(before);
  });

  test.each([
    ['a string boolean', { auto_retry_record_errors: 'true' }, '/auto_retry_record_errors'],
    ['a number boolean', { warning_notifications: 1 }, '/warning_notifications'],
    ['subscribers as a string', { subscribers: 'a@example.com' }, '/subscribers'],
    ['a subscriber that is not an e-mail address', { subscribers: ['not-an-address'] }, '/subscribers/0'],
    ['a subscriber that is a number', { subscribers: ['a@example.com', 5] }, '/subscribers/1'],
    ['a list body', [], ''],
    ['a string body', 'x', ''],
  ])('%s is 400 validation_error naming the field, and changes nothing', async (_label, body, field) => {
    const before = await get();
    const answer = await put(body);
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe(field);
    expect(await get()).toEqual(before);
  });

  test('an unknown id is 404 not_found', async () => {
    expectError(await call(ref, 'PUT', '/api/syncs/nope/error-handling', { body: { warning_notifications: true } }), 404, 'not_found');
  });

  test('a bulk sync id is not a model sync id', async () => {
    const bulk = await createBulkSync(ref);
    expectError(await call(ref, 'PUT', `/api/syncs/${bulk}/error-handling`, { body: {} }), 404, 'not_found');
  });
});
