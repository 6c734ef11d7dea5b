import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONNECTION_KINDS } from '../../src/reference/connection-kinds.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { FREQUENCIES } from '../../src/reference/routes/bulk-syncs.ts';
import { bulkBody, CACHE_DELAY_MS, call, CONFIGURATIONS, connectionBody, createConnection, expectError, MODEL_FIELDS, sleep, start, type Kind } from './helpers.ts';

// Values the spec leaves open ("not shown") that the real service takes: the reference takes them
// too (README › Interpretations), and answers in the real service's shapes where the spec shows none.

let ref: RunningReference;
const ids = { salesforce: '', postgresql: '', webhook: '' };
beforeAll(async () => {
  ref = await start();
  for (const type of Object.keys(ids) as (keyof typeof ids)[]) ids[type] = await createConnection(ref, type);
  await sleep(CACHE_DELAY_MS + 10);
});
afterAll(() => ref.close());

describe('connection type in answers', () => {
  test.each(Object.keys(CONFIGURATIONS) as Kind[])('%s answers type as {id, name}', async (type) => {
    const answer = await call(ref, 'POST', '/api/connections', { body: connectionBody(type) });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.type).toEqual({ id: type, name: CONNECTION_KINDS[type]!.name });
  });

  test('postgresql is named PostgreSQL', async () => {
    expect(CONNECTION_KINDS.postgresql!.name).toBe('PostgreSQL');
  });
});

describe('the marketing kind: the real service\'s optional settings', () => {
  const settings = { include_static_list_support: true, use_search_api: false, client_id: 'cid', client_secret: 'hs-secret-value', oauth_refresh_token: 'hs-refresh-value' };

  test('are accepted and echoed, the secret ones never', async () => {
    const answer = await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot', { configuration: settings }) });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.configuration).toEqual({ include_static_list_support: true, use_search_api: false, client_id: 'cid' });
    expect(answer.text).not.toContain('hs-secret-value');
    expect(answer.text).not.toContain('hs-refresh-value');
    expect(answer.json.data.auth_url).toEqual(expect.any(String));
  });

  test('of the wrong type are 400 naming the field', async () => {
    const answer = await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot', { configuration: { use_search_api: 'yes' } }) });
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe('/configuration/use_search_api');
  });

  test('a setting neither the spec nor the real service has is still refused (the spec: an empty object)', async () => {
    const answer = await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot', { configuration: { region: 'eu' } }) });
    expectError(answer, 400, 'validation_error');
  });
});

describe('bulk syncs: the real service\'s modes and frequencies', () => {
  const post = (extra: Record<string, unknown>) =>
    call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(ids.salesforce, ids.postgresql, { destination_configuration: { schema: 'analytics' }, ...extra }) });

  test('mode snapshot is accepted and echoed', async () => {
    const answer = await post({ mode: 'snapshot' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.mode).toBe('snapshot');
  });

  test.each(FREQUENCIES)('frequency %s is accepted and echoed with the schedule\'s other fields', async (frequency) => {
    const schedule = { frequency, hour: 4, minute: 30 };
    const answer = await post({ schedule });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.schedule).toEqual(schedule);
  });
});

describe('model syncs: targets that are not webhooks, identity, active', () => {
  test('a non-webhook target needs no object; it is stored and echoed, and a run of it is 400 not_runnable', async () => {
    const target = { connection_id: ids.postgresql, configuration: { table: 'users' } };
    const answer = await call(ref, 'POST', '/api/syncs', { body: { name: 'to postgres', target, fields: MODEL_FIELDS } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.target).toEqual(target);
    expectError(await call(ref, 'POST', `/api/syncs/${answer.json.data.id}/executions`, { body: {} }), 400, 'not_runnable');
  });

  test('a webhook target still needs object http', async () => {
    const answer = await call(ref, 'POST', '/api/syncs', { body: { name: 'x', target: { connection_id: ids.webhook }, fields: MODEL_FIELDS } });
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe('/target/object');
  });

  test('identity and active are stored and echoed; active defaults to true', async () => {
    const identity = { source: { field: 'email' }, target: 'email', function: 'Equality' };
    const body = { name: 'with identity', target: { connection_id: ids.webhook, object: 'http' }, fields: MODEL_FIELDS, identity, active: false };
    const answer = await call(ref, 'POST', '/api/syncs', { body });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({ identity, active: false });
    expect(ref.store.getModelSync(answer.json.data.id)).toMatchObject({ identity, active: false });
    const plain = await call(ref, 'POST', '/api/syncs', { body: { ...body, identity: undefined, active: undefined } });
    expect(plain.json.data.active).toBe(true);
    expect(plain.json.data).not.toHaveProperty('identity');
  });

  test('identity and active of the wrong type are 400 naming them', async () => {
    for (const [extra, field] of [[{ identity: 'email' }, '/identity'], [{ active: 'yes' }, '/active']] as const) {
      const answer = await call(ref, 'POST', '/api/syncs', { body: { name: 'x', target: { connection_id: ids.webhook, object: 'http' }, fields: MODEL_FIELDS, ...extra } });
      expectError(answer, 400, 'validation_error');
      expect(answer.json.metadata.field).toBe(field);
    }
  });
});

describe('the connection types list (GET /api/connection_types), public as the real service\'s', () => {
  test('answers every kind with no credential, and the same with one', async () => {
    const open = await call(ref, 'GET', '/api/connection_types', { auth: null });
    expect(open.status, open.text).toBe(200);
    expect(open.json.data.map((t: any) => t.id)).toEqual(Object.keys(CONNECTION_KINDS));
    expect(open.json.data.find((t: any) => t.id === 'salesforce')).toEqual({ id: 'salesforce', name: 'Salesforce', use_oauth: true, capabilities: { source: true, destination: true, enrichment: false, orchestration: false } });
    expect(open.json.data.find((t: any) => t.id === 'webhook')).toMatchObject({ use_oauth: false, capabilities: { source: false, destination: true } });
    expect((await call(ref, 'GET', '/api/connection_types')).json).toEqual(open.json);
  });

  test('the version is still checked; every other route still needs the credential', async () => {
    expectError(await call(ref, 'GET', '/api/connection_types', { auth: null, version: '1999-01-01' }), 400, 'unsupported_version');
    expectError(await call(ref, 'GET', `/api/connections/${ids.webhook}`, { auth: null }), 403, 'forbidden');
    expectError(await call(ref, 'GET', '/api/connection_types/salesforce', { auth: null }), 403, 'forbidden');
  });
});
