import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { bulkBody, call, connectionBody, createBulkSync, createConnection, createModelSync, expectError, start } from './helpers.ts';

// Probes of the held-out API faults the suite missed until a value was added for them (issue 18,
// src/reference/faults/held-out-api.ts), spread into faults.test.ts's table: each shows the
// deviation for the one value that triggers it, and that the value next to it is left alone.

type Probe = { probe: (ref: RunningReference) => Promise<void> };

const UUID = '00000000-0000-4000-8000-000000000000';
const changedLast = (key: string) => key.slice(0, -1) + (key.endsWith('x') ? 'y' : 'x');

async function bulkInto(ref: RunningReference, kind: 's3' | 'postgresql'): Promise<string> {
  const source = await createConnection(ref, 'salesforce');
  const destination = await createConnection(ref, kind);
  const settings = kind === 's3' ? { destination_configuration: { format: 'csv' } } : { destination_configuration: { schema: 'public' } };
  const answer = await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, settings) });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data.id as string;
}

export const heldOutApiProbes: Record<string, Probe> = {
  'connection-type-other-case-500': {
    probe: async (ref) => {
      expectError(await call(ref, 'POST', '/api/connections', { body: connectionBody('salesforce', { type: 'Salesforce' }) }), 500, 'internal_error');
      expectError(await call(ref, 'POST', '/api/connections', { body: connectionBody('salesforce', { type: 'no-such-kind' }) }), 400, 'validation_error');
    },
  },
  'bulk-name-utf8-bytes-500': {
    probe: async (ref) => {
      const [source, destination] = [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
      const send = (name: string) => call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { name, destination_configuration: { format: 'csv' } }) });
      expectError(await send('東'.repeat(100)), 500, 'internal_error');
      expect((await send('ü'.repeat(20))).status).toBe(200);
      expect((await send('x'.repeat(1000))).status).toBe(200);
    },
  },
  'bulk-unknown-connection-uuid-500': {
    probe: async (ref) => {
      const destination = await createConnection(ref, 's3');
      const send = (source: string) => call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { destination_configuration: { format: 'csv' } }) });
      expectError(await send(UUID), 500, 'internal_error');
      expectError(await send('nope'), 400, 'validation_error');
    },
  },
  'bearer-key-prefix-compared': {
    // The tests' own key is two characters, so a reference with a longer one shows the cut.
    probe: async () => {
      const key = 'held-out-key-0123456789';
      const ref = await start({ faults: ['bearer-key-prefix-compared'], apiKey: key, schemaCacheDelayMs: 0 });
      try {
        const path = '/api/bulk/syncs/nope/error-handling';
        expectError(await call(ref, 'GET', path, { auth: `Bearer ${changedLast(key)}` }), 404, 'not_found');
        expectError(await call(ref, 'GET', path, { auth: `Bearer x${key.slice(1)}` }), 403, 'forbidden');
        expectError(await call(ref, 'GET', path, { auth: `Bearer ${key.slice(0, -1)}` }), 403, 'forbidden');
      } finally {
        await ref.close();
      }
    },
  },
  'auth-after-body-validation': {
    probe: async (ref) => {
      const path = `/api/syncs/${await createModelSync(ref)}/error-handling`;
      expectError(await call(ref, 'PUT', path, { body: { subscribers: 'a@x.org' }, auth: null }), 400, 'validation_error');
      expectError(await call(ref, 'PUT', path, { body: {}, auth: null }), 403, 'forbidden');
    },
  },
  'auth-after-id-lookup': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', '/api/bulk/syncs/nope/error-handling', { auth: null }), 404, 'not_found');
      expectError(await call(ref, 'GET', `/api/bulk/syncs/${await createBulkSync(ref)}/error-handling`, { auth: 'Bearer wrong' }), 403, 'forbidden');
    },
  },
  'put-subscribers-first-item-checked': {
    probe: async (ref) => {
      const path = `/api/syncs/${await createModelSync(ref)}/error-handling`;
      const answer = await call(ref, 'PUT', path, { body: { subscribers: ['a@x.org', 5] } });
      expect(answer.status).toBe(200);
      expect(answer.json.data.subscribers).toEqual(['a@x.org']);
      expectError(await call(ref, 'PUT', path, { body: { subscribers: [5, 'a@x.org'] } }), 400, 'validation_error');
    },
  },
  'bulk-error-handling-database-destination-404': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', `/api/bulk/syncs/${await bulkInto(ref, 'postgresql')}/error-handling`), 404, 'not_found');
      expect((await call(ref, 'GET', `/api/bulk/syncs/${await bulkInto(ref, 's3')}/error-handling`)).status).toBe(200);
    },
  },
  'version-header-read-in-lower-case-only': {
    probe: async (ref) => {
      const [source, destination] = [await createConnection(ref, 'salesforce'), await createConnection(ref, 'postgresql')];
      const body = { body: bulkBody(source, destination, { dest_configuration: { schema: 'public' } }) };
      expect((await call(ref, 'POST', '/api/bulk/syncs', { ...body, version: '2022-12-12' })).status).toBe(200);
      const spec = await call(ref, 'POST', '/api/bulk/syncs', { ...body, headers: { 'X-Service-Version': '2022-12-12' } });
      expectError(spec, 400, 'validation_error');
    },
  },
};
