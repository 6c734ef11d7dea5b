import { afterEach, expect, test } from 'vitest';
import { request } from 'node:http';
import { connect } from 'node:net';
import { describeDelivery, startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { deliveryHeaders, gz, post, syncRecords } from './helpers.ts';

// A body that stops arriving is cut after stallTimeoutMs without a byte (an inactivity timer):
// a stalled sender no longer holds its socket for the rest of the run, and a slow but steady one
// is never cut. The timeouts are short options here; the default is 60 s.

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

test('a body that stalls is cut: recorded with the stall and the Content-Length shortfall, answered 408, connection closed', async () => {
  receiver = await startReceiver({ stallTimeoutMs: 200 });
  const ch = receiver.channel('stall');
  const port = Number(new URL(receiver.localUrl).port);
  const head = `POST ${new URL(ch.url).pathname} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
  // The sender writes 10 of the 1000 bytes it declared and then nothing; it never closes itself.
  const reply = await new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.write(head + 'x'.repeat(10)));
    const guard = setTimeout(() => socket.destroy(), 20_000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
  expect(reply).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  const [d] = await ch.waitFor((ds) => ds.length === 1, { timeoutMs: 10_000 });
  expect(d).toMatchObject({ aborted: true, bodyBytes: 10, response: { status: 408 } });
  expect(d!.violations).toEqual(['Content-Length mismatch (header 1000, received 10)', 'body stalled: no byte for 200 ms']);
  expect(d!.json).toBeUndefined();
  expect(describeDelivery(d!, () => '***')).toContain('cut by the receiver: stalled');
  // The receiver is free for the next delivery.
  const body = gz(syncRecords('after-stall', 1));
  expect((await post(ch.url, body, deliveryHeaders(body))).status).toBe(200);
});

test('a slow but steady body (a chunk every 100 ms for twice the stall timeout) is not cut', async () => {
  // A 3 s timeout against 100 ms gaps: sender and receiver share this process, so only a 3 s stall
  // of the whole process (not a busy machine's usual delays) could look like a stalled sender.
  receiver = await startReceiver({ stallTimeoutMs: 3000 });
  const ch = receiver.channel('steady');
  const body = gz(syncRecords('steady', 50));
  const pieces = 60;
  const size = Math.ceil(body.length / pieces);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(ch.url, { method: 'POST', headers: deliveryHeaders(body), agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    let i = 0;
    const next = (): void => {
      const piece = body.subarray(i * size, (i + 1) * size);
      i++;
      if (i >= pieces) req.end(piece);
      else req.write(piece, () => setTimeout(next, 100));
    };
    next();
  });
  expect(status).toBe(200);
  const [d] = ch.deliveries();
  expect(d).toMatchObject({ bodyBytes: body.length, violations: [], response: { status: 200 } });
  expect(d!.aborted).toBeUndefined();
  expect(d!.json).toEqual(syncRecords('steady', 50));
});

test('stallTimeoutMs must be a positive integer', async () => {
  await expect(startReceiver({ stallTimeoutMs: 0 })).rejects.toThrow('stallTimeoutMs must be a positive integer');
});
