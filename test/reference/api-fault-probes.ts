import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { BASIC, bulkBody, call, connectionBody, createConnection, createModelSync, expectError, ORG_KEY } from './helpers.ts';

// Probes of the second, boundary faults of connections, bulk syncs, versions, auth and error
// bodies: each shows the deviation, and that the neighbouring right behaviour is kept.

type Probe = { options?: { schemaCacheDelayMs: number }; probe: (ref: RunningReference) => Promise<void> };

const UNKNOWN_BULK = '/api/bulk/syncs/nope/error-handling';
const csv = { destination_configuration: { format: 'csv' } };
const b64 = (s: string) => Buffer.from(s).toString('base64');

async function readyPair(ref: RunningReference, destination: 's3' | 'postgresql' = 's3'): Promise<[string, string]> {
  return [await createConnection(ref, 'salesforce'), await createConnection(ref, destination)];
}

export const apiFaultProbes: Record<string, Probe> = {
  'redirect-url-query-refused': {
    probe: async (ref) => {
      const plain = await call(ref, 'POST', '/api/connections', { body: connectionBody('salesforce', { redirect_url: 'https://app.example.com/done' }) });
      expect(plain.status).toBe(200);
      const withQuery = await call(ref, 'POST', '/api/connections', { body: connectionBody('salesforce', { redirect_url: 'https://app.example.com:8443/done?x=1' }) });
      expectError(withQuery, 400, 'validation_error');
    },
  },
  'auth-url-relative': {
    probe: async (ref) => {
      const answer = await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot') });
      expect(answer.status).toBe(200);
      expect(answer.json.data.auth_url).toMatch(/^\/oauth\//);
    },
  },
  'auth-url-dropped-for-marketing-with-redirect': {
    probe: async (ref) => {
      const redirect = { redirect_url: 'https://app.example.com/done' };
      expect((await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot', redirect) })).json.data.auth_url).toBeUndefined();
      expect((await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot') })).json.data.auth_url).toMatch(/^https:/);
      expect((await call(ref, 'POST', '/api/connections', { body: connectionBody('salesforce', redirect) })).json.data.auth_url).toMatch(/^https:/);
    },
  },
  'bulk-no-schemas-500': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, csv) }), 500, 'internal_error');
      expect(ref.store.bulkSyncs.size).toBe(0);
      expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { ...csv, schemas: ['Lead'] }) })).status).toBe(200);
    },
  },
  'bulk-rejects-several-schemas': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { ...csv, schemas: ['Lead'] }) })).status).toBe(200);
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { ...csv, schemas: ['Lead', 'Account'] }) }), 400, 'validation_error');
      expect(ref.store.bulkSyncs.size).toBe(1);
    },
  },
  'bulk-name-number-coerced': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const answer = await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { ...csv, name: 42 }) });
      expect(answer.status).toBe(200);
      expect(answer.json.data.name).toBe('42');
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { ...csv, name: ['x'] }) }), 400, 'validation_error');
    },
  },
  'rename-one-version-late': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { version: '2023-04-25', body: bulkBody(source, destination, csv) }), 400, 'validation_error');
      const old = await call(ref, 'POST', '/api/bulk/syncs', { version: '2023-04-25', body: bulkBody(source, destination, { dest_configuration: { format: 'csv' } }) });
      expect(old.status).toBe(200);
      expect((await call(ref, 'POST', '/api/bulk/syncs', { version: '2024-02-08', body: bulkBody(source, destination, csv) })).status).toBe(200);
    },
  },
  'object-store-reads-new-spelling': {
    probe: async (ref) => {
      const [source, s3] = await readyPair(ref);
      const database = await createConnection(ref, 'postgresql');
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { version: '2022-12-12', body: bulkBody(source, s3, { dest_configuration: { format: 'csv' } }) }), 400, 'validation_error');
      expect((await call(ref, 'POST', '/api/bulk/syncs', { version: '2022-12-12', body: bulkBody(source, s3, csv) })).status).toBe(200);
      expect((await call(ref, 'POST', '/api/bulk/syncs', { version: '2022-12-12', body: bulkBody(source, database, { dest_configuration: { schema: 'x' } }) })).status).toBe(200);
    },
  },
  'version-header-required': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK), 400, 'unsupported_version');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { version: '2025-09-18' }), 404, 'not_found');
    },
  },
  'oldest-version-served-as-default': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const answer = await call(ref, 'POST', '/api/bulk/syncs', { version: '2021-05-23', body: bulkBody(source, destination, csv) });
      expect(answer.status).toBe(200);
      expect(answer.headers['x-service-version']).toBe('2025-09-18');
    },
  },
  'version-date-pinning': {
    probe: async (ref) => {
      const pinned = await call(ref, 'GET', UNKNOWN_BULK, { version: '2025-09-19' });
      expectError(pinned, 404, 'not_found');
      expect(pinned.headers['x-service-version']).toBe('2025-09-18');
      expect((await call(ref, 'GET', UNKNOWN_BULK, { version: '2024-02-07' })).headers['x-service-version']).toBe('2023-04-25');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { version: '1999-01-01' }), 400, 'unsupported_version');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { version: 'latest' }), 400, 'unsupported_version');
    },
  },
  'oldest-version-refused-on-writes': {
    probe: async (ref) => {
      const sync = await createModelSync(ref);
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { version: '2021-05-23' }), 404, 'not_found');
      expectError(await call(ref, 'PUT', `/api/syncs/${sync}/error-handling`, { version: '2021-05-23', body: {} }), 400, 'unsupported_version');
      expect((await call(ref, 'PUT', `/api/syncs/${sync}/error-handling`, { version: '2022-12-12', body: {} })).status).toBe(200);
    },
  },
  'basic-key-as-password': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: BASIC }), 403, 'forbidden');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: `Basic ${b64(`:${ORG_KEY}`)}` }), 404, 'not_found');
      expectError(await call(ref, 'GET', UNKNOWN_BULK), 404, 'not_found');
    },
  },
  'missing-credential-401': {
    probe: async (ref) => {
      const none = await call(ref, 'GET', UNKNOWN_BULK, { auth: null });
      expect(none.status).toBe(401);
      expect(none.json).toMatchObject({ key: 'forbidden', status: 401 });
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: 'Bearer wrong' }), 403, 'forbidden');
    },
  },
  'bearer-refused-on-connection-create': {
    probe: async (ref) => {
      expectError(await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot') }), 403, 'forbidden');
      expect((await call(ref, 'POST', '/api/connections', { auth: BASIC, body: connectionBody('hubspot') })).status).toBe(200);
      expectError(await call(ref, 'GET', UNKNOWN_BULK), 404, 'not_found');
    },
  },
  'error-metadata-pairs': {
    probe: async (ref) => {
      const answer = await call(ref, 'GET', UNKNOWN_BULK);
      expect(answer.status).toBe(404);
      expect(answer.json.metadata).toEqual([{ key: 'id', value: 'nope' }]);
    },
  },
};
