import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { bulkBody, call, CONFIGURATIONS, connectionBody, createConnection, expectError } from './helpers.ts';

const csv = { destination_configuration: { format: 'csv' } };

// Probes of the faults that one value of a dimension alone triggers (one kind, one version, the
// repeat of an answer): each shows the deviation under that value, and the right answer under a
// neighbouring value.

type Probe = { options?: { schemaCacheDelayMs: number }; probe: (ref: RunningReference) => Promise<void> };

const pair = async (ref: RunningReference): Promise<[string, string]> => [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
const bulk = (ref: RunningReference, body: Record<string, unknown>) => call(ref, 'POST', '/api/bulk/syncs', { body });
const post = (ref: RunningReference, body: Record<string, unknown>, version?: string) => call(ref, 'POST', '/api/connections', { body, ...(version ? { version } : {}) });

export const dimensionFaultProbes: Record<string, Probe> = {
  'connection-refuses-json-charset': {
    probe: async (ref) => {
      const labelled = await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot'), headers: { 'content-type': 'application/json; charset=utf-8' } });
      expectError(labelled, 415, 'unsupported_media_type');
      expect((await post(ref, connectionBody('hubspot'))).status).toBe(200);
    },
  },
  'bulk-charset-case-sensitive': {
    probe: async (ref) => {
      const [source, destination] = await pair(ref);
      const body = bulkBody(source, destination, csv);
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body, headers: { 'content-type': 'application/json;charset=UTF-8' } }), 415, 'unsupported_media_type');
      expect((await call(ref, 'POST', '/api/bulk/syncs', { body, headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(200);
    },
  },
  'webhook-connection-refuses-json-charset': {
    probe: async (ref) => {
      const labelled = { 'content-type': 'application/json; charset=utf-8' };
      const webhook = { name: 'hook', type: 'webhook', configuration: { url: 'https://example.com/hook' } };
      expectError(await call(ref, 'POST', '/api/connections', { body: webhook, headers: labelled }), 415, 'unsupported_media_type');
      expect((await post(ref, webhook)).status).toBe(200);
      expect((await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot'), headers: labelled })).status).toBe(200);
    },
  },
  'bulk-database-destination-refuses-json-charset': {
    probe: async (ref) => {
      const labelled = { 'content-type': 'application/json; charset=utf-8' };
      const [source, s3] = await pair(ref);
      const database = await createConnection(ref, 'postgresql');
      const body = bulkBody(source, database, { destination_configuration: { schema: 'dssc' } });
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body, headers: labelled }), 415, 'unsupported_media_type');
      expect((await bulk(ref, body)).status).toBe(200);
      expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, s3, csv), headers: labelled })).status).toBe(200);
    },
  },
  'object-store-config-types-lenient': {
    probe: async (ref) => {
      const s3 = connectionBody('s3', { configuration: { ...CONFIGURATIONS.s3, object_store_bucket_name: null, cloud_access_key_id: 1 } });
      expect((await post(ref, s3)).status).toBe(200);
      expectError(await post(ref, connectionBody('postgresql', { configuration: { ...CONFIGURATIONS.postgresql, database: 1 } })), 400, 'validation_error');
    },
  },
  'crm-domain-null-accepted': {
    probe: async (ref) => {
      expect((await post(ref, connectionBody('salesforce', { configuration: { domain: null } }))).status).toBe(200);
      expectError(await post(ref, connectionBody('salesforce', { configuration: { domain: 1 } })), 400, 'validation_error');
    },
  },
  'marketing-name-defaulted': {
    probe: async (ref) => {
      const { name: _drop, ...unnamed } = connectionBody('hubspot');
      expect((await post(ref, unnamed)).status).toBe(200);
      const { name: _also, ...unnamedCrm } = connectionBody('salesforce');
      expectError(await post(ref, unnamedCrm), 400, 'validation_error');
    },
  },
  'connection-port-edge-refused': {
    probe: async (ref) => {
      expectError(await post(ref, connectionBody('postgresql', { configuration: { ...CONFIGURATIONS.postgresql, port: 65535 } })), 400, 'validation_error');
      expect((await post(ref, connectionBody('postgresql', { configuration: { ...CONFIGURATIONS.postgresql, port: 65534 } }))).status).toBe(200);
    },
  },
  'connection-name-past-255-refused': {
    probe: async (ref) => {
      expectError(await post(ref, connectionBody('hubspot', { name: 'n'.repeat(256) })), 400, 'validation_error');
      expect((await post(ref, connectionBody('hubspot', { name: 'n'.repeat(255) }))).status).toBe(200);
    },
  },
  'crm-redirect-url-list-dropped': {
    probe: async (ref) => {
      expect((await post(ref, connectionBody('salesforce', { redirect_url: [] }))).status).toBe(200);
      expectError(await post(ref, connectionBody('salesforce', { redirect_url: 1 })), 400, 'validation_error');
      expectError(await post(ref, connectionBody('hubspot', { redirect_url: [] })), 400, 'validation_error');
    },
  },
  'bulk-name-non-ascii-500': {
    probe: async (ref) => {
      const [source, destination] = await pair(ref);
      expectError(await bulk(ref, bulkBody(source, destination, { ...csv, name: 'dssc 東京' })), 500, 'internal_error');
      expect((await bulk(ref, bulkBody(source, destination, { ...csv, name: 'n'.repeat(1000) }))).status).toBe(200);
    },
  },
  'bulk-schemas-capped-at-10': {
    probe: async (ref) => {
      const [source, destination] = await pair(ref);
      expectError(await bulk(ref, bulkBody(source, destination, { ...csv, schemas: Array(11).fill('Lead') })), 400, 'validation_error');
      expect((await bulk(ref, bulkBody(source, destination, { ...csv, schemas: Array(10).fill('Lead') }))).status).toBe(200);
    },
  },
  'bulk-frequency-defaulted': {
    probe: async (ref) => {
      const [source, destination] = await pair(ref);
      expect((await bulk(ref, bulkBody(source, destination, { ...csv, schedule: { frequency: null } }))).status).toBe(200);
      expectError(await bulk(ref, bulkBody(source, destination, { ...csv, schedule: { frequency: 5 } })), 400, 'validation_error');
    },
  },
  'bulk-schemas-null-500': {
    probe: async (ref) => {
      const [source, destination] = await pair(ref);
      expectError(await bulk(ref, bulkBody(source, destination, { ...csv, schemas: null })), 500, 'internal_error');
      expect((await bulk(ref, bulkBody(source, destination, csv))).status).toBe(200);
    },
  },
  'bulk-schemas-lone-string-500': {
    probe: async (ref) => {
      const [source, destination] = await pair(ref);
      expectError(await bulk(ref, bulkBody(source, destination, { ...csv, schemas: 'Lead' })), 500, 'internal_error');
      expectError(await bulk(ref, bulkBody(source, destination, { ...csv, schemas: null })), 400, 'validation_error');
    },
  },
  'bulk-settings-not-object-500': {
    probe: async (ref) => {
      const [source, destination] = await pair(ref);
      expectError(await bulk(ref, bulkBody(source, destination, { destination_configuration: 'csv' })), 500, 'internal_error');
      expectError(await bulk(ref, bulkBody(source, destination, { destination_configuration: null })), 400, 'validation_error');
    },
  },
  'connection-2022-object-store-refused': {
    probe: async (ref) => {
      expectError(await post(ref, connectionBody('s3'), '2022-12-12'), 400, 'validation_error');
      expect((await post(ref, connectionBody('s3'), '2023-04-25')).status).toBe(200);
      expect((await post(ref, connectionBody('postgresql'), '2022-12-12')).status).toBe(200);
    },
  },
  'connection-without-version-refused': {
    probe: async (ref) => {
      expectError(await post(ref, connectionBody('hubspot')), 400, 'unsupported_version');
      expect((await post(ref, connectionBody('hubspot'), '2025-09-18')).status).toBe(200);
      expectError(await call(ref, 'GET', '/api/bulk/syncs/nope/error-handling'), 404, 'not_found');
    },
  },
  'no-schemas-repeat-metadata': {
    options: { schemaCacheDelayMs: 60_000 },
    probe: async (ref) => {
      const [source, destination] = [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
      const body = bulkBody(source, destination, csv);
      const first = await call(ref, 'POST', '/api/bulk/syncs', { body });
      expectError(first, 400, 'schemas_not_cached');
      expect(first.json.metadata).toBeNull();
      const again = await call(ref, 'POST', '/api/bulk/syncs', { body });
      expectError(again, 400, 'schemas_not_cached');
      expect(again.json.metadata).toEqual({ connection_id: source, attempt: 2 });
    },
  },
  'no-schemas-body-2022': {
    options: { schemaCacheDelayMs: 60_000 },
    probe: async (ref) => {
      const [source, destination] = [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
      const old = await call(ref, 'POST', '/api/bulk/syncs', { version: '2022-12-12', body: bulkBody(source, destination, { dest_configuration: { format: 'csv' } }) });
      expect(old.json).toMatchObject({ key: 'schemas_not_cached', status: '400', metadata: {} });
      const now = await call(ref, 'POST', '/api/bulk/syncs', { version: '2025-09-18', body: bulkBody(source, destination, csv) });
      expect(now.json).toMatchObject({ key: 'schemas_not_cached', status: 400, metadata: null });
    },
  },
};
