import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { packageRoot } from '../paths.ts';

// A sync.records delivery as the spec describes it (Events › Delivery request; Body), built the
// way the service sends one, for the receiver checks and `dss-conformance send`.

/** A record's field values: any JSON value, and bigint for integers past 2^53 (written as JSON numbers). */
export type Fields = Record<string, unknown>;

export interface BuildDeliveryOptions {
  secret: string;
  /** Each record's fields; its hash is computed from them (recordHash) unless `hashes` gives it. */
  records: Fields[];
  /** object.metadata: omitted when undefined (null is sent as null). */
  metadata?: Record<string, unknown> | null | undefined;
  /** The event type (default sync.records); null leaves the member out. */
  event?: string | null | undefined;
  syncId?: string | undefined;
  syncName?: string | undefined;
  /** Service-Signature-Timestamp (default now). */
  timestamp?: Date | undefined;
  /** Hashes to send instead of the computed ones, by record index. */
  hashes?: Array<string | undefined> | undefined;
  /** Header overrides by exact name; undefined removes the header (Content-Length is fixed up unless named). */
  headers?: Record<string, string | undefined> | undefined;
  /** JSON text to gzip instead of the delivery built from the fields above (shapes the spec does not allow). */
  jsonText?: string | undefined;
  /** The body bytes as sent, instead of the gzip of the JSON (a body that is not gzip, cut short...). */
  rawBody?: Buffer | undefined;
}

export interface BuiltDelivery {
  headers: Record<string, string>;
  /** The body as sent: gzip of `text` unless rawBody was given. */
  body: Buffer;
  /** The JSON value (bigints as bigint). */
  json: unknown;
  /** The JSON text before compression. */
  text: string;
  /** The hashes of the records, in order. */
  hashes: string[];
}

let version: string | undefined;
function kitVersion(): string {
  version ??= (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}

/** "Service name followed by a release label" (Delivery request › User-Agent). */
export const userAgent = (): string => `dss-conformance/${kitVersion()}`;

interface RawJson {
  rawJSON(text: string): unknown;
}

/** JSON text in which a bigint is a JSON number of its exact digits (JSON.rawJSON, Node 21+). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? (JSON as unknown as RawJson).rawJSON(v.toString()) : v));
}

/**
 * The hash of a record's field key/value pairs (Body › object.records[].hash): SHA-256 of the
 * pairs sorted by name, each value as JSON, the same key src/suite/webhook-hash.ts (pairsKey)
 * compares records by, so 1 and "1" hash apart; bigints are written as their JSON numbers.
 */
export function recordHash(fields: Fields): string {
  const pairs = Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(toJson(pairs)).digest('hex');
}

export function buildDelivery(o: BuildDeliveryOptions): BuiltDelivery {
  const hashes = o.records.map((fields, i) => o.hashes?.[i] ?? recordHash(fields));
  const object: Record<string, unknown> = {
    id: o.syncId ?? 'dssc-sync',
    name: o.syncName ?? 'dssc sync',
    records: o.records.map((fields, i) => ({ hash: hashes[i], fields })),
  };
  if (o.metadata !== undefined) object.metadata = o.metadata;
  const json: Record<string, unknown> = o.event === null ? { object } : { event: o.event ?? 'sync.records', object };
  const text = o.jsonText ?? toJson(json);
  const body = o.rawBody ?? gzipSync(Buffer.from(text, 'utf8'));
  const headers: Record<string, string> = {
    'Accept-Encoding': 'gzip',
    'Content-Type': 'application/json',
    'Service-Signature-Timestamp': (o.timestamp ?? new Date()).toISOString(),
    Authorization: `Bearer ${o.secret}`,
    'Content-Length': String(body.length),
    'User-Agent': userAgent(),
  };
  for (const [name, value] of Object.entries(o.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  return { headers, body, json: o.jsonText === undefined ? json : o.jsonText, text, hashes };
}
