import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { startReceiver, type Delivery, type Receiver } from '../../src/receiver/index.ts';
import { gz, syncRecords } from './helpers.ts';

// A Content-Length that lies (WH-005): node's parser takes the declared length as the body, so a
// lie shows on the connection: bytes left over after the body, or a body that never ends.

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const port = (): number => Number(new URL(receiver.localUrl).port);

function head(path: string, length: number): string {
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
}

/**
 * Writes `data` on a new connection, waits for the first answer, then sends `after` (if any) and
 * half-closes; resolves with everything the receiver sent once it closed the connection.
 */
function exchange(data: Buffer, after?: Buffer, opts: { endAtOnce?: boolean } = {}): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port(), '127.0.0.1', () => {
      socket.write(data);
      if (opts.endAtOnce) socket.end();
    });
    let answered = false;
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      if (!answered && /\r\n\r\n/.test(Buffer.concat(chunks).toString('latin1'))) {
        answered = true;
        if (after) socket.write(after);
        socket.end();
      }
    });
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}

describe('receiver: Content-Length that lies', () => {
  it('one byte short: the delivery is judged whole, and the byte left over is charged to it and recorded', async () => {
    const ch = receiver.channel('one-short');
    const body = gz(syncRecords('s1', 3));
    const before = receiver.deliveries().length;
    const reply = await exchange(Buffer.concat([Buffer.from(head(new URL(ch.url).pathname, body.length)), body, Buffer.from('x')]));
    expect(reply).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const [d] = ch.deliveries() as [Delivery];
    expect(d.json).toEqual(syncRecords('s1', 3));
    expect(d.bodyBytes).toBe(body.length);
    expect(d.violations).toEqual(['bytes after the declared Content-Length']);
    const garbage = receiver.deliveries().slice(before).filter((x) => x.method === '');
    expect(garbage).toHaveLength(1);
    // node hands over the whole packet the byte came in, so bodyBytes counts more than the one byte.
    expect(garbage[0]).toMatchObject({ channel: null, violations: ['malformed HTTP request'] });
  });

  it('one byte short, the extra byte sent after the answer: still charged to the delivery before it', async () => {
    const ch = receiver.channel();
    const body = gz(syncRecords('s2', 2));
    await exchange(Buffer.concat([Buffer.from(head(new URL(ch.url).pathname, body.length)), body]), Buffer.from('z'));
    const [d] = ch.deliveries() as [Delivery];
    expect(d.json).toEqual(syncRecords('s2', 2));
    expect(d.violations).toEqual(['bytes after the declared Content-Length']);
  });

  it('a second request on the same connection is not charged to the first', async () => {
    const ch = receiver.channel();
    const path = new URL(ch.url).pathname;
    const body = gz(syncRecords('s3', 1));
    const one = Buffer.concat([Buffer.from(head(path, body.length)), body]);
    const reply = await exchange(Buffer.concat([one, one]));
    expect(reply.match(/HTTP\/1\.1 200/g)?.length ?? 0).toBeGreaterThanOrEqual(1);
    await ch.waitFor((ds) => ds.length === 2, { timeoutMs: 60_000 });
    for (const d of ch.deliveries()) expect(d.violations).toEqual([]);
  });

  it('one byte long: the client ends before the declared length; recorded as aborted with the mismatch, never hangs', async () => {
    const ch = receiver.channel('one-long');
    const body = gz(syncRecords('s4', 3));
    const started = Date.now();
    const reply = await exchange(Buffer.concat([Buffer.from(head(new URL(ch.url).pathname, body.length + 1)), body]), undefined, { endAtOnce: true });
    expect(reply).toBe('');
    const [d] = await ch.waitFor((ds) => ds.length === 1, { timeoutMs: 60_000 });
    expect(d).toMatchObject({ aborted: true, bodyBytes: body.length, response: { status: 0 } });
    expect(d!.violations).toEqual([`Content-Length mismatch (header ${body.length + 1}, received ${body.length})`]);
    // Never hangs: a receiver that waited for the missing byte would wait for its 60 s stall
    // timeout; half of that tells the two apart on a busy machine too.
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
