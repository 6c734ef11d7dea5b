import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { request, type Dispatcher } from 'undici';
import { packageRoot } from '../paths.ts';
import type { CaptureEntry, Connection, FieldSelection, ModelSync, Row, RowKey, SyncExecution, Value } from './store.ts';

// The steps of a sync.records delivery (Spec › Events), one function each. The run engine
// (runs.ts) calls them in order and holds no delivery rule of its own; the steps live in the
// mutable config (config.ts › ReferenceConfig.delivery), so each can be wrapped or replaced.

/** What a run does with the source's rows. */
export type DeliveryMode =
  /** Rows whose hash differs from the one last delivered for their key (the default). */
  | 'changes'
  /** Every row (Spec › Webhook settings: 'Always do a full sync'). */
  | 'all'
  /** Nothing is delivered; every row's hash is recorded as delivered ('Skip backfill on first sync'). */
  | 'baseline';

export type Fields = Record<string, Value>;

/** A row this run delivers: its key (to mark it delivered), its hash and its selected fields. */
export interface PendingRecord {
  key: RowKey;
  hash: string;
  fields: Fields;
}

/** What the steps of one batch get to know. */
export interface BatchContext {
  sync: ModelSync;
  run: SyncExecution;
  connection: Connection;
  records: readonly PendingRecord[];
  /** 1-based number of the batch within its run. */
  index: number;
  /** No record follows this batch in this run. */
  last: boolean;
}

/** Spec › Events › Body. */
export interface DeliveryBody {
  event: string;
  object: { id: string; name: string; records: Array<{ hash: string; fields: Fields }>; metadata: Record<string, string> | null };
}

export interface DeliveryRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The engine always sends bytes; a stream is sent chunked. */
  body: Uint8Array | Readable;
}

/** How one delivery request ended: the receiver's answer (body cut to 1024 characters), or why there was none. */
export type DeliveryOutcome = { status: number; body: string } | { error: string };

export interface DeliveryPipeline {
  /** What this run delivers: 'baseline' for the first run with skip_initial_backfill, 'all' with sync_all_records. */
  deliveryMode(sync: ModelSync, run: SyncExecution): DeliveryMode;
  /** The record's fields: exactly the selected ones, under their target names (null for a column the row lacks). */
  selectFields(row: Row, selection: readonly FieldSelection[]): Fields;
  /** sha256 hex of the canonical JSON of the field pairs (hashOfFields). */
  hashRecord(fields: Fields): string;
  /** Whether a record is sent, given the hash last delivered for its key (undefined: never delivered). */
  isPending(hash: string, lastDelivered: string | undefined, mode: DeliveryMode): boolean;
  /** Records per delivery (Spec › Webhook settings: batch size, default 100). */
  batchSize(sync: ModelSync): number;
  buildPayload(batch: BatchContext): DeliveryBody;
  /** The body bytes from the payload's JSON text: gzip (Spec › Events › Delivery request). */
  encodeBody(json: string): Uint8Array;
  /** The headers of one delivery, made when the request is created (the timestamp is that moment). */
  buildHeaders(batch: BatchContext & { secret: string; body: Uint8Array }): Record<string, string>;
  /** Sends one request; never throws (a transport failure is an outcome). */
  sendBatch(request: DeliveryRequest, transport: Transport): Promise<DeliveryOutcome>;
  /** Whether the receiver's status fails the run (Spec › Events › Emission 3). */
  isFailure(status: number): boolean;
  /** The run's capture log: an empty one when the sync records requests (Emission 6), else null. */
  openLog(sync: ModelSync): CaptureEntry[] | null;
  /** Adds one exchange to the log (Authorization masked). */
  capture(log: CaptureEntry[] | null, exchange: { at: string; request: DeliveryRequest; bodyBytes: number; outcome: DeliveryOutcome }): void;
}

/** The connection pool and the time limit deliveries go out with (runs.ts owns the pool). */
export interface Transport {
  dispatcher: Dispatcher;
  timeoutMs: number;
}

export const SYNC_RECORDS_EVENT = 'sync.records';
export const DEFAULT_BATCH_SIZE = 100;
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** Characters of the receiver's answer kept in the capture log. */
export const CAPTURED_BODY_CHARS = 1024;

const packageVersion = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** Spec › Events › Delivery request: User-Agent 'Service name followed by a release label'. */
export const USER_AGENT = `DSS-Reference/${packageVersion}`;

/**
 * The record hash (Spec › Events › Body: 'Computed hash of the record's field key/value pairs'):
 * sha256, hex, of JSON.stringify of the [name, value] pairs sorted by name (UTF-16 code unit
 * order). Pairs rather than an object, because JavaScript orders integer-like keys first
 * whatever their insertion order. Equal pairs in any order give one hash; any changed name or
 * value gives another.
 */
export function hashOfFields(fields: Fields): string {
  const pairs = Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return hash('sha256', JSON.stringify(pairs), 'hex');
}

/** `Bearer <secret>` becomes `Bearer ****`: the log never holds the webhook secret. */
export function maskAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, name.toLowerCase() === 'authorization' ? value.replace(/^(\S+)(\s.*)?$/s, '$1 ****') : value]));
}

/** The steps as the spec and README.md describe them. A new object each time: config.ts gives every reference instance its own. */
export function defaultPipeline(): DeliveryPipeline {
  return {
    // A run started with resync sends every record, as sync_all_records does for every run.
    deliveryMode: (sync, run) => (run.ordinal === 1 && sync.skip_initial_backfill ? 'baseline' : sync.sync_all_records || run.resync ? 'all' : 'changes'),

    selectFields: (row, selection) => {
      const fields: Fields = {};
      for (const { field, target, value } of selection) fields[target] = field === null ? (value ?? null) : Object.hasOwn(row, field) ? row[field]! : null;
      return fields;
    },

    hashRecord: hashOfFields,

    isPending: (hash, lastDelivered, mode) => mode === 'all' || (mode === 'changes' && hash !== lastDelivered),

    batchSize: (sync) => {
      const size = sync.target.configuration?.batch_size;
      return typeof size === 'number' && Number.isSafeInteger(size) && size > 0 ? size : DEFAULT_BATCH_SIZE;
    },

    buildPayload: ({ sync, records }) => ({
      event: SYNC_RECORDS_EVENT,
      object: {
        id: sync.id,
        name: sync.name,
        records: records.map(({ hash, fields }) => ({ hash, fields })),
        // Spec › Webhook settings: Metadata defaults to null, and the payload says so.
        metadata: (sync.target.configuration?.metadata as Record<string, string> | null | undefined) ?? null,
      },
    }),

    // One batch is small (tens of KiB): compressing it in place is faster than a trip to the thread pool.
    encodeBody: (json) => gzipSync(json),

    buildHeaders: ({ secret, body }) => ({
      'Content-Type': 'application/json',
      // The spec's header table has no Content-Encoding, but a compressed body is declared with it
      // (RFC 9110 §8.4), and receivers' frameworks inflate on it (README.md › Interpretations).
      'Content-Encoding': 'gzip',
      'Accept-Encoding': 'gzip',
      'Service-Signature-Timestamp': new Date().toISOString(),
      Authorization: `Bearer ${secret}`,
      'Content-Length': String(body.byteLength),
      'User-Agent': USER_AGENT,
    }),

    sendBatch: send,

    isFailure: (status) => status < 200 || status >= 300,

    openLog: (sync) => (sync.target.configuration?.record_requests === false ? null : []),

    capture: (log, { at, request: sent, bodyBytes, outcome }) => {
      log?.push({
        at,
        request: { method: sent.method, url: sent.url, headers: maskAuthorization(sent.headers), body_bytes: bodyBytes },
        response: outcome,
      });
    },
  };
}

/** Bytes of the answer read into memory; the rest is drained so the connection can be reused. */
const KEPT_ANSWER_BYTES = 4 * CAPTURED_BODY_CHARS;

async function send(sent: DeliveryRequest, transport: Transport): Promise<DeliveryOutcome> {
  try {
    const answer = await request(sent.url, {
      method: sent.method as Dispatcher.HttpMethod,
      headers: sent.headers,
      body: sent.body,
      dispatcher: transport.dispatcher,
      signal: AbortSignal.timeout(transport.timeoutMs),
    });
    const kept: Buffer[] = [];
    let size = 0;
    for await (const chunk of answer.body as AsyncIterable<Buffer>) {
      if (size < KEPT_ANSWER_BYTES) kept.push(chunk.subarray(0, KEPT_ANSWER_BYTES - size));
      size += chunk.length;
    }
    return { status: answer.statusCode, body: Buffer.concat(kept).toString('utf8').slice(0, CAPTURED_BODY_CHARS) };
  } catch (error) {
    return { error: transportError(error, transport.timeoutMs) };
  }
}

/** A transport failure in a few words, e.g. "no answer within 10000 ms", "connection refused (ECONNREFUSED)". */
export function transportError(error: unknown, timeoutMs: number): string {
  const { name, code, message } = (error ?? {}) as { name?: string; code?: string; message?: string };
  if (name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `no answer within ${timeoutMs} ms`;
  if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `the connection was closed by the receiver (${code})`;
  const text = (message ?? String(error)).split('\n')[0];
  return code ? `${text} (${code})` : text!;
}
