import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describeDelivery, startReceiver, type Delivery, type Receiver } from '../../src/receiver/index.ts';
import { deliveryHeaders, gz, post, syncRecords } from './helpers.ts';

const SECRET = 's3cret-token';

describe('receiver: well-formed deliveries', () => {
  let receiver: Receiver;
  const consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m));

  beforeAll(async () => {
    receiver = await startReceiver({ now: () => new Date('2030-01-02T03:04:05.000Z') });
  });
  afterAll(async () => {
    await receiver.close();
  });
  afterEach(() => {
    // The receiver must never log (header values hold the webhook secret).
    for (const spy of consoleSpies) expect(spy).not.toHaveBeenCalled();
  });

  it('binds 127.0.0.1 by default and gives each channel its own path', () => {
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const a = receiver.channel('Model sync: basic');
    const b = receiver.channel('Model sync: basic');
    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^model-sync-basic-[\w-]+$/);
    expect(a.url).toBe(`${receiver.url}/c/${a.id}/`);
    expect(a.label).toBe('Model sync: basic');
  });

  it('records a gzip JSON delivery and parses it', async () => {
    const ch = receiver.channel('gzip');
    const payload = syncRecords('sync-1', 3);
    const body = gz(payload);
    const reply = await post(`${ch.url}?attempt=1`, body, deliveryHeaders(body, SECRET));
    expect(reply.status).toBe(200);
    const [d] = ch.deliveries() as [Delivery];
    expect(ch.deliveries()).toHaveLength(1);
    expect(d).toMatchObject({
      channel: ch.id,
      receivedAt: '2030-01-02T03:04:05.000Z',
      method: 'POST',
      path: `/c/${ch.id}/?attempt=1`,
      httpVersion: '1.1',
      bodyBytes: body.length,
      gzip: true,
      json: payload,
      violations: [],
      response: { status: 200 },
    });
    expect(d.aborted).toBeUndefined();
    expect(d.body.equals(body)).toBe(true);
    expect(d.inflated?.toString()).toBe(JSON.stringify(payload));
    expect(d.headers['authorization']).toBe(`Bearer ${SECRET}`);
    expect(d.headers['content-length']).toBe(String(body.length));
    expect(d.rawHeaders).toContain('Service-Signature-Timestamp');
    expect(receiver.deliveries().map((x) => x.seq)).toContain(d.seq);
  });

  it('describeDelivery redacts Authorization and shows sizes, violations and a JSON excerpt', async () => {
    const ch = receiver.channel();
    const payload = syncRecords('sync-describe', 50);
    const body = gz(payload);
    await post(ch.url, body, deliveryHeaders(body, SECRET));
    const [d] = ch.deliveries() as [Delivery];
    const text = describeDelivery(d, (s) => s.replaceAll(SECRET, '***'));
    expect(text).not.toContain(SECRET);
    expect(text).toContain('authorization: Bearer ***');
    expect(text).toContain(`POST /c/${ch.id}/ HTTP/1.1`);
    expect(text).toContain('answered 200');
    expect(text).toContain('violations: none');
    expect(text).toContain('json: {"event":"sync.records"');
    const json = /json: (.*)/.exec(text)?.[1] ?? '';
    expect(json.length).toBeLessThan(540);
  });

  it('records a body that is not gzip, and parses it anyway', async () => {
    const ch = receiver.channel();
    const payload = syncRecords('sync-plain', 1);
    const body = Buffer.from(JSON.stringify(payload));
    const reply = await post(ch.url, body, deliveryHeaders(body));
    expect(reply.status).toBe(200);
    const [d] = ch.deliveries() as [Delivery];
    expect(d.gzip).toBe(false);
    expect(d.inflated).toBeUndefined();
    expect(d.json).toEqual(payload);
    expect(d.violations).toEqual(['not gzip']);
  });

  it('records a body that is not JSON, and invalid UTF-8', async () => {
    const ch = receiver.channel();
    const notJson = gzipSync(Buffer.from('hello, world'));
    await post(ch.url, notJson, deliveryHeaders(notJson));
    const badUtf8 = gzipSync(Buffer.from([0x22, 0xff, 0xfe, 0x22]));
    await post(ch.url, badUtf8, deliveryHeaders(badUtf8));
    const empty = Buffer.alloc(0);
    await post(ch.url, empty, deliveryHeaders(empty));
    const [a, b, c] = ch.deliveries() as [Delivery, Delivery, Delivery];
    expect(a.violations).toEqual(['not JSON']);
    expect(a.json).toBeUndefined();
    expect(a.inflated?.toString()).toBe('hello, world');
    expect(a.response.status).toBe(200); // capturing, not judging: the scripted status stands
    expect(b.violations).toEqual(['invalid UTF-8']);
    expect(b.json).toBe('\ufffd\ufffd');
    expect(c.violations).toEqual(['empty body', 'not gzip', 'not JSON']);
  });

  it('records a missing Authorization header without judging its value', async () => {
    const ch = receiver.channel();
    const body = gz(syncRecords('sync-noauth', 1));
    const headers = deliveryHeaders(body);
    delete headers['Authorization'];
    const reply = await post(ch.url, body, headers);
    expect(reply.status).toBe(200);
    const wrongSecret = deliveryHeaders(body, 'not-the-secret');
    await post(ch.url, body, wrongSecret);
    const [a, b] = ch.deliveries() as [Delivery, Delivery];
    expect(a.violations).toEqual(['no Authorization header']);
    expect(b.violations).toEqual([]);
  });

  it('records a chunked body without Content-Length', async () => {
    const ch = receiver.channel();
    const payload = syncRecords('sync-chunked', 20);
    const body = gz(payload);
    const status = await new Promise<number>((resolve, reject) => {
      const headers = deliveryHeaders(body);
      delete headers['Content-Length'];
      const req = request(ch.url, { method: 'POST', headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.write(body.subarray(0, 10));
      setTimeout(() => req.end(body.subarray(10)), 20);
    });
    expect(status).toBe(200);
    const [d] = ch.deliveries() as [Delivery];
    expect(d.headers['transfer-encoding']).toBe('chunked');
    expect(d.bodyBytes).toBe(body.length);
    expect(d.json).toEqual(payload);
    expect(d.violations).toEqual(['no Content-Length']);
  });

  it('answers scripted statuses: 200, 200, then 500 on the third delivery, then the default', async () => {
    const ch = receiver.channel('scripted');
    ch.script([200, 200, 500]);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const body = gz(syncRecords('sync-scripted', 1, String(i)));
      statuses.push((await post(ch.url, body, deliveryHeaders(body))).status);
    }
    expect(statuses).toEqual([200, 200, 500, 200]);
    expect(ch.deliveries().map((d) => d.response.status)).toEqual([200, 200, 500, 200]);

    ch.script([{ status: 503, delayMs: 150 }], 204);
    const body = gz(syncRecords('sync-scripted', 1));
    const started = Date.now();
    const slow = await post(ch.url, body, deliveryHeaders(body));
    expect(slow.status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect((await post(ch.url, body, deliveryHeaders(body))).status).toBe(204);
    expect(() => ch.script([99])).toThrow(/200–599/);
  });

  it('answers by content when answerBy decides, else by the script; a delivery it answers uses up its place', async () => {
    const ch = receiver.channel('by-content');
    ch.script([201, 202, 203]);
    ch.answerBy((d) => ((d.json as { object?: { name?: string } }).object?.name === 'sync refuse-me' ? 422 : undefined));
    const send = async (name: string) => {
      const body = gz(syncRecords(name, 1));
      return (await post(ch.url, body, deliveryHeaders(body))).status;
    };
    expect([await send('ok'), await send('refuse-me'), await send('ok')]).toEqual([201, 422, 203]);
    // A decider that answers no HTTP status is the receiver's error, kept; the script answers instead.
    ch.answerBy(() => 99);
    expect(await send('ok')).toBe(200);
    expect(receiver.errors().some((e) => /200–599/.test(String(e)))).toBe(true);
    ch.answerBy(undefined);
    expect(await send('refuse-me')).toBe(200);
  });

  it('writes 2xx answers as JSON, as the text OK or with no body, as the channel is told; other statuses stay JSON', async () => {
    const ch = receiver.channel('answer-bodies');
    const body = gz(syncRecords('sync-answers', 1));
    const json = await post(ch.url, body, deliveryHeaders(body));
    expect(json.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json.body)).toMatchObject({ status: 200 });
    ch.answerWith('text');
    const text = await post(ch.url, body, deliveryHeaders(body));
    expect([text.status, text.headers['content-type'], text.body]).toEqual([200, 'text/plain; charset=utf-8', 'OK']);
    ch.answerWith('empty');
    ch.script([500]);
    const failed = await post(ch.url, body, deliveryHeaders(body));
    expect([failed.status, failed.headers['content-type']]).toEqual([500, 'application/json']);
    const empty = await post(ch.url, body, deliveryHeaders(body));
    expect([empty.status, empty.headers['content-type'], empty.headers['content-length'], empty.body]).toEqual([200, undefined, '0', '']);
  });

  it('answers 404 on an unknown path and still records it', async () => {
    const body = gz(syncRecords('sync-lost', 1));
    const reply = await post(`${receiver.url}/c/no-such-channel/`, body, deliveryHeaders(body));
    expect(reply.status).toBe(404);
    const d = receiver.deliveries().at(-1) as Delivery;
    expect(d).toMatchObject({ channel: null, path: '/c/no-such-channel/', response: { status: 404 } });
    expect(d.json).toEqual(syncRecords('sync-lost', 1));
  });

  it('never mixes two channels used concurrently', async () => {
    const a = receiver.channel('a');
    const b = receiver.channel('b');
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 25; i++) {
      for (const [ch, marker] of [[a, 'A'], [b, 'B']] as const) {
        const body = gz(syncRecords(`sync-${marker}`, 2, marker));
        sends.push(post(ch.url, body, deliveryHeaders(body)));
      }
    }
    const [da, db] = await Promise.all([
      a.waitFor((ds) => ds.length === 25, { timeoutMs: 5000 }),
      b.waitFor((ds) => ds.length === 25, { timeoutMs: 5000, quietMs: 50 }),
    ]);
    await Promise.all(sends);
    expect(da.every((d) => d.channel === a.id && (d.json as { object: { id: string } }).object.id === 'sync-A')).toBe(true);
    expect(db.every((d) => d.channel === b.id && (d.json as { object: { id: string } }).object.id === 'sync-B')).toBe(true);
    const seqs = da.map((d) => d.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
  });

  it('waitFor rejects on timeout with a message that says what did arrive', async () => {
    const ch = receiver.channel('timeout case');
    const body = gz(syncRecords('sync-wait', 1));
    await post(ch.url, body, deliveryHeaders(body, SECRET));
    const err = await ch.waitFor((ds) => ds.length >= 3, { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const message = (err as Error).message;
    expect(message).toContain(`waitFor on channel "timeout case" (${ch.id}) timed out after 100 ms: the predicate never held.`);
    expect(message).toContain('1 deliveries recorded.');
    expect(message).toMatch(/#\d+ POST \d+ B → 200/);
    expect(message).not.toContain(SECRET);

    const thrown = await ch
      .waitFor(
        (ds) => {
          if (ds.length < 2) throw new Error('want 2');
          return true;
        },
        { timeoutMs: 50 },
      )
      .catch((e: unknown) => e);
    expect((thrown as Error).message).toContain('the predicate threw: want 2');
  });

  // Judged by what must hold however the machine schedules the posts (idle, the three arrive
  // within 150 ms of each other and all are returned; busy, a gap can outlast the quiet time, and
  // then fewer are, rightly): the answer comes only after quietMs without a delivery, and holds
  // the deliveries in order. A waitFor that ignores quietMs, or does not restart it on each
  // delivery, answers within quietMs of the last one it returns. A receiver on the real clock:
  // receivedAt is when a request arrived, before its delivery was recorded.
  it('waitFor with quietMs waits for the deliveries to stop', async () => {
    const own = await startReceiver();
    try {
      const ch = own.channel();
      let answeredAt = 0;
      const waiting = ch.waitFor((ds) => ds.length >= 1, { timeoutMs: 120_000, quietMs: 150 }).then((ds) => ((answeredAt = Date.now()), ds));
      for (let i = 0; i < 3; i++) {
        const body = gz(syncRecords('sync-quiet', 1, String(i)));
        await post(ch.url, body, deliveryHeaders(body));
        await new Promise((r) => setTimeout(r, 40));
      }
      const got = await waiting;
      expect(got.length).toBeGreaterThanOrEqual(1);
      expect(got.map((d) => d.seq)).toEqual(ch.deliveries().slice(0, got.length).map((d) => d.seq));
      // Date-based receipt times against a timer's monotonic clock: a few ms of slack.
      expect(answeredAt - Date.parse(got.at(-1)!.receivedAt)).toBeGreaterThanOrEqual(145);
    } finally {
      await own.close();
    }
  });
});

describe('receiver: options', () => {
  it('keepInflated false drops the inflated bytes; onDelivery streams every delivery; publicUrl is used', async () => {
    const seen: number[] = [];
    const receiver = await startReceiver({
      keepInflated: false,
      publicUrl: 'https://tunnel.example/hooks/',
      onDelivery: (d) => {
        seen.push(d.seq);
        if (seen.length === 2) throw new Error('verification bug');
      },
    });
    try {
      const ch = receiver.channel();
      expect(ch.url).toBe(`https://tunnel.example/hooks/c/${ch.id}/`);
      expect(receiver.localUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // A tunnel forwards the path unchanged, or with its prefix: both reach the channel.
      const body = gz(syncRecords('sync-opts', 1));
      expect((await post(`${receiver.localUrl}/c/${ch.id}/`, body, deliveryHeaders(body))).status).toBe(200);
      expect((await post(`${receiver.localUrl}/hooks/c/${ch.id}/`, body, deliveryHeaders(body))).status).toBe(200);
      const ds = ch.deliveries();
      expect(ds).toHaveLength(2);
      expect(ds[0]?.inflated).toBeUndefined();
      expect(ds[0]?.json).toEqual(syncRecords('sync-opts', 1));
      expect(seen).toEqual(ds.map((d) => d.seq));
      expect(receiver.errors()).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('close() rejects pending waitFor calls and is idempotent', async () => {
    const receiver = await startReceiver();
    const ch = receiver.channel();
    const waiting = ch.waitFor(() => false, { timeoutMs: 10_000 });
    await Promise.all([receiver.close(), receiver.close()]);
    await expect(waiting).rejects.toThrow(/the receiver closed/);
  });
});

