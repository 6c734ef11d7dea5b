import { gunzip, gunzipSync } from 'node:zlib';
import { inflateChunkSize } from '../inflate-chunk.ts';

/** Request headers from node's rawHeaders: names lowercased, duplicates joined with ', '. */
export function joinHeaders(rawHeaders: readonly string[]): Record<string, string> {
  // Null prototype: a header named "__proto__" or "constructor" stays an ordinary entry.
  const headers = Object.create(null) as Record<string, string>;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    const value = rawHeaders[i + 1] ?? '';
    const prior = headers[name];
    headers[name] = prior === undefined ? value : `${prior}, ${value}`;
  }
  return headers;
}

/**
 * Header-level violations: Authorization present (its value is the suite's business) and
 * Content-Length present and equal to the bytes received. `compareLength` is false when the
 * receiver itself stopped reading (body over cap), as the shortfall is then ours.
 */
export function headerViolations(
  headers: Record<string, string>,
  received: number,
  compareLength: boolean,
): string[] {
  const out: string[] = [];
  const auth = headers['authorization'];
  if (auth === undefined) out.push('no Authorization header');
  else if (auth.trim() === '') out.push('empty Authorization header');
  const cl = headers['content-length'];
  if (cl === undefined) out.push('no Content-Length');
  else if (compareLength) {
    const declared = /^\d+$/.test(cl.trim()) ? Number(cl.trim()) : NaN;
    if (declared !== received) out.push(`Content-Length mismatch (header ${cl.trim()}, received ${received})`);
  }
  return out;
}

export interface BodyAnalysis {
  gzip: boolean;
  inflated?: Buffer;
  json?: unknown;
  violations: string[];
  /** The inflated body was over the cap: the request is refused with 413. */
  inflatedOverCap: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function isGzip(body: Buffer): boolean {
  return body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
}

/**
 * Gunzips (bounded by maxInflatedBytes, so a gzip bomb stops at the cap) and parses a complete body.
 * Deliveries are gzip-compressed JSON (Spec › Events › Delivery request), so anything else is a violation.
 */
export async function analyseBody(body: Buffer, maxInflatedBytes: number): Promise<BodyAnalysis> {
  const violations: string[] = [];
  const gzip = isGzip(body);
  if (body.length === 0) violations.push('empty body');
  let text: Buffer | undefined = body;
  let inflated: Buffer | undefined;
  let inflatedOverCap = false;
  if (gzip) {
    try {
      inflated = await gunzipCapped(body, maxInflatedBytes);
      text = inflated;
    } catch (err) {
      text = undefined;
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        inflatedOverCap = true;
        violations.push('inflated body over cap');
      } else {
        violations.push('gzip stream corrupt');
      }
    }
  } else {
    violations.push('not gzip');
  }
  let parsed: ParsedText | undefined;
  if (text !== undefined) {
    parsed = parseText(text);
    if (!parsed.utf8) violations.push('invalid UTF-8');
  }
  const ok = parsed !== undefined && 'json' in parsed;
  if (!ok && !inflatedOverCap && !violations.includes('gzip stream corrupt')) violations.push('not JSON');
  const out: BodyAnalysis = { gzip, violations, inflatedOverCap };
  if (inflated !== undefined) out.inflated = inflated;
  if (ok) out.json = parsed!.json;
  return out;
}

interface ParsedText {
  /** The bytes were valid UTF-8 (otherwise they were decoded with replacement characters). */
  utf8: boolean;
  /** Absent when the text is not JSON. */
  json?: unknown;
}

function parseText(text: Buffer): ParsedText {
  let str: string;
  let valid = true;
  try {
    str = utf8.decode(text);
  } catch {
    valid = false;
    str = text.toString('utf8');
  }
  try {
    return { utf8: valid, json: JSON.parse(str) as unknown };
  } catch {
    return { utf8: valid };
  }
}

/**
 * The JSON of a body parsed again from its bytes (the inflated ones when kept), as analyseBody
 * parsed it on arrival; undefined when it no longer can be (the bytes were taken away).
 */
export function reparse(body: Buffer, inflated: Buffer | undefined, maxInflatedBytes: number): unknown {
  try {
    const text = inflated ?? (isGzip(body) ? gunzipSync(body, { maxOutputLength: maxInflatedBytes, chunkSize: inflateChunkSize(body.length) }) : body);
    return parseText(text).json;
  } catch {
    return undefined;
  }
}

/**
 * The bytes in a buffer of their own. Buffer.concat and Buffer.from take small buffers from a
 * shared pool, and one kept body then pins the whole slab it sits in (measured: ~24 KB held per
 * 1 KB body).
 */
export function ownCopy(chunks: readonly Buffer[], length = chunks.reduce((n, c) => n + c.length, 0)): Buffer {
  const out = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const c of chunks) {
    if (at >= length) break;
    at += c.copy(out, at, 0, Math.min(c.length, length - at));
  }
  return out;
}

function gunzipCapped(body: Buffer, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(body, { maxOutputLength: max, chunkSize: inflateChunkSize(body.length) }, (err, out) => (err ? reject(err) : resolve(out)));
  });
}
