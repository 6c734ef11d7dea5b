import { afterEach, expect, test } from 'vitest';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { deliveryHeaders, gz, post, syncRecords } from './helpers.ts';

// Bounded memory against any sender: every request is judged and recorded, but what is kept is
// capped: a prefix of junk on unknown paths, and nothing past the total cap.

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const kept = (r: Receiver) => r.deliveries().reduce((s, d) => s + d.body.length + (d.inflated?.length ?? 0), 0);

test('junk on unknown paths keeps a 4 KiB prefix each, however large it was', async () => {
  receiver = await startReceiver();
  const junk = Buffer.alloc(4 * 1024 * 1024, 0x61);
  for (let i = 0; i < 20; i++) await post(`${receiver.localUrl}/not-a-channel/${i}`, junk, { 'content-type': 'application/octet-stream' });
  const all = receiver.deliveries();
  expect(all).toHaveLength(20);
  for (const d of all) {
    expect(d.bodyBytes).toBe(junk.length);
    expect(d.body.length).toBe(4096);
    expect(d.json).toBeUndefined();
  }
  expect(kept(receiver)).toBe(20 * 4096);
});

test('past the total cap bodies are dropped, but each delivery is still judged and listed', async () => {
  receiver = await startReceiver({ maxKeptBytes: 64 * 1024 });
  const ch = receiver.channel('cap');
  for (let i = 0; i < 12; i++) {
    const body = gz(syncRecords('s1', 200, `m${i}`));
    await post(ch.url, body, deliveryHeaders(body));
  }
  const all = receiver.deliveries();
  expect(all).toHaveLength(12);
  expect(all.some((d) => d.dropped)).toBe(true);
  expect(kept(receiver)).toBeLessThanOrEqual(64 * 1024);
  for (const d of all) {
    expect(d.bodyBytes).toBeGreaterThan(0);
    // What a check judges is there, dropped or not.
    expect((d.json as { object: { records: unknown[] } }).object.records).toHaveLength(200);
  }
});
