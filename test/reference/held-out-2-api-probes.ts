import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { BASIC, bulkBody, call, connectionBody, createBulkSync, createConnection, createModelSync, expectError } from './helpers.ts';

// Probes of the round-2 held-out API faults (src/reference/faults/held-out-2-api.ts), spread into
// faults.test.ts's table: each shows the deviation under the one value that triggers it, and that
// the value next to it is left alone.

type Probe = { options?: { schemaCacheDelayMs: number }; probe: (ref: RunningReference) => Promise<void> };

export const heldOut2ApiProbes: Record<string, Probe> = {
  'ho2-auth-basic-new-versions-only': {
    probe: async (ref) => {
      const create = (auth: string, version?: string) => call(ref, 'POST', '/api/connections', { body: connectionBody('salesforce'), auth, version });
      expect((await create(BASIC, '2021-05-23')).status).toBe(403);
      expect((await create(BASIC, '2024-02-08')).status).toBe(200);
      expect((await create(BASIC)).status).toBe(200);
      expect((await create(`Bearer k1`, '2021-05-23')).status).toBe(200);
    },
  },
  'ho2-bulk-eh-takes-model-sync-id': {
    probe: async (ref) => {
      const sync = await createModelSync(ref);
      expect((await call(ref, 'GET', `/api/bulk/syncs/${sync}/error-handling`)).status).toBe(200);
      expectError(await call(ref, 'GET', '/api/bulk/syncs/no-such-sync/error-handling'), 404, 'not_found');
    },
  },
  'ho2-sync-eh-takes-bulk-sync-id': {
    probe: async (ref) => {
      const bulk = await createBulkSync(ref);
      expect((await call(ref, 'PUT', `/api/syncs/${bulk}/error-handling`, { body: {} })).status).toBe(200);
      expectError(await call(ref, 'PUT', '/api/syncs/no-such-sync/error-handling', { body: {} }), 404, 'not_found');
    },
  },
  'ho2-conn-bucket-dots': {
    probe: async (ref) => {
      const bucket = (name: string) => connectionBody('s3', { configuration: { ...connectionBody('s3').configuration as object, object_store_bucket_name: name } });
      expectError(await call(ref, 'POST', '/api/connections', { body: bucket('my.bucket') }), 400, 'validation_error');
      expect((await call(ref, 'POST', '/api/connections', { body: bucket('my-bucket') })).status).toBe(200);
    },
  },
  'ho2-bulk-no-schemas-stores-sync': {
    options: { schemaCacheDelayMs: 60_000 },
    probe: async (ref) => {
      const [source, destination] = [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
      const body = bulkBody(source, destination, { destination_configuration: { format: 'csv' } });
      for (let i = 0; i < 2; i++) expectError(await call(ref, 'POST', '/api/bulk/syncs', { body }), 400, 'schemas_not_cached');
      expect(ref.store.bulkSyncs.size).toBe(2);
    },
  },
  'ho2-put-plus-address': {
    probe: async (ref) => {
      const sync = await createModelSync(ref);
      const put = (subscribers: string[]) => call(ref, 'PUT', `/api/syncs/${sync}/error-handling`, { body: { subscribers } });
      expectError(await put(['ops@example.com', 'ops+alerts@example.com']), 400, 'validation_error');
      expect((await put(['ops.alerts@example.com'])).status).toBe(200);
    },
  },
};
