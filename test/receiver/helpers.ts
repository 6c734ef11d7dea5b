import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A delivery as the spec describes it (Spec › Events › Delivery request). */
export function syncRecords(syncId: string, records: number, marker = ''): unknown {
  return {
    event: 'sync.records',
    object: {
      id: syncId,
      name: `sync ${syncId}`,
      records: Array.from({ length: records }, (_, i) => ({ hash: `h${marker}${i}`, fields: { n: i, marker } })),
      metadata: null,
    },
  };
}

export function deliveryHeaders(body: Buffer, secret = 's3cret-token'): OutgoingHttpHeaders {
  return {
    'Accept-Encoding': 'gzip',
    'Content-Type': 'application/json',
    'Service-Signature-Timestamp': new Date().toISOString(),
    Authorization: `Bearer ${secret}`,
    'Content-Length': String(body.length),
    'User-Agent': 'DSS/1.0',
  };
}

export function gz(value: unknown): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(value)));
}

/** POST with node:http; resolves with the reply, rejects on a transport error. */
export function post(url: string, body: Buffer | Readable, headers: OutgoingHttpHeaders): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (Buffer.isBuffer(body)) req.end(body);
    else body.pipe(req);
  });
}

/**
 * Writes raw bytes on a TCP connection, optionally half-closes, and resolves with everything the
 * server sent before it closed the connection (or `waitMs` passed).
 */
export function raw(port: number, data: string | Buffer, opts: { end?: boolean; waitMs?: number } = {}): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(data);
      if (opts.end ?? true) socket.end();
    });
    const done = (): void => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(() => {
      socket.destroy();
      done();
    }, opts.waitMs ?? 2000);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', done);
  });
}

/** `total` zero bytes, produced lazily in 64 KiB chunks. */
export function zeros(total: number): Readable {
  const chunk = Buffer.alloc(64 * 1024);
  let left = total;
  return new Readable({
    read() {
      if (left <= 0) {
        this.push(null);
        return;
      }
      const n = Math.min(left, chunk.length);
      left -= n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
}
