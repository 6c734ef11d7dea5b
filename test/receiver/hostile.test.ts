import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { connect } from 'node:net';
import { createGzip, gzipSync } from 'node:zlib';
import { startReceiver, type Delivery, type Receiver } from '../../src/receiver/index.ts';
import { deliveryHeaders, gz, post, raw, syncRecords, zeros } from './helpers.ts';

const MiB = 1024 * 1024;

/** 1 GiB of zeros as 1024 gzip members of 1 MiB each (RFC 1952 allows a series of members): ~1 MB, built in milliseconds. */
function multiMemberBomb(): Buffer {
  const member = gzipSync(Buffer.alloc(MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: 1024 }, () => member));
}

/** A single gzip stream of `size` zeros, compressed as a stream (never held uncompressed). */
async function streamedBomb(size: number): Promise<Buffer> {
  const out: Buffer[] = [];
  const gzip = createGzip({ level: 1 });
  gzip.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((resolve) => gzip.on('end', resolve));
  zeros(size).pipe(gzip);
  await ended;
  return Buffer.concat(out);
}

function portOf(r: Receiver): number {
  return Number(new URL(r.localUrl).port);
}

/** The receiver still takes an ordinary delivery. */
async function stillServes(r: Receiver): Promise<void> {
  const ch = r.channel('alive');
  const body = gz(syncRecords('sync-alive', 1));
  expect((await post(ch.url, body, deliveryHeaders(body))).status).toBe(200);
  expect(ch.deliveries()[0]?.violations).toEqual([]);
}

describe('receiver: hostile input', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver({ maxBodyBytes: 4 * MiB, maxInflatedBytes: 16 * MiB });
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('records gzip bombs (1 GiB of zeros) as a violation, answers 413 and survives', async () => {
    const ch = receiver.channel('bomb');
    const multi = multiMemberBomb();
    const single = await streamedBomb(128 * MiB);
    expect(multi.length).toBeLessThan(2 * MiB);
    for (const bomb of [multi, single]) {
      const reply = await post(ch.url, bomb, deliveryHeaders(bomb));
      expect(reply.status).toBe(413);
    }
    for (const d of ch.deliveries()) {
      expect(d.gzip).toBe(true);
      expect(d.violations).toEqual(['inflated body over cap']);
      expect(d.inflated).toBeUndefined();
      expect(d.json).toBeUndefined();
      expect(d.response.status).toBe(413);
    }
    expect(ch.deliveries().map((d) => d.bodyBytes)).toEqual([multi.length, single.length]);
    await stillServes(receiver);
  });

  it('records a corrupt or truncated gzip stream', async () => {
    const ch = receiver.channel();
    const good = gz(syncRecords('sync-corrupt', 100));
    const truncated = good.subarray(0, good.length - 20);
    await post(ch.url, truncated, deliveryHeaders(truncated));
    const flipped = Buffer.from(good);
    flipped[20] = (flipped[20] ?? 0) ^ 0xff;
    await post(ch.url, flipped, deliveryHeaders(flipped));
    for (const d of ch.deliveries()) {
      expect(d.violations).toEqual(['gzip stream corrupt']);
      expect(d.response.status).toBe(200);
    }
  });

  it('stops reading a 1 GiB body at the cap, records it, answers 413 (or drops the connection) and survives', async () => {
    const ch = receiver.channel('huge');
    const started = Date.now();
    const headers = { ...deliveryHeaders(Buffer.alloc(0)), 'Content-Length': String(1024 * MiB) };
    const outcome = await post(ch.url, zeros(1024 * MiB), headers).then(
      (r) => r.status,
      (e: NodeJS.ErrnoException) => e.code,
    );
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(outcome);
    const [d] = await ch.waitFor((ds) => ds.length === 1, { timeoutMs: 60_000 });
    expect(d?.violations).toEqual(['body over cap']);
    expect(d?.response.status).toBe(413);
    expect(d?.body.length).toBe(4 * MiB);
    expect(d?.bodyBytes).toBeGreaterThan(4 * MiB);
    expect(d?.bodyBytes).toBeLessThan(5 * MiB);
    expect(d?.json).toBeUndefined();
    // Cut early, told by bytes, not by time (a busy machine stretches both): fewer than 5 MiB of the
    // 1 GiB were read (above), and the answer did not wait for the rest.
    expect(Date.now() - started).toBeLessThan(60_000);
    await stillServes(receiver);
  });

  it('answers 413 to a body one byte over the cap', async () => {
    const ch = receiver.channel();
    const body = Buffer.alloc(4 * MiB + 1, 0x20);
    const outcome = await post(ch.url, body, deliveryHeaders(body)).then(
      (r) => r.status,
      (e: NodeJS.ErrnoException) => e.code,
    );
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(outcome);
    const [d] = ch.deliveries() as [Delivery];
    expect(d.violations).toEqual(['body over cap']);
  });

  it('records a Content-Length mismatch: fewer bytes than declared, then the client closes', async () => {
    const ch = receiver.channel();
    const path = new URL(ch.url).pathname;
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    await raw(portOf(receiver), head + 'x'.repeat(50));
    const [d] = await ch.waitFor((ds) => ds.length === 1, { timeoutMs: 60_000 });
    expect(d?.violations).toEqual(['Content-Length mismatch (header 100, received 50)']);
    expect(d?.aborted).toBe(true);
    expect(d?.bodyBytes).toBe(50);
    expect(d?.response.status).toBe(0);
  });

  it('records bytes beyond Content-Length as a malformed request on the same connection, charged to the request before them', async () => {
    const ch = receiver.channel();
    const path = new URL(ch.url).pathname;
    const before = receiver.deliveries().length;
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Length: 2\r\n\r\n`;
    const reply = await raw(portOf(receiver), `${head}{}EXTRA BYTES\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(reply).toContain('HTTP/1.1 400 Bad Request');
    const [ok] = ch.deliveries() as [Delivery];
    expect(ok.json).toEqual({});
    expect([...ok.violations].sort()).toEqual(['bytes after the declared Content-Length', 'not gzip']);
    const malformed = receiver.deliveries().slice(before).find((d) => d.method === '');
    expect(malformed?.violations).toEqual(['malformed HTTP request']);
  });

  it('records garbage that is not HTTP as a malformed request and answers 400', async () => {
    const before = receiver.deliveries().length;
    const reply = await raw(portOf(receiver), Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x0d, 0x0a, 0x0d, 0x0a]));
    expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const d = receiver.deliveries().slice(before)[0];
    expect(d).toMatchObject({ method: '', path: '', channel: null, violations: ['malformed HTTP request'], response: { status: 400 } });
    expect(d?.error).toMatch(/^HPE_/);
    expect(d?.bodyBytes).toBeGreaterThan(0);

    const partial = await raw(portOf(receiver), 'POST /c/x/ HTTP/1.1\r\nHost: x\r\nContent-Le');
    expect(partial).toMatch(/^HTTP\/1\.1 400/);
    expect(receiver.deliveries().at(-1)).toMatchObject({ method: '', violations: ['malformed HTTP request'] });
    await stillServes(receiver);
  });

  it('records an invalid chunked body with its headers and answers 400', async () => {
    const ch = receiver.channel();
    const path = new URL(ch.url).pathname;
    const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const reply = await raw(portOf(receiver), `${head}5\r\nhello\r\nZZ\r\nnope\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const [d] = ch.deliveries() as [Delivery];
    expect(d.method).toBe('POST');
    expect(d.body.toString()).toBe('hello');
    expect(d.violations).toEqual(['no Authorization header', 'no Content-Length', 'malformed HTTP request']);
  });

  it("records header floods: within node's limits they are kept and joined, beyond them 431", async () => {
    const ch = receiver.channel();
    const path = new URL(ch.url).pathname;
    const ok = await raw(portOf(receiver), `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n${'a:1\r\n'.repeat(600)}\r\n`);
    expect(ok).toMatch(/^HTTP\/1\.1 200 OK/);
    const [d] = ch.deliveries() as [Delivery];
    expect(d.rawHeaders).toHaveLength(2 * 602);
    expect(d.headers['a']).toBe(Array(600).fill('1').join(', '));

    const before = receiver.deliveries().length;
    const count = await raw(portOf(receiver), `POST ${path} HTTP/1.1\r\nHost: x\r\n${'a:1\r\n'.repeat(3000)}\r\n`);
    const size = await raw(portOf(receiver), `POST ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(32 * 1024)}\r\n\r\n`);
    expect(count).toMatch(/^HTTP\/1\.1 431/);
    expect(size).toMatch(/^HTTP\/1\.1 431/);
    const refused = receiver.deliveries().slice(before);
    expect(refused).toHaveLength(2);
    for (const r of refused) {
      expect(r).toMatchObject({ method: '', channel: null, violations: ['malformed HTTP request'], response: { status: 431 } });
      expect(r.error).toMatch(/^HPE_HEADER_OVERFLOW/);
    }
    await stillServes(receiver);
  });

  it('records a CONNECT request and refuses it', async () => {
    const before = receiver.deliveries().length;
    const reply = await raw(portOf(receiver), 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(reply).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(receiver.deliveries().slice(before)[0]).toMatchObject({
      method: 'CONNECT',
      path: 'example.com:443',
      violations: ['unexpected CONNECT request', 'no Authorization header', 'no Content-Length'],
      response: { status: 400 },
    });
  });

  it('records an upload the client aborts mid-body', async () => {
    const ch = receiver.channel('aborted');
    const body = gz(syncRecords('sync-abort', 1000));
    await new Promise<void>((resolve) => {
      const req = request(ch.url, { method: 'POST', headers: deliveryHeaders(body), agent: false });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      req.write(body.subarray(0, 1000), () => setTimeout(() => req.destroy(), 30));
    });
    const [d] = await ch.waitFor((ds) => ds.length === 1, { timeoutMs: 60_000 });
    expect(d?.aborted).toBe(true);
    expect(d?.bodyBytes).toBe(1000);
    expect(d?.response.status).toBe(0);
    expect(d?.violations).toEqual([`Content-Length mismatch (header ${body.length}, received 1000)`]);
    expect(d?.json).toBeUndefined();
    await stillServes(receiver);
  });

  it('records a connection reset mid-body', async () => {
    const ch = receiver.channel();
    const path = new URL(ch.url).pathname;
    await new Promise<void>((resolve) => {
      const socket = connect(portOf(receiver), '127.0.0.1', () => {
        socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc`, () => {
          setTimeout(() => socket.resetAndDestroy(), 30);
        });
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve());
    });
    const [d] = await ch.waitFor((ds) => ds.length === 1, { timeoutMs: 60_000 });
    expect(d).toMatchObject({ aborted: true, bodyBytes: 3, response: { status: 0 } });
  });
});
