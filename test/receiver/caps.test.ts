import { createHash } from 'node:crypto';
import { afterEach, expect, test } from 'vitest';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { deliveryHeaders, gz, post, raw, syncRecords } from './helpers.ts';

// Bounded memory against any sender: every request is judged and recorded, but what is kept is
// capped: a prefix of junk on unknown paths, a count of junk past its cap, bytes only (the JSON is
// parsed on read), and no body past the total cap.

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
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
  const seen: number[] = [];
  receiver = await startReceiver({
    maxKeptBytes: 64 * 1024,
    // A streaming verifier sees every body whole, past the cap too.
    onDelivery: (d) => seen.push((d.json as { object: { records: unknown[] } }).object.records.length),
  });
  const ch = receiver.channel('cap');
  const sent: Buffer[] = [];
  for (let i = 0; i < 12; i++) {
    const body = gz(syncRecords('s1', 200, `m${i}`));
    sent.push(body);
    await post(ch.url, body, deliveryHeaders(body));
  }
  const all = receiver.deliveries();
  expect(all).toHaveLength(12);
  expect(seen).toEqual(Array(12).fill(200));
  expect(all.some((d) => d.dropped)).toBe(true);
  expect(kept(receiver)).toBeLessThanOrEqual(64 * 1024);
  for (const [i, d] of all.entries()) {
    // What the receiver judged stays: size, hash, headers, violations, the answer.
    expect(d).toMatchObject({ bodyBytes: sent[i]!.length, sha256: sha256(sent[i]!), violations: [], response: { status: 200 }, gzip: true });
    expect(d.headers['content-length']).toBe(String(sent[i]!.length));
    if (d.dropped) {
      expect(d.body.length).toBe(0);
      expect(d.json).toBeUndefined();
    } else {
      expect(d.json).toEqual(syncRecords('s1', 200, `m${i}`));
    }
  }
});

test('the parsed JSON is not held: it is parsed again from the kept bytes, which the cap counts', async () => {
  const cap = 32 * 1024;
  receiver = await startReceiver({ maxKeptBytes: cap, keepInflated: false });
  const ch = receiver.channel('parsed');
  const payloads = Array.from({ length: 300 }, (_, i) => syncRecords('s2', 100, `p${i}`));
  for (let i = 0; i < payloads.length; i += 10) {
    await Promise.all(payloads.slice(i, i + 10).map((p) => gz(p)).map((body) => post(ch.url, body, deliveryHeaders(body))));
  }
  const all = ch.deliveries();
  expect(all).toHaveLength(300);
  expect(kept(receiver)).toBeLessThanOrEqual(cap);
  const held = all.filter((d) => !d.dropped);
  expect(held.length).toBeGreaterThan(0);
  expect(held.length).toBeLessThan(300);
  for (const d of held) {
    // No parsed value hangs on the delivery: each read parses the kept bytes anew.
    expect(Object.getOwnPropertyDescriptor(d, 'json')?.get).toBeTypeOf('function');
    expect(d.json).not.toBe(d.json);
    const marker = (d.json as { object: { records: Array<{ fields: { marker: string } }> } }).object.records[0]!.fields.marker;
    expect(d.json).toEqual(syncRecords('s2', 100, marker));
  }
  // Letting it go (a streaming verifier) makes it a plain value again.
  held[0]!.json = undefined;
  expect(held[0]!.json).toBeUndefined();
});

test('junk past the count cap is counted by kind, not kept; deliveries on channels are never counted against it', async () => {
  receiver = await startReceiver({ maxJunkRecords: 5 });
  const port = Number(new URL(receiver.localUrl).port);
  const junk = Buffer.from('junk');
  for (let i = 0; i < 8; i++) {
    expect((await post(`${receiver.localUrl}/nowhere/${i}`, junk, { 'content-type': 'text/plain' })).status).toBe(404);
  }
  for (let i = 0; i < 2; i++) expect(await raw(port, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
  expect(await raw(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
  const ch = receiver.channel('real');
  for (let i = 0; i < 7; i++) {
    const body = gz(syncRecords('s3', 1, `j${i}`));
    expect((await post(ch.url, body, deliveryHeaders(body))).status).toBe(200);
  }
  const all = receiver.deliveries();
  expect(all.filter((d) => d.channel === null)).toHaveLength(5);
  expect(ch.deliveries()).toHaveLength(7);
  expect(receiver.junkNotKept()).toEqual({ 'unknown path': 3, 'malformed HTTP request': 2, CONNECT: 1 });
  // The counted ones used their seq: the gap says where they were.
  expect(all.at(-1)!.seq).toBe(8 + 2 + 1 + 7);
});
