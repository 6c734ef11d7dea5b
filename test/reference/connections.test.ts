import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { validate } from '../../src/schemas.ts';
import { call, CONFIGURATIONS, connectionBody, expectError, start, type Kind } from './helpers.ts';

let ref: RunningReference;
beforeAll(async () => {
  ref = await start();
});
afterAll(() => ref.close());

const post = (body: unknown) => call(ref, 'POST', '/api/connections', { body });

describe('POST /api/connections', () => {
  test.each(Object.keys(CONFIGURATIONS) as Kind[])('a %s connection is created: 200 with data.id, name, type, configuration', async (type) => {
    const answer = await post(connectionBody(type));
    expect(answer.status, answer.text).toBe(200);
    const { data } = answer.json;
    expect(typeof data.id).toBe('string');
    expect(data.id.length).toBeGreaterThan(0);
    // The type answers as the real service's {id, name}; the request's identifier is its id.
    expect(data).toMatchObject({ name: `test ${type}`, type: { id: type, name: expect.any(String) } });
    expect(ref.store.getConnection(data.id)?.type).toBe(type);
  });

  test('ids are unique', async () => {
    const ids = await Promise.all([1, 2, 3].map(async () => (await post(connectionBody('hubspot'))).json.data.id));
    expect(new Set(ids).size).toBe(3);
  });

  test('hubspot takes exactly {} as configuration', async () => {
    expect((await post(connectionBody('hubspot'))).json.data.configuration).toEqual({});
    const answer = await post(connectionBody('hubspot', { configuration: { portal: 1 } }));
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe('/configuration');
  });

  test.each([
    ['postgresql', 'password'],
    ['s3', 'cloud_secret_access_key'],
  ] as const)('a %s connection does not echo %s, and keeps the other settings', async (type, secret) => {
    const answer = await post(connectionBody(type));
    const { [secret]: _sent, ...rest } = CONFIGURATIONS[type] as Record<string, unknown>;
    expect(answer.json.data.configuration).toEqual(rest);
    expect(answer.text).not.toContain(String((CONFIGURATIONS[type] as Record<string, unknown>)[secret]));
  });

  test.each(['salesforce', 'hubspot'] as const)('the OAuth kind %s answers an https auth_url naming the connection', async (type) => {
    const answer = await post(connectionBody(type));
    const url = new URL(answer.json.data.auth_url);
    expect(validate('connection-response.schema.json#/$defs/authUrl', answer.json.data.auth_url)).toEqual([]);
    expect(url.protocol).toBe('https:');
    expect(url.searchParams.get('connection_id')).toBe(answer.json.data.id);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.has('redirect_uri')).toBe(false);
  });

  test('redirect_url is carried in auth_url as redirect_uri', async () => {
    const redirect = 'https://app.example.com/oauth/done?tab=2';
    const answer = await post(connectionBody('salesforce', { redirect_url: redirect }));
    expect(answer.status).toBe(200);
    expect(new URL(answer.json.data.auth_url).searchParams.get('redirect_uri')).toBe(redirect);
  });

  test.each(['s3', 'postgresql', 'webhook'] as const)('the non-OAuth kind %s has no auth_url', async (type) => {
    expect((await post(connectionBody(type))).json.data).not.toHaveProperty('auth_url');
  });

  test('a webhook connection returns its generated secret once, in configuration.secret', async () => {
    const [a, b] = await Promise.all([post(connectionBody('webhook')), post(connectionBody('webhook'))]);
    const secret = a.json.data.configuration.secret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(b.json.data.configuration.secret).not.toBe(secret);
    expect(a.json.data.configuration.url).toBe(CONFIGURATIONS.webhook.url);
    expect(ref.store.getConnection(a.json.data.id)?.configuration.secret).toBe(secret);
  });

  test('an unknown type is 400 validation_error naming type', async () => {
    const answer = await post(connectionBody('salesforce', { type: 'oracle' }));
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe('/type');
    expect(answer.json.message).toContain('/type');
  });

  test.each([
    ['name missing', { type: 'hubspot', configuration: {} }, '/name'],
    ['type missing', { name: 'n', configuration: {} }, '/type'],
    ['configuration missing', { name: 'n', type: 'hubspot' }, '/configuration'],
    ['name not a string', { name: 7, type: 'hubspot', configuration: {} }, '/name'],
    ['name empty', { name: '', type: 'hubspot', configuration: {} }, '/name'],
    ['type not lowercase', { name: 'n', type: 'HubSpot', configuration: {} }, '/type'],
    ['configuration an array', { name: 'n', type: 'hubspot', configuration: [] }, '/configuration'],
    ['redirect_url not a URL', connectionBody('salesforce', { redirect_url: 'not a url' }), '/redirect_url'],
    ['salesforce domain missing', connectionBody('salesforce', { configuration: {} }), '/configuration/domain'],
    ['postgresql port a string', connectionBody('postgresql', { configuration: { ...CONFIGURATIONS.postgresql, port: '5432' } }), '/configuration/port'],
    ['postgresql port out of range', connectionBody('postgresql', { configuration: { ...CONFIGURATIONS.postgresql, port: 70000 } }), '/configuration/port'],
    ['postgresql password missing', connectionBody('postgresql', { configuration: { ...CONFIGURATIONS.postgresql, password: undefined } }), '/configuration/password'],
    ['s3 bucket name missing', connectionBody('s3', { configuration: { ...CONFIGURATIONS.s3, object_store_bucket_name: undefined } }), '/configuration/object_store_bucket_name'],
    ['webhook url missing', connectionBody('webhook', { configuration: {} }), '/configuration/url'],
  ])('%s is 400 validation_error naming the field', async (_label, body, field) => {
    const before = ref.store.connections.size;
    const answer = await post(body);
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe(field);
    expect(answer.json.message).toContain(field);
    expect(ref.store.connections.size).toBe(before);
  });
});
