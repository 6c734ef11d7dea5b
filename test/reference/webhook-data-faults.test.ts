import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hashOfFields } from '../../src/reference/delivery.ts';
import { deliveryDataFaults } from '../../src/reference/faults/delivery-data.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Delivery, type Receiver } from '../../src/receiver/index.ts';
import { start } from './helpers.ts';
import { body, createSource, createWebhookSync, idsOf, recordsOf, rows, runOnce, writeRows, type SyncOptions, type TestRow } from './webhook-helpers.ts';

// One probe per fault of faults/delivery-data.ts, over real loopback to the capturing receiver:
// each shows the deviation its fault promises (webhook-faults.test.ts probes deliveries.ts).

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const WITH_ACTIVE = [
  { field: 'id', target: 'id' },
  { field: 'email', target: 'email' },
  { field: 'score', target: 'score' },
  { field: 'active', target: 'active' },
];

/** A sync over `initial` to a fresh channel; `run()` runs it once, `write()` changes rows before the next run. */
async function setup(ref: RunningReference, initial: TestRow[], options: SyncOptions = {}) {
  const channel = receiver.channel();
  const source = await createSource(ref, initial);
  const { syncId } = await createWebhookSync(ref, channel, source, options);
  return { channel, run: () => runOnce(ref, channel, syncId), write: (changed: TestRow[]) => writeRows(ref, source, changed) };
}

const header = (d: Delivery, name: string): string | undefined => d.headers[name];
const row = (id: string, over: Partial<TestRow> = {}): TestRow => ({ id, email: `${id}@example.com`, score: 1, active: true, ...over });

const probes: Record<string, (ref: RunningReference) => Promise<void>> = {
  'differential-ignores-email': async (ref) => {
    const s = await setup(ref, [row('a'), row('b')], { selection: WITH_ACTIVE });
    await s.run();
    await s.write([row('a', { email: 'other@example.com' }), row('b', { score: 2 })]);
    const { deliveries } = await s.run();
    expect(idsOf(deliveries)).toEqual(['b']);
    expect(recordsOf(deliveries)[0]!.hash).toBe(hashOfFields(recordsOf(deliveries)[0]!.fields as never));
  },
  'differential-type-blind': async (ref) => {
    const s = await setup(ref, [row('a'), row('b'), row('c')], { selection: WITH_ACTIVE });
    await s.run();
    await s.write([row('a', { score: '1' }), row('b', { active: 'true' }), row('c', { score: null })]);
    expect(idsOf((await s.run()).deliveries)).toEqual(['c']);
  },
  'hash-ignores-active': async (ref) => {
    const s = await setup(ref, [{ email: 'x', active: true }, { email: 'x', active: false }].map((r, i) => ({ id: `p${i}`, ...r })), { selection: WITH_ACTIVE.filter((f) => f.field !== 'id') });
    const hashes = recordsOf((await s.run()).deliveries).map((r) => r.hash);
    expect(hashes).toHaveLength(2);
    expect(new Set(hashes).size).toBe(1);
  },
  'hash-type-blind': async (ref) => {
    const s = await setup(ref, [row('a', { score: 1 }), row('b', { score: '1' })], { selection: WITH_ACTIVE.filter((f) => f.field !== 'id') });
    const records = recordsOf((await s.run()).deliveries);
    expect(records.map((r) => r.fields.score)).toEqual([1, '1']);
    expect(records[0]!.hash).not.toBe(hashOfFields(records[0]!.fields as never));
    // Change detection still uses the right hash: a type-only change is delivered.
    const t = await setup(ref, [row('a')], { selection: WITH_ACTIVE });
    await t.run();
    await t.write([row('a', { active: 'true' })]);
    expect(idsOf((await t.run()).deliveries)).toEqual(['a']);
  },
  'delivery-method-put-later-runs': async (ref) => {
    const s = await setup(ref, rows(2));
    expect((await s.run()).deliveries.map((d) => d.method)).toEqual(['POST']);
    await s.write(rows(1, 2));
    expect((await s.run()).deliveries.map((d) => d.method)).toEqual(['PUT']);
  },
  'delivery-url-path-appended': async (ref) => {
    const s = await setup(ref, rows(2));
    const d = (await s.run()).deliveries[0]!;
    expect(d.path).toBe(`${new URL(s.channel.url).pathname}sync.records`);
    expect(d.method).toBe('POST');
  },
  'delivery-timestamp-epoch': async (ref) => {
    const d = (await (await setup(ref, rows(2))).run()).deliveries[0]!;
    const stamp = header(d, 'service-signature-timestamp')!;
    expect(stamp).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(stamp) * 1000 - Date.parse(d.receivedAt))).toBeLessThan(20_000);
  },
  'delivery-timestamp-naive': async (ref) => {
    const d = (await (await setup(ref, rows(2))).run()).deliveries[0]!;
    const stamp = header(d, 'service-signature-timestamp')!;
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    expect(Math.abs(Date.parse(`${stamp}Z`) - Date.parse(d.receivedAt))).toBeLessThan(20_000);
  },
  'delivery-host-without-port': async (ref) => {
    const s = await setup(ref, rows(2));
    const d = (await s.run()).deliveries[0]!;
    expect(header(d, 'host')).toBe(new URL(s.channel.url).hostname);
    expect(recordsOf([d])).toHaveLength(2);
  },
  'delivery-user-agent-name-and-comment': async (ref) => {
    const d = (await (await setup(ref, rows(2))).run()).deliveries[0]!;
    expect(header(d, 'user-agent')).toBe('DSS-Reference (+https://example.com/dss-reference)');
  },
  'delivery-user-agent-http-library': async (ref) => {
    const d = (await (await setup(ref, rows(2))).run()).deliveries[0]!;
    expect(header(d, 'user-agent')).toBe('Go-http-client/1.1');
  },
  'delivery-object-name-cut-255': async (ref) => {
    const long = await setup(ref, rows(1), { name: 'n'.repeat(256) });
    expect(body((await long.run()).deliveries[0]!).object.name).toBe('n'.repeat(255));
    const short = await setup(ref, rows(1), { name: 'n'.repeat(255) });
    expect(body((await short.run()).deliveries[0]!).object.name).toBe('n'.repeat(255));
  },
  'delivery-object-name-latin1': async (ref) => {
    const accented = await setup(ref, rows(1), { name: 'Zürich sync' });
    expect(body((await accented.run()).deliveries[0]!).object.name).toBe('ZÃ¼rich sync');
    const ascii = await setup(ref, rows(1), { name: 'Zurich sync' });
    expect(body((await ascii.run()).deliveries[0]!).object.name).toBe('Zurich sync');
  },
  'metadata-first-batch-only': async (ref) => {
    const s = await setup(ref, rows(5), { configuration: { batch_size: 2, metadata: { team: 'data' } } });
    expect((await s.run()).deliveries.map((d) => body(d).object.metadata)).toEqual([{ team: 'data' }, null, null]);
  },
  'metadata-values-typed': async (ref) => {
    const s = await setup(ref, rows(1), { configuration: { metadata: { n: '1', b: 'true', s: 'x' } } });
    expect(body((await s.run()).deliveries[0]!).object.metadata).toEqual({ n: 1, b: true, s: 'x' });
  },
  'batch-size-override-ignored': async (ref) => {
    const s = await setup(ref, rows(120), { configuration: { batch_size: 7 } });
    expect((await s.run()).deliveries.map((d) => body(d).object.records.length)).toEqual([100, 20]);
  },
  'full-sync-first-later-run-only': async (ref) => {
    const s = await setup(ref, rows(3), { sync_all_records: true });
    expect(idsOf((await s.run()).deliveries)).toHaveLength(3);
    expect(idsOf((await s.run()).deliveries)).toHaveLength(3);
    expect((await s.run()).deliveries).toEqual([]);
  },
  'full-sync-drops-last-of-many': async (ref) => {
    const full = await setup(ref, rows(5), { sync_all_records: true, configuration: { batch_size: 2 } });
    const three = await full.run();
    expect(three.run.status).toBe('completed');
    expect(idsOf(three.deliveries)).toHaveLength(4);
    expect(three.run.requests).toHaveLength(2);
    expect(idsOf((await (await setup(ref, rows(4), { sync_all_records: true, configuration: { batch_size: 2 } })).run()).deliveries)).toHaveLength(4);
    expect(idsOf((await (await setup(ref, rows(5), { configuration: { batch_size: 2 } })).run()).deliveries)).toHaveLength(5);
  },
  'skip-backfill-later-runs-first-batch-only': async (ref) => {
    const s = await setup(ref, rows(3), { skip_initial_backfill: true, configuration: { batch_size: 2 } });
    expect((await s.run()).deliveries).toEqual([]);
    await s.write(rows(5).slice(3));
    expect(idsOf((await s.run()).deliveries)).toHaveLength(2);
    await s.write(rows(10).slice(5));
    const later = await s.run();
    expect(idsOf(later.deliveries)).toHaveLength(2);
    expect(later.run.requests).toHaveLength(1);
  },
};

describe('delivery data faults', () => {
  test('every fault of delivery-data.ts has a probe here', () => {
    expect(Object.keys(probes).sort()).toEqual(deliveryDataFaults.map((f) => f.name).sort());
  });

  test.each(deliveryDataFaults.map((f) => f.name))('%s shows its deviation', async (name) => {
    const ref = await start({ faults: [name] });
    try {
      await probes[name]!(ref);
    } finally {
      await ref.close();
    }
  });
});
