import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { bulkBody, call, createConnection, expectError } from './helpers.ts';

// Probes of src/reference/faults/mutation-routes.ts, spread into faults.test.ts's table: each shows
// the deviation for the value that triggers it, and that the value next to it is answered as before.

type Probe = { options?: { schemaCacheDelayMs: number }; probe: (ref: RunningReference) => Promise<void> };

const HUBSPOT = { name: 'p', type: 'hubspot', configuration: {} };

export const mutationRoutesProbes: Record<string, Probe> = {
  'kind-lookup-inherited-500': {
    probe: async (ref) => {
      expectError(await call(ref, 'POST', '/api/connections', { body: { ...HUBSPOT, type: 'constructor' } }), 500, 'internal_error');
      expectError(await call(ref, 'POST', '/api/connections', { body: { ...HUBSPOT, type: 'dssc-no-such-kind' } }), 400, 'validation_error');
      expect((await call(ref, 'POST', '/api/connections', { body: HUBSPOT })).status).toBe(200);
    },
  },
};

mutationRoutesProbes['non-database-source-objects-refused'] = {
  probe: async (ref) => {
    const [crm, s3] = [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
    const csv = { destination_configuration: { format: 'csv' } };
    expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(crm, s3, { ...csv, schemas: ['Account'] }) }), 400, 'validation_error');
    expect(ref.store.bulkSyncs.size).toBe(0);
    expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(crm, s3, csv) })).status).toBe(200);
    expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(s3, s3, { ...csv, schemas: ['users.csv'] }) })).status).toBe(400);
  },
};

const WEBHOOK = { name: 'w', type: 'webhook', configuration: { url: 'https://receiver.example.invalid/hook' } };

mutationRoutesProbes['bulk-destination-without-settings-rule-500'] = {
  probe: async (ref) => {
    const [crm, s3] = [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
    expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(s3, crm) }), 500, 'internal_error');
    expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(crm, s3, { destination_configuration: { format: 'csv' } }) })).status).toBe(200);
  },
};

mutationRoutesProbes['bulk-webhook-source-500'] = {
  probe: async (ref) => {
    const webhook = (await call(ref, 'POST', '/api/connections', { body: WEBHOOK })).json.data.id as string;
    const s3 = await createConnection(ref, 's3');
    expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(webhook, s3, { destination_configuration: { format: 'csv' } }) }), 500, 'internal_error');
    expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody('nope', s3, { destination_configuration: { format: 'csv' } }) }), 400, 'validation_error');
  },
};

mutationRoutesProbes['bulk-destination-settings-absent-500'] = {
  probe: async (ref) => {
    const [crm, s3] = [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
    expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(crm, s3) }), 500, 'internal_error');
    expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(crm, s3, { destination_configuration: null }) }), 400, 'validation_error');
    expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(crm, s3, { destination_configuration: { format: 'csv' } }) })).status).toBe(200);
  },
};
