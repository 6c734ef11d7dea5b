import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

// The real service keeps a run's logs in files behind signed, expiring URLs on a storage origin of
// its own (GET /api/syncs/{id}/executions/{execution_id}/{type} answers {expires, urls}). This is
// that storage for the reference, when started with captureLog 'signed-urls': a second listener,
// on another port, serving gzip-compressed JSON lines to whoever holds a URL that has not expired.
// As a storage service does, it refuses a request that carries credentials of its own kind
// (Authorization, or a cookie) besides the signature, and counts them: a client of the API must
// never send the API key here.

export const DEFAULT_LOG_URL_TTL_MS = 5 * 60_000;

export class SignedLogFiles {
  readonly #host: string;
  readonly #ttlMs: number;
  readonly #secret = randomBytes(32);
  readonly #files = new Map<string, Buffer>();
  #server: Server | undefined;
  #origin: Promise<string> | undefined;
  /** Requests that came with an Authorization header or a cookie (each refused). */
  credentialed = 0;

  constructor(host: string, ttlMs = DEFAULT_LOG_URL_TTL_MS) {
    this.#host = host;
    this.#ttlMs = ttlMs;
  }

  /** A new log file holding these entries, one JSON line each, gzip-compressed; its signed URL and when that expires. */
  async publish(entries: readonly unknown[]): Promise<{ url: string; expires: string }> {
    const origin = await this.#listening();
    const token = randomBytes(16).toString('hex');
    this.#files.set(token, gzipSync(entries.map((e) => JSON.stringify(e) + '\n').join('')));
    const expires = Date.now() + this.#ttlMs;
    return { url: `${origin}/logs/${token}.jsonl.gz?expires=${expires}&signature=${this.#sign(token, expires)}`, expires: new Date(expires).toISOString() };
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #sign(token: string, expires: number): string {
    return createHmac('sha256', this.#secret).update(`${token}.${expires}`).digest('hex');
  }

  #listening(): Promise<string> {
    this.#origin ??= new Promise<string>((resolve, reject) => {
      const server = createServer((req, res) => {
        const answer = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain' }).end(text + '\n');
        if (req.method !== 'GET') return answer(405, 'method not allowed');
        if (req.headers.authorization !== undefined || req.headers.cookie !== undefined) {
          this.credentialed++;
          return answer(400, 'only one auth mechanism allowed: the signature in the URL');
        }
        const url = new URL(req.url ?? '/', 'http://log-files');
        const token = /^\/logs\/([0-9a-f]{32})\.jsonl\.gz$/.exec(url.pathname)?.[1];
        const expires = Number(url.searchParams.get('expires'));
        const signature = Buffer.from(url.searchParams.get('signature') ?? '', 'utf8');
        const body = token === undefined ? undefined : this.#files.get(token);
        if (token === undefined || body === undefined) return answer(404, 'no such log file');
        const expected = Buffer.from(this.#sign(token, expires), 'utf8');
        if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return answer(403, 'signature does not match');
        if (Date.now() > expires) return answer(403, 'request has expired');
        res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length }).end(body);
      });
      server.once('error', reject);
      server.listen(0, this.#host, () => {
        const a = server.address() as AddressInfo;
        resolve(`http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`);
      });
      this.#server = server;
    });
    return this.#origin;
  }
}
