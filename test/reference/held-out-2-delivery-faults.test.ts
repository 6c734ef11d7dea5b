import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldOut2DeliveryFaults } from '../../src/reference/faults/held-out-2-deliveries.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { call, start } from './helpers.ts';
import { body, createSource, createWebhookSync, idsOf, recordsOf, rows, runOnce, SELECTED, writeRows, type SyncOptions, type TestRow } from './webhook-helpers.ts';

// One probe per held-out round-2 delivery fault kept in the catalogue (faults/held-out-2-deliveries.ts),
// over real loopback to the capturing receiver: each shows the deviation its fault promises, and
// that the value next to it (the one the suite walked before) is still delivered right.

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

async function setup(ref: RunningReference, initial: TestRow[], options: SyncOptions = {}, url?: (channelUrl: string) => string) {
  const channel = receiver.channel();
  const source = await createSource(ref, initial);
  const sync = await createWebhookSync(ref, url ? { url: url(channel.url) } : channel, source, options);
  return { ...sync, channel, source, run: () => runOnce(ref, channel, sync.syncId), write: (changed: TestRow[]) => writeRows(ref, source, changed) };
}

const stamp = (d: { headers: Record<string, string | undefined> }) => Date.parse(d.headers['service-signature-timestamp']!);

const probes: Record<string, (ref: RunningReference) => Promise<void>> = {
  'ho2-ts-frozen-per-sync': async (ref) => {
    const s = await setup(ref, rows(3), { configuration: { batch_size: 2 } });
    const first = await s.run();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await s.write(rows(1, 3));
    const second = await s.run();
    expect(second.deliveries.map(stamp)).toEqual([stamp(first.deliveries[0]!)]);
  },
  'ho2-url-query-dropped': async (ref) => {
    const s = await setup(ref, rows(1), {}, (u) => `${u}?source=dssc&x=1`);
    const plain = await setup(ref, rows(1));
    expect((await s.run()).deliveries.map((d) => d.path)).toEqual([new URL(s.channel.url).pathname]);
    expect((await plain.run()).deliveries.map((d) => d.path)).toEqual([new URL(plain.channel.url).pathname]);
  },
  'ho2-metadata-first-5-pairs': async (ref) => {
    const metadata = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i}`, `v${i}`]));
    const s = await setup(ref, rows(1), { configuration: { metadata } });
    const [d] = (await s.run()).deliveries;
    expect(Object.keys(body(d!).object.metadata)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4']);
  },
  'ho2-long-string-cut-255': async (ref) => {
    const s = await setup(ref, [{ id: 'long', email: 'x@example.com', name: 'n'.repeat(300), score: 1, note: '' }, { id: 'edge', email: 'y@example.com', name: 'n'.repeat(255), score: 1, note: '' }]);
    const names = recordsOf((await s.run()).deliveries).map((r) => (r.fields.full_name as string).length);
    expect(names).toEqual([255, 255]);
  },
  'ho2-long-text-cut-64k': async (ref) => {
    const s = await setup(ref, [{ id: 'long', email: 'x@example.com', name: 'n'.repeat(70_000), score: 1, note: '' }, { id: 'edge', email: 'y@example.com', name: 'n'.repeat(1001), score: 1, note: '' }]);
    const names = recordsOf((await s.run()).deliveries).map((r) => (r.fields.full_name as string).length);
    expect(names).toEqual([65_535, 1001]);
  },
  'ho2-float32-values': async (ref) => {
    const s = await setup(ref, [{ id: 'a', email: 'a@example.com', name: 'A', score: 0.1, note: '' }, { id: 'b', email: 'b@example.com', name: 'B', score: 1.5, note: '' }]);
    expect(recordsOf((await s.run()).deliveries).map((r) => r.fields.score)).toEqual([Math.fround(0.1), 1.5]);
  },
  'ho2-state-shared-per-connection': async (ref) => {
    const s = await setup(ref, rows(3));
    expect(idsOf((await s.run()).deliveries)).toEqual(['r000', 'r001', 'r002']);
    const second = await call(ref, 'POST', '/api/syncs', {
      body: { name: 'second sync', target: { connection_id: s.connectionId, object: 'http', configuration: {} }, fields: SELECTED.map((f) => ({ source: { model_id: s.source, field: f.field }, target: f.target })) },
    });
    expect(second.status, second.text).toBe(200);
    const secondRun = await runOnce(ref, s.channel, second.json.data.id as string);
    expect(secondRun.run.status).toBe('completed');
    expect(secondRun.deliveries).toEqual([]);
  },
  'ho2-200-non-json-answer-fails': async (ref) => {
    const text = await setup(ref, rows(3), { configuration: { batch_size: 2 } });
    text.channel.answerWith('text');
    const failed = await text.run();
    expect([failed.run.status, failed.deliveries.length]).toEqual(['failed', 1]);
    const empty = await setup(ref, rows(3), { configuration: { batch_size: 2 } });
    empty.channel.answerWith('empty');
    expect((await empty.run()).run.status).toBe('completed');
  },
};

describe('held-out round-2 delivery faults', () => {
  test('every one in the catalogue has a probe here', () => {
    expect(Object.keys(probes).sort()).toEqual(heldOut2DeliveryFaults.map((f) => f.name).sort());
  });

  test.each(heldOut2DeliveryFaults.map((f) => f.name))('%s shows its deviation', async (name) => {
    const ref = await start({ faults: [name] });
    try {
      await probes[name]!(ref);
    } finally {
      await ref.close();
    }
  });
});
