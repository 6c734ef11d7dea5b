import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { BASIC, BEARER, bulkBody, CACHE_DELAY_MS, call, connectionBody, createBulkSync, createConnection, createModelSync, expectError, ORG_KEY, sleep, start } from './helpers.ts';

let ref: RunningReference;
let endpoints: { method: string; path: string; body?: unknown }[];

beforeAll(async () => {
  ref = await start();
  const bulk = await createBulkSync(ref);
  const model = await createModelSync(ref);
  const source = await createConnection(ref, 'hubspot');
  const destination = await createConnection(ref, 'postgresql');
  await sleep(CACHE_DELAY_MS + 10);
  // Every endpoint with a request a valid credential would get a 2xx (or, for the unknown route, 404) for.
  endpoints = [
    { method: 'POST', path: '/api/connections', body: connectionBody('hubspot') },
    { method: 'POST', path: '/api/bulk/syncs', body: bulkBody(source, destination, { destination_configuration: { schema: 'x' } }) },
    { method: 'POST', path: '/api/syncs', body: { name: 'm', target: { connection_id: source, object: 'contacts' }, fields: [{ source: { field: 'a' }, target: 'a' }] } },
    { method: 'GET', path: `/api/bulk/syncs/${bulk}/error-handling` },
    { method: 'PUT', path: `/api/bulk/syncs/${bulk}/error-handling`, body: {} },
    { method: 'GET', path: `/api/syncs/${model}/error-handling` },
    { method: 'PUT', path: `/api/syncs/${model}/error-handling`, body: {} },
    { method: 'GET', path: '/api/no/such/route' },
  ];
});
afterAll(() => ref.close());

const basicOf = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('authentication', () => {
  const refused: [string, string | null][] = [
    ['missing', null],
    ['empty', ''],
    ['wrong bearer key', 'Bearer k2'],
    ['bearer without a token', 'Bearer'],
    ['org key as a bearer token', `Bearer ${ORG_KEY}`],
    ['wrong basic user', basicOf('o2:')],
    ['basic with a password', basicOf(`${ORG_KEY}:secret`)],
    ['api key as the basic user', basicOf('k1:')],
    ['basic that is not base64', 'Basic %%%'],
    ['unknown scheme', 'Token k1'],
    ['no scheme', 'k1'],
  ];

  test.each(refused)('a %s credential is answered 403 forbidden on every endpoint, and changes nothing', async (_label, auth) => {
    const before = [ref.store.connections.size, ref.store.bulkSyncs.size, ref.store.modelSyncs.size];
    for (const { method, path, body } of endpoints) {
      const answer = await call(ref, method, path, { auth, body, version: 'not-a-version' });
      expectError(answer, 403, 'forbidden');
    }
    expect([ref.store.connections.size, ref.store.bulkSyncs.size, ref.store.modelSyncs.size]).toEqual(before);
  });

  test.each([
    ['Bearer <api key>', BEARER],
    ['Basic base64(<org key>:)', BASIC],
    ['a lowercase scheme', 'bearer k1'],
  ])('%s is accepted on every endpoint', async (_label, auth) => {
    for (const { method, path, body } of endpoints) {
      const answer = await call(ref, method, path, { auth, body });
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(path === '/api/no/such/route' ? 404 : 200);
    }
  });
});

describe('versions', () => {
  const known = ['2025-09-18', '2024-02-08', '2023-04-25', '2022-12-12', '2021-05-23'];

  test.each(known)('%s is served and echoed in X-Service-Version', async (version) => {
    const answer = await call(ref, 'GET', endpoints[3]!.path, { version });
    expect(answer.status).toBe(200);
    expect(answer.headers['x-service-version']).toBe(version);
  });

  test('without the header the default 2025-09-18 is served and echoed', async () => {
    const answer = await call(ref, 'GET', endpoints[3]!.path);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-service-version']).toBe('2025-09-18');
  });

  test.each(['2025-09-19', '', 'latest', '2025-09-18, 2024-02-08'])('unknown version %j is answered 400 unsupported_version on every endpoint, echoing the default', async (version) => {
    for (const { method, path, body } of endpoints) {
      const answer = await call(ref, method, path, { version, body });
      expectError(answer, 400, 'unsupported_version');
      expect(answer.headers['x-service-version']).toBe('2025-09-18');
      expect(answer.json.metadata.supported).toEqual(known);
    }
  });

  test('error answers carry the version that served them', async () => {
    const answer = await call(ref, 'GET', '/api/bulk/syncs/nope/error-handling', { version: '2021-05-23' });
    expectError(answer, 404, 'not_found');
    expect(answer.headers['x-service-version']).toBe('2021-05-23');
    const refused = await call(ref, 'GET', '/api/bulk/syncs/nope/error-handling', { version: '2022-12-12', auth: null });
    expectError(refused, 403, 'forbidden');
    expect(refused.headers['x-service-version']).toBe('2022-12-12');
  });
});
