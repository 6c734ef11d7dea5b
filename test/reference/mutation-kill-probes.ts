import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { call, createModelSync, expectError } from './helpers.ts';

// Probes of the faults added to kill surviving mutants (bench/mutation-triage.json), spread into
// faults.test.ts's table: each shows the deviation for the value that triggers it, and that the
// value next to it is answered as before.

type Probe = { probe: (ref: RunningReference) => Promise<void> };

const b64 = (s: string) => Buffer.from(s).toString('base64');
const UNKNOWN_BULK = '/api/bulk/syncs/nope/error-handling';
const CONNECTION = { name: 'p', type: 'hubspot', configuration: {} };

/** The Authorization value is accepted (404 on an unknown id), and a near miss of it is still refused. */
const authProbe = (accepted: (ref: RunningReference) => string, refused: (ref: RunningReference) => string): Probe => ({
  probe: async (ref) => {
    expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: accepted(ref) }), 404, 'not_found');
    expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: refused(ref) }), 403, 'forbidden');
  },
});

/** The creation with `raw` under `contentType` is answered 500, and a valid JSON body still 2xx. */
const bodyProbe = (raw: string, headers: Record<string, string>): Probe => ({
  probe: async (ref) => {
    expectError(await call(ref, 'POST', '/api/connections', { raw, headers }), 500, 'internal_error');
    expect((await call(ref, 'POST', '/api/connections', { body: CONNECTION })).status).toBe(200);
  },
});

export const mutationKillProbes: Record<string, Probe> = {
  'model-sync-starts-with-placeholder-subscriber': {
    probe: async (ref) => {
      const path = `/api/syncs/${await createModelSync(ref)}/error-handling`;
      const first = await call(ref, 'PUT', path, { body: { warning_notifications: false } });
      expect(first.status).toBe(200);
      expect(first.json.data.subscribers).toEqual(['nobody']);
      const sent = await call(ref, 'PUT', path, { body: { subscribers: ['dssc-probe@example.com'] } });
      expect(sent.json.data.subscribers).toEqual(['dssc-probe@example.com']);
    },
  },
  'auth-header-last-two-words': authProbe((ref) => `Token Bearer ${ref.apiKey}`, (ref) => `Token Bearer ${ref.apiKey}x`),
  'unknown-scheme-read-as-basic': authProbe((ref) => `Token ${b64(`${ref.orgKey}:`)}`, (ref) => `Bearer ${b64(`${ref.orgKey}:`)}`),
  'unparsable-body-500': bodyProbe('{', { 'content-type': 'application/json' }),
  'other-media-type-parser-fails': bodyProbe(JSON.stringify(CONNECTION), { 'content-type': 'text/plain' }),
  'large-body-500': bodyProbe(JSON.stringify({ ...CONNECTION, name: 'x'.repeat(2 * 1024 * 1024) }), { 'content-type': 'application/json' }),
  'malformed-url-500': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', '/api/bulk/syncs/a%zz/error-handling'), 500, 'internal_error');
      expectError(await call(ref, 'GET', '/api/bulk/syncs/a%25zz/error-handling'), 404, 'not_found');
    },
  },
  'long-id-500': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', `/api/bulk/syncs/${'a'.repeat(256)}/error-handling`), 500, 'internal_error');
      expectError(await call(ref, 'PUT', `/api/syncs/${'a'.repeat(256)}/error-handling`, { body: {} }), 500, 'internal_error');
      expectError(await call(ref, 'GET', `/api/bulk/syncs/${'a'.repeat(255)}/error-handling`), 404, 'not_found');
    },
  },
  'bulk-non-object-body-500': {
    probe: async (ref) => {
      for (const body of [null, [], 'replicate']) expectError(await call(ref, 'POST', '/api/bulk/syncs', { raw: JSON.stringify(body) }), 500, 'internal_error');
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: {} }), 400, 'validation_error');
    },
  },
};

/** A connection of a type no kind has is answered 500; a known type still 200. */
const unknownTypeProbe: Probe = {
  probe: async (ref) => {
    const answer = await call(ref, 'POST', '/api/connections', { body: { ...CONNECTION, type: 'dssc-no-such-kind' } });
    expect({ status: answer.status, body: answer.json?.status }).toEqual({ status: 500, body: 500 });
    expect((await call(ref, 'POST', '/api/connections', { body: CONNECTION })).status).toBe(200);
  },
};
mutationKillProbes['unknown-type-500'] = unknownTypeProbe;
mutationKillProbes['unknown-type-refusal-as-500'] = unknownTypeProbe;

mutationKillProbes['non-database-source-never-cached'] = {
  probe: async (ref) => {
    const crm = (await call(ref, 'POST', '/api/connections', { body: { name: 'crm', type: 'salesforce', configuration: { domain: 'https://x.example.com' } } })).json.data.id;
    const store = (await call(ref, 'POST', '/api/connections', { body: { name: 's3', type: 's3', configuration: { cloud_access_key_id: 'a', cloud_secret_access_key: 'b', object_store_bucket_region: 'r', object_store_bucket_name: 'n' } } })).json.data.id;
    const body = { name: 'b', source_connection_id: crm, destination_connection_id: store, mode: 'replicate', schedule: { frequency: 'manual' }, destination_configuration: { format: 'csv' } };
    for (let i = 0; i < 4; i++) expectError(await call(ref, 'POST', '/api/bulk/syncs', { body }), 400, 'schemas_not_cached');
  },
};
