import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deliveryFaults } from '../../src/reference/faults/deliveries.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Channel, type Delivery, type Receiver } from '../../src/receiver/index.ts';
import { start } from './helpers.ts';
import { body, createSource, createWebhookSync, idsOf, recordsOf, rows, runOnce, SELECTED, writeRows, type SyncOptions } from './webhook-helpers.ts';

// One probe per delivery fault (faults/deliveries.ts), over real loopback to the capturing
// receiver: each shows the deviation its fault promises. faults.test.ts probes the others.

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

interface Setup {
  ref: RunningReference;
  channel: Channel;
  source: string;
  syncId: string;
  secret: string;
  /** Runs the sync once: the run as GET answers it, and the deliveries it made. */
  run(): Promise<{ run: any; deliveries: Delivery[] }>;
}

/** A sync over `count` rows delivering to a fresh channel, on a reference that has `ref`'s fault. */
async function setup(ref: RunningReference, count: number, options: SyncOptions = {}): Promise<Setup> {
  const channel = receiver.channel();
  const source = await createSource(ref, rows(count));
  const { syncId, secret } = await createWebhookSync(ref, channel, source, options);
  return { ref, channel, source, syncId, secret, run: () => runOnce(ref, channel, syncId) };
}

const header = (d: Delivery, name: string): string | undefined => d.headers[name];

const probes: Record<string, (ref: RunningReference) => Promise<void>> = {
  'delivery-method-put': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    expect(deliveries.map((d) => d.method)).toEqual(['PUT']);
  },
  'delivery-not-gzip': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    const d = deliveries[0]!;
    expect(d.gzip).toBe(false);
    expect(header(d, 'content-encoding')).toBeUndefined();
    expect(body(d).event).toBe('sync.records');
  },
  'delivery-content-type-text': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    expect(header(deliveries[0]!, 'content-type')).toBe('text/plain');
  },
  'delivery-no-accept-encoding': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    expect(header(deliveries[0]!, 'accept-encoding')).toBeUndefined();
  },
  'delivery-chunked': async (ref) => {
    const { run, deliveries } = await (await setup(ref, 2)).run();
    const d = deliveries[0]!;
    expect(header(d, 'content-length')).toBeUndefined();
    expect(header(d, 'transfer-encoding')).toBe('chunked');
    expect(d.gzip).toBe(true);
    expect(recordsOf(deliveries)).toHaveLength(2);
    expect(run.status).toBe('completed');
  },
  'delivery-local-time': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    const d = deliveries[0]!;
    const stamp = header(d, 'service-signature-timestamp')!;
    expect(stamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+01:00$/);
    // Current (within the time in transit on a busy machine), only written in another zone.
    expect(Math.abs(Date.parse(stamp) - Date.parse(d.receivedAt))).toBeLessThan(20_000);
  },
  'delivery-stale-timestamp': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    const d = deliveries[0]!;
    const age = Date.parse(d.receivedAt) - Date.parse(header(d, 'service-signature-timestamp')!);
    expect(age).toBeGreaterThanOrEqual(600_000);
    // Ten minutes plus the delivery's time in transit (seconds at most on a busy machine).
    expect(age).toBeLessThan(630_000);
  },
  'full-sync-later-run-duplicates': async (ref) => {
    const s = await setup(ref, 3, { sync_all_records: true });
    expect(recordsOf((await s.run()).deliveries)).toHaveLength(3);
    expect(recordsOf((await s.run()).deliveries)).toHaveLength(4);
  },
  'delivery-content-type-later-runs': async (ref) => {
    const s = await setup(ref, 2);
    expect(header((await s.run()).deliveries[0]!, 'content-type')).toBe('application/json');
    await writeRows(ref, s.source, rows(1, 3));
    expect(header((await s.run()).deliveries[0]!, 'content-type')).toBe('application/octet-stream');
  },
  'delivery-accept-encoding-later-runs': async (ref) => {
    const s = await setup(ref, 2);
    expect(header((await s.run()).deliveries[0]!, 'accept-encoding')).toBe('gzip');
    await writeRows(ref, s.source, rows(1, 3));
    expect(header((await s.run()).deliveries[0]!, 'accept-encoding')).toBe('identity');
  },
  'delivery-user-agent-later-runs': async (ref) => {
    const s = await setup(ref, 2);
    expect(header((await s.run()).deliveries[0]!, 'user-agent')).toMatch(/^DSS-Reference\//);
    await writeRows(ref, s.source, rows(1, 3));
    expect(header((await s.run()).deliveries[0]!, 'user-agent')).toBe('DSS-Reference');
  },
  'delivery-object-name-later-runs': async (ref) => {
    const s = await setup(ref, 2);
    const name = (d: Delivery) => (d.json as { object: { name: string } }).object.name;
    expect(name((await s.run()).deliveries[0]!)).not.toBe(s.syncId);
    await writeRows(ref, s.source, rows(1, 3));
    expect(name((await s.run()).deliveries[0]!)).toBe(s.syncId);
  },
  'delivery-null-as-empty-string': async (ref) => {
    const channel = receiver.channel();
    const source = await createSource(ref, [{ id: 'x1', email: null, name: 'n', score: 1, active: true, note: '' }]);
    const { syncId } = await createWebhookSync(ref, channel, source);
    const { deliveries } = await runOnce(ref, channel, syncId);
    expect(Object.values(recordsOf(deliveries)[0]!.fields)).toContain('');
    expect(Object.values(recordsOf(deliveries)[0]!.fields)).not.toContain(null);
  },
  'delivery-numeric-strings-as-numbers': async (ref) => {
    const channel = receiver.channel();
    const source = await createSource(ref, [{ id: 'x1', email: 'a@x.org', name: '0', score: '1', active: 'true', note: '' }]);
    const { syncId } = await createWebhookSync(ref, channel, source);
    const { deliveries } = await runOnce(ref, channel, syncId);
    const fields = recordsOf(deliveries)[0]!.fields as Record<string, unknown>;
    expect(Object.values(fields)).toEqual(expect.arrayContaining([1, 0]));
  },
  'delivery-host-elsewhere': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    expect(header(deliveries[0]!, 'host')).toBe('dssc-elsewhere.invalid');
    expect(recordsOf(deliveries)).toHaveLength(2);
  },
  'delivery-wrong-bearer': async (ref) => {
    const s = await setup(ref, 2);
    const { deliveries } = await s.run();
    expect(header(deliveries[0]!, 'authorization')).toMatch(/^Bearer \S+$/);
    expect(header(deliveries[0]!, 'authorization')).not.toBe(`Bearer ${s.secret}`);
  },
  'delivery-rotating-bearer': async (ref) => {
    const s = await setup(ref, 3, { configuration: { batch_size: 1 } });
    const auth = (await s.run()).deliveries.map((d) => header(d, 'authorization'));
    expect(auth[0]).toBe(`Bearer ${s.secret}`);
    expect(new Set(auth).size).toBe(3);
    await writeRows(ref, s.source, rows(1, 3));
    expect(header((await s.run()).deliveries[0]!, 'authorization')).not.toBe(`Bearer ${s.secret}`);
  },
  'delivery-no-user-agent': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    expect(header(deliveries[0]!, 'user-agent')).toBeUndefined();
  },
  'delivery-wrong-event': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    expect(body(deliveries[0]!).event).toBe('sync.record');
  },
  'delivery-wrong-object-id': async (ref) => {
    const s = await setup(ref, 2);
    const { run, deliveries } = await s.run();
    expect(body(deliveries[0]!).object.id).toBe(run.id);
    expect(run.id).not.toBe(s.syncId);
  },
  'delivery-extra-field': async (ref) => {
    const { deliveries } = await (await setup(ref, 2)).run();
    expect(Object.keys(recordsOf(deliveries)[0]!.fields).sort()).toEqual(['email', 'full_name', 'id', 'name', 'note', 'score']);
  },
  'hash-key-order': async (ref) => {
    const forward = await setup(ref, 2);
    const backward = await createWebhookSync(ref, forward.channel, forward.source, { selection: [...SELECTED].reverse() });
    const a = recordsOf((await forward.run()).deliveries).map((r) => r.hash);
    const b = recordsOf((await runOnce(ref, forward.channel, backward.syncId)).deliveries).map((r) => r.hash);
    expect(a[0]).not.toBe(b[0]);
    expect(new Set(a).size).toBe(2);
  },
  'hash-ignores-values': async (ref) => {
    const hashes = recordsOf((await (await setup(ref, 3)).run()).deliveries).map((r) => r.hash);
    expect(new Set(hashes).size).toBe(1);
  },
  'metadata-dropped': async (ref) => {
    const { deliveries } = await (await setup(ref, 2, { configuration: { metadata: { team: 'data' } } })).run();
    expect(body(deliveries[0]!).object.metadata).toBeNull();
  },
  'batch-size-plus-one': async (ref) => {
    const { deliveries } = await (await setup(ref, 10, { configuration: { batch_size: 3 } })).run();
    expect(deliveries.map((d) => body(d).object.records.length)).toEqual([4, 4, 2]);
  },
  'lose-record': async (ref) => {
    const s = await setup(ref, 7, { configuration: { batch_size: 3 } });
    const first = await s.run();
    expect(idsOf(first.deliveries)).toEqual(['r000', 'r001', 'r002', 'r003', 'r004', 'r005']);
    expect(first.run).toMatchObject({ status: 'completed', counts: { total: 7 } });
    expect((await s.run()).deliveries).toEqual([]);
    // Only the first run loses one.
    await writeRows(ref, s.source, rows(2, 7));
    expect(idsOf((await s.run()).deliveries)).toEqual(['r007', 'r008']);
  },
  'duplicate-record': async (ref) => {
    const { deliveries, run } = await (await setup(ref, 4, { configuration: { batch_size: 3 } })).run();
    expect(idsOf(deliveries)).toEqual(['r000', 'r001', 'r002', 'r000', 'r001', 'r002', 'r003', 'r003']);
    expect(run.requests).toHaveLength(4);
  },
  'differential-resends-all': async (ref) => {
    const s = await setup(ref, 2);
    await s.run();
    expect(idsOf((await s.run()).deliveries)).toEqual(['r000', 'r001']);
    const skip = await setup(ref, 2, { skip_initial_backfill: true });
    expect((await skip.run()).deliveries).toEqual([]);
  },
  'full-sync-ignored': async (ref) => {
    const s = await setup(ref, 2, { sync_all_records: true });
    expect(idsOf((await s.run()).deliveries)).toEqual(['r000', 'r001']);
    expect((await s.run()).deliveries).toEqual([]);
  },
  'skip-backfill-ignored': async (ref) => {
    const s = await setup(ref, 2, { skip_initial_backfill: true });
    expect(idsOf((await s.run()).deliveries)).toEqual(['r000', 'r001']);
  },
  '4xx-completes': async (ref) => {
    const s = await setup(ref, 4, { configuration: { batch_size: 2 } });
    s.channel.script([400]);
    expect(await s.run()).toMatchObject({ run: { status: 'completed', counts: { total: 4 } }, deliveries: [{ response: { status: 400 } }, {}] });
    await writeRows(ref, s.source, rows(1, 4));
    s.channel.script([503]);
    expect((await s.run()).run.status).toBe('failed');
  },
  '5xx-completes': async (ref) => {
    const s = await setup(ref, 4, { configuration: { batch_size: 2 } });
    s.channel.script([503]);
    expect(await s.run()).toMatchObject({ run: { status: 'completed', counts: { total: 4 } }, deliveries: [{ response: { status: 503 } }, {}] });
    await writeRows(ref, s.source, rows(1, 4));
    s.channel.script([400]);
    expect((await s.run()).run.status).toBe('failed');
  },
  'extra-delivery-not-json': async (ref) => {
    const { run, deliveries } = await (await setup(ref, 2)).run();
    expect(run.status).toBe('completed');
    expect(deliveries.map((d) => d.violations.includes('not JSON'))).toEqual([false, true]);
    expect(run.requests).toHaveLength(2);
  },
  'extra-delivery-no-authorization': async (ref) => {
    const { run, deliveries } = await (await setup(ref, 2)).run();
    expect(run.status).toBe('completed');
    expect(header(deliveries[1]!, 'authorization')).toBeUndefined();
    expect(deliveries[1]!.violations).toContain('no Authorization header');
    expect(recordsOf([deliveries[1]!])).toEqual([]);
  },
  'extra-delivery-gzip-bomb': async (ref) => {
    const s = await setup(ref, 2);
    const { run } = await s.run();
    expect(run.status).toBe('completed');
    // The receiver records the bomb when it has inflated it up to its cap: on a busy machine that
    // can end after the run has (the reference gave up waiting for its answer).
    const deliveries = await s.channel.waitFor((ds) => ds.length >= 2, { timeoutMs: 300_000 });
    expect(deliveries[1]!.violations).toContain('inflated body over cap');
    expect(deliveries[1]!.response.status).toBe(413);
  },
  'no-capture-log': async (ref) => {
    const { run, deliveries } = await (await setup(ref, 2)).run();
    expect(deliveries).toHaveLength(1);
    expect(run.requests).toBeNull();
  },
};

describe('delivery faults', () => {
  test('every delivery fault has a probe here', () => {
    expect(Object.keys(probes).sort()).toEqual(deliveryFaults.map((f) => f.name).sort());
  });

  test.each(deliveryFaults.map((f) => f.name))('%s shows its deviation', async (name) => {
    const ref = await start({ faults: [name] });
    try {
      await probes[name]!(ref);
    } finally {
      await ref.close();
    }
  });
});
