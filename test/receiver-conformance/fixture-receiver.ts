import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';

// A small receiver for this folder's tests, written from the spec (the reference receiver is the
// rref branch's): `mode` breaks one rule, or makes it echo every request into its answer (the
// redaction test: whatever the receiver says, the secret must not come out of the kit).

export type FixtureMode = 'conforming' | 'any-secret' | 'echo' | 'hang' | 'ignore-age';

export interface FixtureReceiver {
  url: string;
  inspectUrl: string;
  /** The Authorization header of every inspection request (none is expected). */
  inspectAuthorizations: string[];
  close(): Promise<void>;
}

/** history: hashes the receiver processed before this run (a long-lived harness lists them all). */
export async function startFixtureReceiver(secret: string, mode: FixtureMode = 'conforming', history: readonly string[] = []): Promise<FixtureReceiver> {
  const processed: string[] = [...history];
  const inspectAuthorizations: string[] = [];
  const seen = new Set<string>();
  const server = createServer((req, res) => {
    if (mode === 'hang') return;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  const answer = (res: ServerResponse, status: number, body = '') => res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
  const handle = (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
    if (req.method === 'GET' && req.url === '/_dssc/processed') {
      if (req.headers.authorization !== undefined) inspectAuthorizations.push(req.headers.authorization);
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ processed }));
    }
    if (mode === 'echo') return answer(res, 401, echo(req.headers.authorization ?? '', req.headers, raw));
    const given = Buffer.from(req.headers.authorization ?? '');
    const wanted = Buffer.from(`Bearer ${secret}`);
    if (mode !== 'any-secret' && (given.length !== wanted.length || !timingSafeEqual(given, wanted))) return answer(res, 401);
    const stamp = Date.parse(String(req.headers['service-signature-timestamp'] ?? ''));
    if (mode !== 'ignore-age' && (!Number.isFinite(stamp) || Math.abs(Date.now() - stamp) > 300_000)) return answer(res, 401);
    let body: { event?: unknown; object?: { records?: unknown } };
    try {
      body = JSON.parse(gunzipSync(raw).toString('utf8'));
    } catch {
      return answer(res, 400);
    }
    const records = body?.object?.records;
    if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(records) || !records.every((r) => r && typeof r === 'object' && !Array.isArray(r))) return answer(res, 400);
    if (body.event !== 'sync.records') return answer(res, 200);
    for (const r of records as Array<{ hash: string }>) {
      if (seen.has(r.hash)) continue;
      seen.add(r.hash);
      processed.push(r.hash);
    }
    answer(res, 200);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    inspectUrl: `http://127.0.0.1:${port}/_dssc/processed`,
    inspectAuthorizations,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A hostile answer: the credential first and in several encodings, then every header and the body. */
function echo(authorization: string, headers: IncomingMessage['headers'], raw: Buffer): string {
  const token = authorization.replace(/^Bearer /, '');
  return JSON.stringify({ authorization, token, b64: Buffer.from(token).toString('base64'), hex: Buffer.from(token).toString('hex'), url: encodeURIComponent(token), headers, body: raw.toString('latin1') });
}
