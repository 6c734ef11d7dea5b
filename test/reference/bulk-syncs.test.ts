import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { bulkBody, CACHE_DELAY_MS, call, createConnection, expectError, sleep, start } from './helpers.ts';

let ref: RunningReference;
/**
 * A cache delay no busy machine outlasts (400 ms was over before the first request at load 40), so
 * that "not cached yet" does not depend on how fast the machine is; the test then ends the stage
 * itself instead of waiting a minute.
 */
let slow: RunningReference;
const ids = { salesforce: '', hubspot: '', s3: '', postgresql: '', webhook: '' };

beforeAll(async () => {
  [ref, slow] = await Promise.all([start(), start({ schemaCacheDelayMs: 600_000 })]);
  for (const type of Object.keys(ids) as (keyof typeof ids)[]) ids[type] = await createConnection(ref, type);
  await sleep(CACHE_DELAY_MS + 10);
});
afterAll(() => Promise.all([ref.close(), slow.close()]));

const post = (body: unknown, version?: string, target = ref) =>
  call(target, 'POST', '/api/bulk/syncs', version === undefined ? { body } : { body, version });

describe('POST /api/bulk/syncs: the schema cache', () => {
  test('before the cache is ready: 400 schemas_not_cached with the exact body, nothing created, safe to repeat, then 200', async () => {
    const destination = await createConnection(slow, 's3');
    const source = await createConnection(slow, 'salesforce');
    const body = bulkBody(source, destination, { destination_configuration: { format: 'csv' } });
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await post(body, undefined, slow);
      expectError(answer, 400, 'schemas_not_cached');
      expect(answer.json).toEqual({
        key: 'schemas_not_cached',
        message: `No schemas found for connection ${source}; the schema cache is still being built, try again in a few seconds.`,
        metadata: null,
        status: 400,
      });
      expect(slow.store.bulkSyncs.size).toBe(0);
    }
    slow.store.getConnection(source)!.schemasReadyAt = Date.now();
    const answer = await post(body, undefined, slow);
    expect(answer.status, answer.text).toBe(200);
    expect(slow.store.bulkSyncs.size).toBe(1);
  });
});

describe('POST /api/bulk/syncs: the stage is held until seen twice (the default)', () => {
  // The delay is over before each request comes: only the hold can answer "No schemas found".
  test('the first two valid requests on a fresh source get it however late they come, the next one 200', async () => {
    const held = await start({ schemaCacheDelayMs: 1, holdSchemaStage: true });
    try {
      const destination = await createConnection(held, 's3');
      const source = await createConnection(held, 'salesforce');
      await sleep(20);
      const body = bulkBody(source, destination, { destination_configuration: { format: 'csv' } });
      // A request refused for its body first does not use the stage up.
      expectError(await post({ ...body, destination_configuration: {} }, undefined, held), 400, 'validation_error');
      expectError(await post({ ...body, schemas: ['Lead'] }, undefined, held), 400, 'schemas_not_cached');
      expectError(await post(body, undefined, held), 400, 'schemas_not_cached');
      const answer = await post(body, undefined, held);
      expect(answer.status, answer.text).toBe(200);
    } finally {
      await held.close();
    }
  });

  test('with no delay there is no stage to hold', async () => {
    const instant = await start({ schemaCacheDelayMs: 0, holdSchemaStage: true });
    try {
      const destination = await createConnection(instant, 's3');
      const source = await createConnection(instant, 'salesforce');
      const answer = await post(bulkBody(source, destination, { destination_configuration: { format: 'csv' } }), undefined, instant);
      expect(answer.status, answer.text).toBe(200);
    } finally {
      await instant.close();
    }
  });
});

describe('POST /api/bulk/syncs: success', () => {
  test('answers 200 with the sync, every source object when schemas is omitted', async () => {
    const answer = await post(bulkBody(ids.salesforce, ids.postgresql, { destination_configuration: { schema: 'analytics' } }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toEqual({
      id: expect.any(String),
      name: 'test bulk sync',
      source_connection_id: ids.salesforce,
      destination_connection_id: ids.postgresql,
      mode: 'replicate',
      schedule: { frequency: 'manual' },
      schemas: ['Account', 'Contact', 'Lead', 'Opportunity'],
      destination_configuration: { schema: 'analytics' },
    });
    expect(ref.store.bulkSyncs.has(answer.json.data.id)).toBe(true);
  });

  test.each([
    ['salesforce', ['Lead']],
    ['hubspot', ['deals', 'contacts']],
    ['s3', ['users.csv']],
    ['postgresql', ['public.orders']],
  ] as const)('a %s source syncs just the objects named in schemas', async (type, schemas) => {
    const answer = await post(bulkBody(ids[type], ids.s3, { schemas, destination_configuration: { format: 'csv' } }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.schemas).toEqual(schemas);
  });

  test('a destination that needs no settings takes none', async () => {
    const answer = await post(bulkBody(ids.postgresql, ids.hubspot));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.destination_configuration).toBeNull();
  });
});

describe('POST /api/bulk/syncs: versions and spellings', () => {
  const renamed = ['2025-09-18', '2024-02-08', '2023-04-25'];
  const original = ['2022-12-12', '2021-05-23'];

  test.each([...renamed.map((v) => [v, 'destination_configuration', 'dest_configuration']), ...original.map((v) => [v, 'dest_configuration', 'destination_configuration'])])(
    'under %s, %s is accepted and answered under that name; %s is 400 naming the expected field',
    async (version, right, wrong) => {
      const ok = await post(bulkBody(ids.salesforce, ids.postgresql, { [right]: { schema: 'raw' } }), version);
      expect(ok.status, ok.text).toBe(200);
      expect(ok.json.data[right]).toEqual({ schema: 'raw' });
      expect(ok.json.data).not.toHaveProperty(wrong);

      const refused = await post(bulkBody(ids.salesforce, ids.postgresql, { [wrong]: { schema: 'raw' } }), version);
      expectError(refused, 400, 'validation_error');
      expect(refused.json.message).toContain(`version ${version} spells the destination settings ${right}, not ${wrong}`);
      expect(refused.json.metadata).toEqual({ field: `/${wrong}`, expected: `/${right}` });

      const both = await post(bulkBody(ids.salesforce, ids.postgresql, { [right]: { schema: 'raw' }, [wrong]: { schema: 'raw' } }), version);
      expectError(both, 400, 'validation_error');
    },
  );

  test('without the header, the default version spelling (destination_configuration) is the one', async () => {
    expect((await post(bulkBody(ids.salesforce, ids.s3, { destination_configuration: { format: 'csv' } }))).status).toBe(200);
    expectError(await post(bulkBody(ids.salesforce, ids.s3, { dest_configuration: { format: 'csv' } })), 400, 'validation_error');
  });

  test.each([
    ['2025-09-18', 's3', {}, '/destination_configuration'],
    ['2025-09-18', 'postgresql', {}, '/destination_configuration'],
    ['2022-12-12', 's3', {}, '/dest_configuration'],
    ['2021-05-23', 'postgresql', {}, '/dest_configuration'],
    ['2025-09-18', 's3', { destination_configuration: {} }, '/destination_configuration/format'],
    ['2025-09-18', 's3', { destination_configuration: { format: 'parquet' } }, '/destination_configuration/format'],
    ['2022-12-12', 'postgresql', { dest_configuration: { format: 'csv' } }, '/dest_configuration/schema'],
    ['2022-12-12', 'postgresql', { dest_configuration: { schema: '' } }, '/dest_configuration/schema'],
    ['2023-04-25', 'postgresql', { destination_configuration: { schema: 5 } }, '/destination_configuration/schema'],
  ] as const)('under %s a %s destination with settings %j is 400 naming %s', async (version, destination, extra, field) => {
    const answer = await post(bulkBody(ids.salesforce, ids[destination], extra), version);
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe(field);
    expect(answer.json.message).toContain(field);
  });
});

describe('POST /api/bulk/syncs: refused bodies', () => {
  const valid = () => bulkBody(ids.salesforce, ids.s3, { destination_configuration: { format: 'csv' } });
  const without = (field: string) => Object.fromEntries(Object.entries(valid()).filter(([k]) => k !== field));

  test.each([
    ['name missing', () => without('name'), '/name'],
    ['source_connection_id missing', () => without('source_connection_id'), '/source_connection_id'],
    ['destination_connection_id missing', () => without('destination_connection_id'), '/destination_connection_id'],
    ['mode missing', () => without('mode'), '/mode'],
    ['schedule missing', () => without('schedule'), '/schedule'],
    ['schedule.frequency missing', () => ({ ...valid(), schedule: {} }), '/schedule/frequency'],
    ['name not a string', () => ({ ...valid(), name: 1 }), '/name'],
    ['schedule not an object', () => ({ ...valid(), schedule: 'manual' }), '/schedule'],
    ['schemas not a list', () => ({ ...valid(), schemas: 'Lead' }), '/schemas'],
    ['a mode neither the spec nor the real service has', () => ({ ...valid(), mode: 'append' }), '/mode'],
    ['a frequency neither the spec nor the real service has', () => ({ ...valid(), schedule: { frequency: 'fortnightly' } }), '/schedule/frequency'],
    ['an unknown source connection', () => ({ ...valid(), source_connection_id: 'no-such-id' }), '/source_connection_id'],
    ['an unknown destination connection', () => ({ ...valid(), destination_connection_id: 'no-such-id' }), '/destination_connection_id'],
    ['a webhook as the source', () => ({ ...valid(), source_connection_id: ids.webhook }), '/source_connection_id'],
    ['a schema the source lacks', () => ({ ...valid(), schemas: ['Lead', 'contacts'] }), '/schemas/1'],
    ['a shape error and an unknown connection: the shape is named first', () => ({ ...without('name'), source_connection_id: 'nope' }), '/name'],
  ])('%s is 400 validation_error naming %s, and creates nothing', async (_label, body, field) => {
    const before = ref.store.bulkSyncs.size;
    const answer = await post(body());
    expectError(answer, 400, 'validation_error');
    expect(answer.json.metadata.field).toBe(field);
    expect(answer.json.message).toContain(field);
    expect(ref.store.bulkSyncs.size).toBe(before);
  });
});
