import { gunzip } from 'node:zlib';

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
  let json: unknown;
  let parsed = false;
  if (text !== undefined) {
    let str: string;
    try {
      str = utf8.decode(text);
    } catch {
      violations.push('invalid UTF-8');
      str = text.toString('utf8');
    }
    try {
      json = JSON.parse(str);
      parsed = true;
    } catch {
      // reported below
    }
  }
  if (!parsed && !inflatedOverCap && !violations.includes('gzip stream corrupt')) violations.push('not JSON');
  const out: BodyAnalysis = { gzip, violations, inflatedOverCap };
  if (inflated !== undefined) out.inflated = inflated;
  if (parsed) out.json = json;
  return out;
}

function gunzipCapped(body: Buffer, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    gunzip(body, { maxOutputLength: max }, (err, out) => (err ? reject(err) : resolve(out)));
  });
}
