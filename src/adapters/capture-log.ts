import { gunzipSync } from 'node:zlib';
import { inflateChunkSize } from '../inflate-chunk.ts';
import { request } from 'undici';
import { atPointer } from '../profile/profile.ts';
import { describeTransportError } from '../client/http-client.ts';
import type { ReadLogSpec } from './declarative-spec.ts';
import type { AdapterContext, AdapterResponse, CapturedExchange } from './types.ts';

// A run's capture log as the real service offers it: a request whose answer holds the entries, or
// the URLs of log files (signed, expiring, on a storage origin of their own) that hold them. A file
// on another origin than the target's is fetched with no credential of the kit at all: a signed URL
// carries its own authorisation, and the API key must never reach a third party. A profile may
// name the storage origins it trusts (readLog.origins): a URL elsewhere is then not fetched at all.

/** Bytes of one log file that are read, and what it may inflate to: a bound, not an expectation. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

type Pointers = Required<NonNullable<ReadLogSpec['capture']>>;
const DEFAULT_POINTERS: Pointers = { request: '/request', status: '/response/status', error: '/response/error' };

/** One entry as the suite judges it: the logged request, and the response's status or the error that stood for it. */
export function exchangeOf(entry: unknown, pointers: ReadLogSpec['capture'] = {}): CapturedExchange {
  const at = { ...DEFAULT_POINTERS, ...pointers };
  const status = atPointer(entry, at.status);
  const error = atPointer(entry, at.error);
  const response = typeof status === 'number' ? { status } : typeof error === 'string' ? { error } : null;
  return { request: atPointer(entry, at.request) ?? null, response };
}

/** The entries of one file's bytes, in the declared format; gzip when declared, or when the bytes begin like it. */
export function entriesOfFile(bytes: Buffer, spec: Pick<ReadLogSpec, 'format' | 'gzip'>, what: string): unknown[] {
  const gzipped = spec.gzip ?? (bytes[0] === 0x1f && bytes[1] === 0x8b);
  let text: string;
  try {
    text = (gzipped ? gunzipSync(bytes, { maxOutputLength: MAX_INFLATED_BYTES, chunkSize: inflateChunkSize(bytes.length) }) : bytes).toString('utf8');
  } catch (error) {
    throw new Error(`${what}: not gzip (${(error as Error).message.split('\n')[0]})`);
  }
  if ((spec.format ?? 'json-lines') === 'json-array') {
    const value = parse(text, what);
    if (!Array.isArray(value)) throw new Error(`${what}: not a JSON array`);
    return value;
  }
  return text.split('\n').filter((line) => line.trim() !== '').map((line, i) => parse(line, `${what}, line ${i + 1}`));
}

function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${what}: not JSON`);
  }
}

/** Whether a URL is on the target's own origin (scheme, host and port). */
export function sameOrigin(url: URL, baseUrl: string): boolean {
  return url.origin === new URL(baseUrl).origin;
}

/**
 * Fetches one log file. On the target's origin it carries the run's key, as any request to the
 * target does; on any other origin it carries no credential. Redirects are not followed, so the
 * key never crosses to another origin either way.
 */
export async function fetchLogFile(ctx: Pick<AdapterContext, 'baseUrl' | 'apiKey' | 'timeoutMs'>, raw: string, origins?: readonly string[]): Promise<Buffer> {
  let url: URL;
  try {
    url = new URL(raw, ctx.baseUrl);
  } catch {
    throw new Error(`a log file URL is not a URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`a log file URL is not http(s): ${url.protocol}`);
  // Named without its query: a signed URL's query is its credential.
  const where = `log file ${url.origin}${url.pathname}`;
  // readLog.origins: the storage the profile trusts; the target's own origin is trusted already.
  if (origins && !sameOrigin(url, ctx.baseUrl) && !origins.some((o) => new URL(o).origin === url.origin)) {
    throw new LogFileError(`${where}: origin not in readLog.origins (${origins.join(', ')}), not fetched`);
  }
  const headers: Record<string, string> = sameOrigin(url, ctx.baseUrl) ? { authorization: `Bearer ${ctx.apiKey}` } : {};
  // userinfo is not sent (a signed URL authorises by its query); undici would refuse it.
  const target = new URL(url.href);
  target.username = '';
  target.password = '';
  try {
    // The signal covers the body too: a storage dripping bytes cannot hold the run.
    const res = await request(target, { method: 'GET', headers, headersTimeout: ctx.timeoutMs, bodyTimeout: ctx.timeoutMs, signal: AbortSignal.timeout(ctx.timeoutMs) });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump().catch(() => undefined);
      throw new LogFileError(`${where} answered ${res.statusCode}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_FILE_BYTES) {
        res.body.destroy();
        throw new LogFileError(`${where} is larger than ${MAX_FILE_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  } catch (error) {
    if (error instanceof LogFileError) throw error;
    // The transport's own words may quote the URL, and with it the signature.
    throw new LogFileError(`${where}: ${describeTransportError(error, ctx.timeoutMs)}`);
  }
}

class LogFileError extends Error {}

/**
 * The capture log of a run from the readLog answer: its entries, or those of the files its URLs
 * name, in order. null at the pointer is an empty log; nothing there is a log that cannot be read.
 */
export async function captureLogOf(
  ctx: Pick<AdapterContext, 'baseUrl' | 'apiKey' | 'timeoutMs'>,
  answer: AdapterResponse,
  spec: ReadLogSpec,
  fetchFile: (url: string) => Promise<Buffer> = (url) => fetchLogFile(ctx, url, spec.origins),
): Promise<CapturedExchange[]> {
  const entries: unknown[] = [];
  if (spec.entries !== undefined) {
    const found = atPointer(answer.json, spec.entries);
    if (found === undefined) throw new Error(`reading the capture log: the answer has nothing at ${spec.entries}`);
    if (found !== null && !Array.isArray(found)) throw new Error(`reading the capture log: ${spec.entries} is not a list`);
    entries.push(...(found ?? []));
  } else if (spec.urls !== undefined) {
    const found = atPointer(answer.json, spec.urls);
    if (found === undefined) throw new Error(`reading the capture log: the answer has nothing at ${spec.urls}`);
    const urls = found === null ? [] : Array.isArray(found) ? found : [found];
    for (const [i, url] of urls.entries()) {
      if (typeof url !== 'string') throw new Error(`reading the capture log: ${spec.urls} holds a ${typeof url}, not a URL`);
      entries.push(...entriesOfFile(await fetchFile(url), spec, `log file ${i + 1} of ${urls.length}`));
    }
  }
  return entries.map((entry) => exchangeOf(entry, spec.capture));
}
