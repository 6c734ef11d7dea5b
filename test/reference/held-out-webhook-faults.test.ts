import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldOutRunFaults } from '../../src/reference/faults/held-out-webhook-runs.ts';
import { heldOutDeliveryFaults } from '../../src/reference/faults/held-out-webhooks.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { call, start } from './helpers.ts';
import { body, createSource, createWebhookSync, idsOf, recordsOf, rows, runOnce, SELECTED, writeRows, type SyncOptions, type TestRow } from './webhook-helpers.ts';

// One probe per held-out webhook fault (faults/held-out-webhooks.ts, held-out-webhook-runs.ts),
// over real loopback to the capturing receiver: each shows the deviation its fault promises.

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** A sync over `initial` to a fresh channel (answering `then` to every delivery); `run()` runs it once. */
async function setup(ref: RunningReference, initial: TestRow[], options: SyncOptions = {}, then = 200) {
  const channel = receiver.channel();
  channel.script([], then);
  const source = await createSource(ref, initial);
  const sync = await createWebhookSync(ref, channel, source, options);
  return { ...sync, channel, source, run: () => runOnce(ref, channel, sync.syncId), write: (changed: TestRow[]) => writeRows(ref, source, changed) };
}

const sizes = (ds: Awaited<ReturnType<typeof runOnce>>['deliveries']) => ds.map((d) => body(d).object.records.length);

const probes: Record<string, (ref: RunningReference) => Promise<void>> = {
  'batch-size-one-taken-as-unset': async (ref) => {
    const s = await setup(ref, rows(3), { configuration: { batch_size: 1 } });
    expect(sizes((await s.run()).deliveries)).toEqual([3]);
    const two = await setup(ref, rows(3), { configuration: { batch_size: 2 } });
    expect(sizes((await two.run()).deliveries)).toEqual([2, 1]);
  },
  'batch-size-above-default-plus-one': async (ref) => {
    const s = await setup(ref, rows(103), { configuration: { batch_size: 101 } });
    expect(sizes((await s.run()).deliveries)).toEqual([102, 1]);
    const small = await setup(ref, rows(3), { configuration: { batch_size: 2 } });
    expect(sizes((await small.run()).deliveries)).toEqual([2, 1]);
  },
  'third-batch-repeats-previous-last': async (ref) => {
    const s = await setup(ref, rows(5), { configuration: { batch_size: 2 } });
    expect(idsOf((await s.run()).deliveries)).toEqual(['r000', 'r001', 'r002', 'r003', 'r003', 'r004']);
  },
  'content-type-missing-single-record-batch': async (ref) => {
    const s = await setup(ref, rows(3), { configuration: { batch_size: 2 } });
    expect((await s.run()).deliveries.map((d) => d.headers['content-type'])).toEqual(['application/json', undefined]);
  },
  'gzip-skipped-small-bodies': async (ref) => {
    const small = await setup(ref, rows(1));
    const [d] = (await small.run()).deliveries;
    expect(d!.gzip).toBe(false);
    expect(d!.headers['content-encoding']).toBeUndefined();
    expect(body(d!).object.records).toHaveLength(1);
    const large = await setup(ref, rows(20));
    expect((await large.run()).deliveries.map((x) => x.gzip)).toEqual([true]);
  },
  'metadata-keys-lowercased': async (ref) => {
    const s = await setup(ref, rows(1), { configuration: { metadata: { 'Data-Owner': 'Zoë', team: 'a' } } });
    expect(body((await s.run()).deliveries[0]!).object.metadata).toEqual({ 'data-owner': 'Zoë', team: 'a' });
  },
  'shared-connection-first-sync-id': async (ref) => {
    const s = await setup(ref, rows(1));
    await s.run();
    const second = await call(ref, 'POST', '/api/syncs', {
      body: { name: 'second sync', target: { connection_id: s.connectionId, object: 'http', configuration: {} }, fields: SELECTED.map((f) => ({ source: { model_id: s.source, field: f.field }, target: f.target })) },
    });
    expect(second.status, second.text).toBe(200);
    const { deliveries } = await runOnce(ref, s.channel, second.json.data.id);
    expect(body(deliveries[0]!).object).toMatchObject({ id: s.syncId, name: 'second sync' });
  },
  'field-names-lowercased': async (ref) => {
    const s = await setup(ref, rows(1), { selection: [{ field: 'id', target: 'id' }, { field: 'name', target: 'fullName' }] });
    expect(Object.keys(recordsOf((await s.run()).deliveries)[0]!.fields)).toEqual(['id', 'fullname']);
  },
  'same-column-one-target': async (ref) => {
    const s = await setup(ref, rows(1), { selection: [{ field: 'id', target: 'id' }, { field: 'email', target: 'email' }, { field: 'email', target: 'emailCopy' }] });
    expect(recordsOf((await s.run()).deliveries)[0]!.fields).toEqual({ id: 'r000', emailCopy: 'u0@example.com' });
  },
  'skip-backfill-tail-not-baselined': async (ref) => {
    const s = await setup(ref, rows(3), { skip_initial_backfill: true, configuration: { batch_size: 2 } });
    expect((await s.run()).deliveries).toEqual([]);
    expect(idsOf((await s.run()).deliveries)).toEqual(['r002']);
  },
  'change-back-not-sent': async (ref) => {
    const [a] = rows(1);
    const s = await setup(ref, [a!]);
    await s.run();
    await s.write([{ ...a!, email: 'other@example.com' }]);
    expect(idsOf((await s.run()).deliveries)).toEqual(['r000']);
    await s.write([a!]);
    expect((await s.run()).deliveries).toEqual([]);
  },
  'conflict-answer-completes': async (ref) => {
    const s = await setup(ref, rows(1), {}, 409);
    expect((await s.run()).run.status).toBe('completed');
    const other = await setup(ref, rows(1), {}, 410);
    expect((await other.run()).run.status).toBe('failed');
  },
  'gateway-timeout-completes': async (ref) => {
    const s = await setup(ref, rows(1), {}, 504);
    expect((await s.run()).run.status).toBe('completed');
    const other = await setup(ref, rows(1), {}, 503);
    expect((await other.run()).run.status).toBe('failed');
  },
  'capture-off-first-run-only': async (ref) => {
    const s = await setup(ref, rows(1), { configuration: { record_requests: false } });
    expect((await s.run()).run.requests).toBeNull();
    await s.write(rows(2).slice(1));
    expect((await s.run()).run.requests).toHaveLength(1);
  },
};

const faults = [...heldOutDeliveryFaults, ...heldOutRunFaults];

describe('held-out webhook faults', () => {
  test('every held-out webhook fault has a probe here', () => {
    expect(Object.keys(probes).sort()).toEqual(faults.map((f) => f.name).sort());
  });

  test.each(faults.map((f) => f.name))('%s shows its deviation', async (name) => {
    const ref = await start({ faults: [name] });
    try {
      await probes[name]!(ref);
    } finally {
      await ref.close();
    }
  });
});
