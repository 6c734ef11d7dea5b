import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';

// A small sender for the reference receiver's own tests: deliveries of the spec's shape, each part
// overridable, so a test can send exactly the near miss it means. (The kit's receiver checks build
// theirs with src/deliveries/build.ts.)

export interface Sent {
  status: number;
  body: string;
}

export interface DeliveryParts {
  secret: string;
  records?: Array<Record<string, unknown>>;
  event?: string;
  metadata?: Record<string, unknown> | null;
  /** Milliseconds added to now for Service-Signature-Timestamp. */
  ageShiftMs?: number;
  headers?: Record<string, string | undefined>;
  /** Replaces the whole body (then `json` is ignored). */
  rawBody?: Buffer;
  json?: unknown;
}

export const recordOf = (fields: Record<string, unknown>) => ({ hash: createHash('sha256').update(JSON.stringify(Object.entries(fields).sort())).digest('hex'), fields });

export function deliveryJson(parts: DeliveryParts): unknown {
  const object: Record<string, unknown> = { id: 'sync-1', name: 'Contacts to webhook', records: (parts.records ?? [{ email: 'a@example.com' }]).map(recordOf) };
  if (parts.metadata !== undefined) object.metadata = parts.metadata;
  return { event: parts.event ?? 'sync.records', object };
}

export async function send(url: string, parts: DeliveryParts): Promise<Sent> {
  const body = parts.rawBody ?? gzipSync(Buffer.from(JSON.stringify(parts.json ?? deliveryJson(parts))));
  const headers: Record<string, string> = {
    'accept-encoding': 'gzip',
    'content-type': 'application/json',
    'service-signature-timestamp': new Date(Date.now() + (parts.ageShiftMs ?? -10_000)).toISOString(),
    authorization: `Bearer ${parts.secret}`,
    'user-agent': 'dss-conformance-test/1',
  };
  for (const [name, value] of Object.entries(parts.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const answer = await request(url, { method: 'POST', headers, body });
  return { status: answer.statusCode, body: await answer.body.text() };
}

export async function processed(inspectUrl: string): Promise<string[]> {
  const answer = await request(inspectUrl);
  return ((await answer.body.json()) as { processed: string[] }).processed;
}
