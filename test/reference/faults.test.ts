import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/cli-errors.ts';
import { deliveryFaults } from '../../src/reference/faults/deliveries.ts';
import { deliveryDataFaults } from '../../src/reference/faults/delivery-data.ts';
import { deliveryReceiverFaults } from '../../src/reference/faults/delivery-receiver.ts';
import { runFaults } from '../../src/reference/faults/benign-runs.ts';
import { heldOutDeliveryFaults } from '../../src/reference/faults/held-out-webhooks.ts';
import { heldOutRunFaults } from '../../src/reference/faults/held-out-webhook-runs.ts';
import { heldOut2RunFaults } from '../../src/reference/faults/held-out-2-runs.ts';
import { heldOut2DeliveryFaults } from '../../src/reference/faults/held-out-2-deliveries.ts';
import { mutationWebhookFaults } from '../../src/reference/faults/mutation-webhooks.ts';
import { faultCatalogue, faultNames, type RunningReference } from '../../src/reference/index.ts';
import requirements from '../../specs/requirements.json' with { type: 'json' };
import { BASIC, bulkBody, call, connectionBody, createBulkSync, createConnection, createModelSync, expectError, sleep, start } from './helpers.ts';
import { errorHandlingProbes } from './error-handling-probes.ts';
import { apiFaultProbes } from './api-fault-probes.ts';
import { dimensionFaultProbes } from './dimension-fault-probes.ts';
import { idsAuthProbes } from './ids-auth-probes.ts';
import { heldOutApiProbes } from './held-out-api-probes.ts';
import { heldOut2ApiProbes } from './held-out-2-api-probes.ts';
import { mutationKillProbes } from './mutation-kill-probes.ts';
import { mutationRoutesProbes } from './mutation-routes-probes.ts';

const UNKNOWN_BULK = '/api/bulk/syncs/nope/error-handling';

/** Connections whose cache is ready at once (delay 0), for faults that are not about the cache. */
async function readyPair(ref: RunningReference): Promise<[string, string]> {
  return [await createConnection(ref, 'salesforce'), await createConnection(ref, 's3')];
}

const csv = { destination_configuration: { format: 'csv' } };

/** One probe per fault: it shows the deviation the fault promises, and nothing wider where that is cheap to show. */
const probes: Record<string, { options?: { schemaCacheDelayMs: number }; probe: (ref: RunningReference) => Promise<void> }> = {
  'no-auth-url': {
    probe: async (ref) => {
      const answer = await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot') });
      expect(answer.status).toBe(200);
      expect(answer.json.data.auth_url).toBeUndefined();
    },
  },
  'reject-empty-configuration': {
    probe: async (ref) => {
      expectError(await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot') }), 400, 'validation_error');
      expect((await call(ref, 'POST', '/api/connections', { body: connectionBody('salesforce') })).status).toBe(200);
    },
  },
  'accept-bad-connection-shape': {
    probe: async (ref) => {
      for (const body of [{ name: 'only a name' }, { name: 1, type: 'hubspot', configuration: {} }, connectionBody('postgresql', { configuration: { port: 'x' } })]) {
        const answer = await call(ref, 'POST', '/api/connections', { body });
        expect(answer.status).toBe(200);
        expect(typeof answer.json.data.id).toBe('string');
      }
      expect(ref.store.connections.size).toBe(0);
      expectError(await call(ref, 'POST', '/api/connections', { body: connectionBody('hubspot', { type: 'oracle' }) }), 400, 'validation_error');
    },
  },
  'echo-secrets-base64': {
    probe: async (ref) => {
      const answer = await call(ref, 'POST', '/api/connections', { body: connectionBody('postgresql') });
      expect(answer.status).toBe(200);
      const sent = (connectionBody('postgresql').configuration as { password: string }).password;
      expect(answer.json.data.configuration.password_b64).toBe(Buffer.from(sent).toString('base64'));
    },
  },
  'echo-secrets': {
    probe: async (ref) => {
      expect((await call(ref, 'POST', '/api/connections', { body: connectionBody('postgresql') })).json.data.configuration.password).toBe('pg-secret-value');
      expect((await call(ref, 'POST', '/api/connections', { body: connectionBody('s3') })).json.data.configuration.cloud_secret_access_key).toBe('s3-secret-value');
    },
  },
  'connection-id-elsewhere': {
    probe: async (ref) => {
      const { data } = (await call(ref, 'POST', '/api/connections', { body: connectionBody('s3') })).json;
      expect(data.id).toBeUndefined();
      expect(ref.store.getConnection(data.connection_id)).toBeDefined();
    },
  },
  'no-schemas-stage': {
    options: { schemaCacheDelayMs: 60_000 },
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, csv) })).status).toBe(200);
    },
  },
  'no-schemas-wrong-body': {
    options: { schemaCacheDelayMs: 60_000 },
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const answer = await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, csv) });
      expectError(answer, 400, 'schemas_not_cached');
      expect(answer.json.metadata).toEqual({});
      expect(answer.json.message).not.toMatch(/^No schemas found/);
    },
  },
  'schemas-never-cached': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      await sleep(20);
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, csv) }), 400, 'schemas_not_cached');
    },
  },
  'bulk-requires-schemas': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const answer = await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, csv) });
      expectError(answer, 400, 'validation_error');
      expect(answer.json.metadata.field).toBe('/schemas');
      expect(ref.store.bulkSyncs.size).toBe(0);
      expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { ...csv, schemas: ['Lead'] }) })).status).toBe(200);
      // Earlier checks keep their answer: the fault only refuses what would have succeeded.
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody('nope', destination, csv) }), 400, 'validation_error');
    },
  },
  'bulk-rejects-schemas-list': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      expectError(await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { ...csv, schemas: ['Lead'] }) }), 400, 'validation_error');
      expect((await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, csv) })).status).toBe(200);
      expect(ref.store.bulkSyncs.size).toBe(1);
    },
  },
  'bulk-accepts-missing-fields': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const answer = await call(ref, 'POST', '/api/bulk/syncs', { body: { source_connection_id: source, destination_connection_id: destination, ...csv } });
      expect(answer.status, answer.text).toBe(200);
    },
  },
  'reject-version-2024-02-08': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { version: '2024-02-08' }), 400, 'unsupported_version');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { version: '2023-04-25' }), 404, 'not_found');
    },
  },
  'accept-wrong-spelling': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const answer = await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { dest_configuration: { format: 'csv' } }) });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.data.destination_configuration).toEqual({ format: 'csv' });
    },
  },
  'new-spelling-only': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const old = { dest_configuration: { format: 'csv' } };
      for (const version of ['2022-12-12', '2021-05-23']) {
        expectError(await call(ref, 'POST', '/api/bulk/syncs', { version, body: bulkBody(source, destination, old) }), 400, 'validation_error');
        expect((await call(ref, 'POST', '/api/bulk/syncs', { version, body: bulkBody(source, destination, csv) })).status).toBe(200);
      }
    },
  },
  'default-version-2022': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const answer = await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, { dest_configuration: { format: 'csv' } }) });
      expect(answer.status).toBe(200);
      expect(answer.headers['x-service-version']).toBe('2022-12-12');
    },
  },
  'unknown-version-accepted': {
    probe: async (ref) => {
      const answer = await call(ref, 'GET', UNKNOWN_BULK, { version: '1999-01-01' });
      expectError(answer, 404, 'not_found');
      expect(answer.headers['x-service-version']).toBe('2025-09-18');
    },
  },
  'threshold-as-string': {
    probe: async (ref) => {
      const id = await createBulkSync(ref);
      expect((await call(ref, 'GET', `/api/bulk/syncs/${id}/error-handling`)).json.data.ingestion_failure_threshold).toBe('0');
    },
  },
  'bulk-error-handling-unknown-200': {
    probe: async (ref) => {
      const answer = await call(ref, 'GET', UNKNOWN_BULK);
      expect(answer.status).toBe(200);
      expect(answer.json.data).toEqual({ ingestion_failure_threshold: null, subscribers: [] });
    },
  },
  ...Object.fromEntries(
    (
      [
        ['put-resets-omitted', [{ auto_retry_record_errors: true, subscribers: ['a@example.com'] }, { warning_notifications: true }], { auto_retry_record_errors: false, subscribers: [], warning_notifications: true }],
        ['put-merges-subscribers', [{ subscribers: ['a@example.com', 'b@example.com'] }, { subscribers: ['b@example.com', 'c@example.com'] }], { subscribers: ['a@example.com', 'b@example.com', 'c@example.com'] }],
        ['put-ignores-empty-list', [{ subscribers: ['a@example.com'] }, { subscribers: [] }], { subscribers: ['a@example.com'] }],
        ['put-accepts-wrong-types', [{ auto_retry_record_errors: 'true', subscribers: 'a@example.com' }], { auto_retry_record_errors: true, subscribers: ['a@example.com'] }],
        ['put-null-clears', [{ notify_on_record_errors: true, subscribers: ['a@example.com'] }, { notify_on_record_errors: null, subscribers: null }], { notify_on_record_errors: false, subscribers: [] }],
      ] as const
    ).map(([name, puts, expected]) => [
      name,
      {
        probe: async (ref: RunningReference) => {
          const path = `/api/syncs/${await createModelSync(ref)}/error-handling`;
          let answer;
          for (const body of puts) answer = await call(ref, 'PUT', path, { body });
          expect(answer!.status, answer!.text).toBe(200);
          expect(answer!.json.data).toMatchObject(expected);
        },
      },
    ]),
  ),
  ...errorHandlingProbes,
  ...apiFaultProbes,
  ...dimensionFaultProbes,
  ...idsAuthProbes,
  ...heldOutApiProbes,
  ...heldOut2ApiProbes,
  ...mutationKillProbes,
  ...mutationRoutesProbes,
  'put-rejects-empty-body': {
    probe: async (ref) => {
      expectError(await call(ref, 'PUT', `/api/syncs/${await createModelSync(ref)}/error-handling`, { body: {} }), 400, 'validation_error');
    },
  },
  'put-response-wrong-types': {
    probe: async (ref) => {
      const answer = await call(ref, 'PUT', `/api/syncs/${await createModelSync(ref)}/error-handling`, { body: { warning_notifications: true } });
      expect(answer.json.data).toMatchObject({ auto_retry_record_errors: 'false', warning_notifications: 'true' });
    },
  },
  'put-unknown-id-200': {
    probe: async (ref) => {
      expect((await call(ref, 'PUT', '/api/syncs/nope/error-handling', { body: { warning_notifications: true } })).status).toBe(200);
    },
  },
  'bulk-subscribers-joined': {
    probe: async (ref) => {
      const [source, destination] = await readyPair(ref);
      const id = (await call(ref, 'POST', '/api/bulk/syncs', { body: bulkBody(source, destination, csv) })).json.data.id as string;
      expect(typeof (await call(ref, 'GET', `/api/bulk/syncs/${id}/error-handling`)).json.data.subscribers).toBe('string');
    },
  },
  'put-resets-omitted-under-2022-12-12': {
    probe: async (ref) => {
      const id = await createModelSync(ref);
      await call(ref, 'PUT', `/api/syncs/${id}/error-handling`, { body: { warning_notifications: true, subscribers: ['a@x.org'] } });
      const latest = await call(ref, 'PUT', `/api/syncs/${id}/error-handling`, { body: { auto_retry_record_errors: true } });
      expect(latest.json.data).toMatchObject({ warning_notifications: true, subscribers: ['a@x.org'] });
      const old = await call(ref, 'PUT', `/api/syncs/${id}/error-handling`, { body: { auto_retry_record_errors: true }, version: '2022-12-12' });
      expect(old.json.data.subscribers).toEqual([]);
    },
  },
  'put-ignores-warning-notifications': {
    probe: async (ref) => {
      const id = await createModelSync(ref);
      const before = (await call(ref, 'PUT', `/api/syncs/${id}/error-handling`, { body: {} })).json.data.warning_notifications;
      const answer = await call(ref, 'PUT', `/api/syncs/${id}/error-handling`, { body: { warning_notifications: !before } });
      expect(answer.json.data.warning_notifications).toBe(before);
    },
  },
  'put-flips-resent-boolean': {
    probe: async (ref) => {
      const id = await createModelSync(ref);
      const before = (await call(ref, 'PUT', `/api/syncs/${id}/error-handling`, { body: {} })).json.data.auto_retry_record_errors;
      const answer = await call(ref, 'PUT', `/api/syncs/${id}/error-handling`, { body: { auto_retry_record_errors: before } });
      expect(answer.json.data.auto_retry_record_errors).toBe(!before);
    },
  },
  'put-duplicates-first-subscriber': {
    probe: async (ref) => {
      const answer = await call(ref, 'PUT', `/api/syncs/${await createModelSync(ref)}/error-handling`, { body: { subscribers: ['a@x.org', 'b@x.org'] } });
      expect(answer.json.data.subscribers).toEqual(['a@x.org', 'a@x.org', 'b@x.org']);
    },
  },
  'put-subscribers-lone-string': {
    probe: async (ref) => {
      const answer = await call(ref, 'PUT', `/api/syncs/${await createModelSync(ref)}/error-handling`, { body: { subscribers: 'a@x.org' } });
      expect(answer.status).toBe(200);
      expect(answer.json.data.subscribers).toEqual(['a@x.org']);
    },
  },
  'connection-port-numeric-string': {
    probe: async (ref) => {
      const body = connectionBody('postgresql');
      const answer = await call(ref, 'POST', '/api/connections', { body: { ...body, configuration: { ...(body.configuration as object), port: '5432' } } });
      expect(answer.status).toBe(200);
      expectError(await call(ref, 'POST', '/api/connections', { body: { ...body, configuration: { ...(body.configuration as object), port: 'x' } } }), 400, 'validation_error');
    },
  },
  'put-unknown-id-empty-body-200': {
    probe: async (ref) => {
      expect((await call(ref, 'PUT', '/api/syncs/nope/error-handling', { body: {} })).status).toBe(200);
      expectError(await call(ref, 'PUT', '/api/syncs/nope/error-handling', { body: { warning_notifications: true } }), 404, 'not_found');
    },
  },
  'bearer-first-token-only': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: `Bearer ${ref.apiKey} extra` }), 404, 'not_found');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: 'Bearer wrong extra' }), 403, 'forbidden');
    },
  },
  'bearer-key-one-char-more': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: `Bearer ${ref.apiKey}x` }), 404, 'not_found');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: `Bearer ${ref.apiKey}xy` }), 403, 'forbidden');
    },
  },
  'basic-key-either-place': {
    probe: async (ref) => {
      const b64 = (s: string) => Buffer.from(s).toString('base64');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: `Basic ${b64(`:${ref.orgKey}`)}` }), 404, 'not_found');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: `Basic ${b64(ref.orgKey)}` }), 404, 'not_found');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: `Basic ${b64(':nope')}` }), 403, 'forbidden');
    },
  },
  'no-schemas-stage-skipped-with-schemas': {
    options: { schemaCacheDelayMs: 60_000 },
    probe: async (ref) => {
      const [a, b] = [await createConnection(ref, 'postgresql'), await createConnection(ref, 'postgresql')];
      const s3 = await createConnection(ref, 's3');
      const post = (source: string, extra: Record<string, unknown>) => call(ref, 'POST', '/api/bulk/syncs', { body: { ...bulkBody(source, s3), destination_configuration: { format: 'csv' }, ...extra } });
      expectError(await post(a, {}), 400, 'schemas_not_cached');
      expect((await post(b, { schemas: ['public.orders'] })).status).toBe(200);
    },
  },
  'wrong-spelling-accepted-2024-database': {
    probe: async (ref) => {
      const [source] = await readyPair(ref);
      const pg = await createConnection(ref, 'postgresql');
      const s3 = await createConnection(ref, 's3');
      const post = (destination: string, settings: Record<string, unknown>, version: string) =>
        call(ref, 'POST', '/api/bulk/syncs', { version, body: { ...bulkBody(source, destination), dest_configuration: settings } });
      expect((await post(pg, { schema: 'x' }, '2024-02-08')).status).toBe(200);
      expect((await post(s3, { format: 'csv' }, '2024-02-08')).status).toBe(400);
      expect((await post(pg, { schema: 'x' }, '2025-09-18')).status).toBe(400);
    },
  },
  'bearer-rejected': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK), 403, 'forbidden');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: BASIC }), 404, 'not_found');
    },
  },
  'basic-rejected': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: BASIC }), 403, 'forbidden');
      expectError(await call(ref, 'GET', UNKNOWN_BULK), 404, 'not_found');
    },
  },
  'missing-credential-allowed': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: null }), 404, 'not_found');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: 'Bearer wrong' }), 403, 'forbidden');
    },
  },
  'wrong-key-allowed': {
    probe: async (ref) => {
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: 'Bearer wrong' }), 404, 'not_found');
      expectError(await call(ref, 'GET', UNKNOWN_BULK, { auth: null }), 403, 'forbidden');
    },
  },
  'error-status-as-string': {
    probe: async (ref) => {
      const answer = await call(ref, 'GET', UNKNOWN_BULK);
      expect(answer.status).toBe(404);
      expect(answer.json.status).toBe('404');
    },
  },
  'error-status-mismatch': {
    probe: async (ref) => {
      const answer = await call(ref, 'GET', UNKNOWN_BULK);
      expect(answer.status).toBe(404);
      expect(answer.json.status).toBe(500);
    },
  },
  'error-status-mismatch-on-404': {
    probe: async (ref) => {
      expect((await call(ref, 'GET', UNKNOWN_BULK)).json.status).toBe(400);
      expect((await call(ref, 'GET', UNKNOWN_BULK, { auth: null })).json.status).toBe(403);
    },
  },
  'error-content-type-text-on-403': {
    probe: async (ref) => {
      expect((await call(ref, 'GET', UNKNOWN_BULK, { auth: null })).headers['content-type']).toMatch(/^text\/plain/);
      expect((await call(ref, 'GET', UNKNOWN_BULK)).headers['content-type']).toMatch(/^application\/json/);
    },
  },
  'error-content-type-text': {
    probe: async (ref) => {
      const answer = await call(ref, 'GET', UNKNOWN_BULK);
      expect(answer.headers['content-type']).toMatch(/^text\/plain/);
      expect(answer.json).toMatchObject({ key: 'not_found', status: 404 });
    },
  },
};

/** Delivery faults need a receiver: webhook-faults.test.ts, webhook-data-faults.test.ts, webhook-receiver-faults.test.ts, held-out-webhook-faults.test.ts, held-out-2-delivery-faults.test.ts and mutation-webhooks-faults.test.ts probe them (run faults: test/suite/adapter-contract.test.ts). */
const probedHere = faultNames().filter((name) => ![...deliveryFaults, ...deliveryDataFaults, ...deliveryReceiverFaults, ...runFaults, ...heldOutDeliveryFaults, ...heldOutRunFaults, ...heldOut2RunFaults, ...heldOut2DeliveryFaults, ...mutationWebhookFaults].some((fault) => fault.name === name));

describe('faults', () => {
  test('every fault has a probe here (delivery faults in webhook-faults.test.ts), and names only catalogued requirement IDs', () => {
    expect(Object.keys(probes).sort()).toEqual([...probedHere].sort());
    const ids = new Set(requirements.requirements.map((r) => r.id));
    for (const fault of faultCatalogue()) {
      expect(fault.breaks.length, fault.name).toBeGreaterThan(0);
      for (const id of fault.breaks) expect(ids.has(id), `${fault.name}: ${id}`).toBe(true);
    }
  });

  test.each(probedHere)('%s starts and shows its deviation', async (name) => {
    const { options = { schemaCacheDelayMs: 0 }, probe } = probes[name]!;
    const ref = await start({ faults: [name], ...options });
    try {
      await probe(ref);
    } finally {
      await ref.close();
    }
  });

  test('every fault can be on at once', async () => {
    const ref = await start({ faults: faultNames() });
    await ref.close();
  });

  test('an unknown fault name is a UsageError listing the known names', async () => {
    const attempt = start({ faults: ['no-auth-url', 'no-such-fault'] });
    await expect(attempt).rejects.toBeInstanceOf(UsageError);
    await expect(attempt).rejects.toThrow(/unknown fault 'no-such-fault'/);
    await expect(attempt).rejects.toThrow(/no-auth-url, .*error-content-type-text/);
  });

  test('faults stay in their own instance', async () => {
    const [faulty, clean] = await Promise.all([start({ faults: ['bearer-rejected', 'unknown-version-accepted'] }), start()]);
    try {
      expectError(await call(faulty, 'GET', UNKNOWN_BULK), 403, 'forbidden');
      expectError(await call(clean, 'GET', UNKNOWN_BULK), 404, 'not_found');
      expectError(await call(clean, 'GET', UNKNOWN_BULK, { version: 'x' }), 400, 'unsupported_version');
    } finally {
      await Promise.all([faulty.close(), clean.close()]);
    }
  });

  // Faults live in faults.ts and faults/ and are wired in by build.ts; the service's own code
  // (comments aside) must not know about them, so that the normal path stays as the spec says.
  test('the core modules do not mention faults outside comments', () => {
    const dir = join(import.meta.dirname, '../../src/reference');
    const allowed = new Set(['faults.ts', 'build.ts', 'index.ts', 'config.ts', 'serve-command.ts', 'faults-command.ts']);
    const core = [...readdirSync(dir).filter((f) => f.endsWith('.ts')), ...readdirSync(join(dir, 'routes')).map((f) => `routes/${f}`)].filter((f) => !allowed.has(f));
    const mentions = core.flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n').filter((line) => /\bfaults?\b/i.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line)).map((line) => `${file}: ${line.trim()}`));
    expect(mentions).toEqual([]);
  });
});
