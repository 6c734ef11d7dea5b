import { gunzipSync } from 'node:zlib';
import { inflateChunkSize } from '../inflate-chunk.ts';
import { sameSecret } from '../reference/auth.ts';
import { parseIsoUtc } from '../iso8601.ts';

// The conforming receiver's decisions, one function each, so that a fault or a benign variant
// replaces or wraps exactly one of them (faults.ts, benign.ts) and the HTTP plumbing (server.ts)
// never changes. Spec › Authentication 5, Events › Delivery request, Body, Emission 2; Limits.

export interface DeliveryRecord {
  hash: string;
  fields: Record<string, unknown>;
}

export interface Delivery {
  event: string;
  object: { id?: unknown; name?: unknown; records: DeliveryRecord[]; metadata?: unknown };
}

/** What the receiver makes of one request; `answer` turns it into a status, headers and body. */
export type Outcome =
  | { kind: 'accepted'; delivery: Delivery; added: number }
  | { kind: 'unauthorized' }
  | { kind: 'stale'; reason: string }
  | { kind: 'malformed'; reason: string }
  | { kind: 'unknown-event'; event: string };

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/** Thrown by decode/parse for input the receiver cannot use: a 400, never a 5xx (the sender's fault). */
export class BadInput extends Error {}

/** What a request brings to the steps: its headers (lower-case names, as node gives them) and raw body. */
export interface Incoming {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** The hashes processed, in order, duplicates included (what the inspection endpoint lists). */
export interface ProcessedLog {
  list: string[];
  seen: Set<string>;
}

export interface ReceiverSteps {
  /** Whether the Authorization value carries the stored secret under the Bearer scheme. */
  authorize(authorization: string | undefined, secret: string): boolean;
  /** Why the Service-Signature-Timestamp is refused, or undefined when it is within the tolerance. */
  checkTimestamp(stamp: string | undefined, nowMs: number, maxAgeSeconds: number): string | undefined;
  /** The JSON bytes of the body (throws BadInput). */
  decode(incoming: Incoming): Buffer;
  /** The JSON value the bytes hold (throws BadInput). */
  parse(json: Buffer): unknown;
  /** The event type of a parsed body (throws BadInput when there is none). */
  eventOf(value: unknown): string;
  knows(event: string): boolean;
  /** The delivery a body of a known event holds (throws BadInput when it is not of the delivery's shape). */
  shape(value: unknown): Delivery;
  /** Processes the delivery's records; returns how many were new. */
  process(delivery: Delivery, log: ProcessedLog, incoming: Incoming): number;
  /** May be slow: the one step that is awaited. */
  answer(outcome: Outcome, signal: AbortSignal): Answer | Promise<Answer>;
}

/** One request header (repeated ones joined, as HTTP folds them). */
export const header = (incoming: Incoming, name: string): string | undefined => {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/** Bodies decompress to at most this: a gzip bomb is refused rather than filling memory. */
const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

const GZIP_MAGIC = [0x1f, 0x8b];
export const looksGzipped = (body: Buffer): boolean => body[0] === GZIP_MAGIC[0] && body[1] === GZIP_MAGIC[1];

export function gunzip(body: Buffer): Buffer {
  try {
    return gunzipSync(body, { maxOutputLength: MAX_INFLATED_BYTES, chunkSize: inflateChunkSize(body.length) });
  } catch (error) {
    throw new BadInput(`the body is not valid gzip (${(error as Error).message})`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checked before the shape: another event type may have a shape of its own. */
export function eventOf(value: unknown): string {
  if (!isObject(value)) throw new BadInput('the body is not a JSON object');
  if (typeof value.event !== 'string') throw new BadInput('event is not a string');
  return value.event;
}

/** The delivery's shape (Spec › Events › Body); id, name and metadata are not needed to process records. */
export function deliveryOf(value: unknown): Delivery {
  if (!isObject(value)) throw new BadInput('the body is not a JSON object');
  const object = value.object;
  if (!isObject(object)) throw new BadInput('object is not an object');
  if (!Array.isArray(object.records)) throw new BadInput('object.records is not a list');
  for (const [i, record] of object.records.entries()) {
    if (!isObject(record) || typeof record.hash !== 'string' || !isObject(record.fields)) {
      throw new BadInput(`object.records[${i}] is not {hash: string, fields: object}`);
    }
  }
  if (object.metadata !== undefined && object.metadata !== null && !isObject(object.metadata)) throw new BadInput('object.metadata is not an object');
  return value as unknown as Delivery;
}

export function parseJson(json: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch (error) {
    throw new BadInput(`the body is not JSON in UTF-8 (${(error as Error).message})`);
  }
}

const json = (status: number, body: unknown): Answer => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

export function conformingSteps(): ReceiverSteps {
  return {
    // The scheme name is case-insensitive (RFC 9110 §11.1); the secret is compared exactly.
    authorize: (authorization, secret) => {
      const match = /^bearer ([^ ]+)$/i.exec(authorization ?? '');
      return match !== null && sameSecret(match[1]!, secret);
    },
    // "Receivers should reject requests older than a few minutes": a stamp too far ahead is refused
    // too, or a sender's clock (or a replayer) could make a delivery young forever.
    checkTimestamp: (stamp, nowMs, maxAgeSeconds) => {
      if (stamp === undefined) return 'Service-Signature-Timestamp is missing';
      const at = parseIsoUtc(stamp);
      if (at === undefined) return 'Service-Signature-Timestamp is not an ISO 8601 UTC timestamp';
      if (Math.abs(nowMs - at) > maxAgeSeconds * 1000) return `Service-Signature-Timestamp is more than ${maxAgeSeconds} s away from now`;
      return undefined;
    },
    // The spec lists no Content-Encoding on deliveries, yet says the content is gzip-compressed:
    // gzip is read whether or not the header says so; anything else is refused.
    decode: (incoming) => {
      const encoding = header(incoming, 'content-encoding')?.trim().toLowerCase();
      if (encoding !== undefined && encoding !== '' && encoding !== 'gzip' && encoding !== 'identity') throw new BadInput(`Content-Encoding ${encoding} is not read`);
      if (!looksGzipped(incoming.body)) throw new BadInput('the body is not gzip-compressed');
      return gunzip(incoming.body);
    },
    parse: parseJson,
    eventOf,
    knows: (event) => event === 'sync.records',
    shape: deliveryOf,
    // "[The hash] can be used to deduplicate": a record whose hash was processed is skipped.
    process: (delivery, log) => {
      let added = 0;
      for (const { hash } of delivery.object.records) {
        if (log.seen.has(hash)) continue;
        log.seen.add(hash);
        log.list.push(hash);
        added++;
      }
      return added;
    },
    answer: (outcome) => {
      switch (outcome.kind) {
        case 'accepted':
        case 'unknown-event': // known to be unknown: acknowledged, not processed
          return { status: 200 };
        case 'unauthorized':
          return json(401, { message: 'missing or wrong bearer secret' });
        case 'stale':
          return json(401, { message: outcome.reason });
        case 'malformed':
          return json(400, { message: outcome.reason });
      }
    },
  };
}

