import { randomBytes } from 'node:crypto';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DeliveryOutcome, DeliveryPipeline, DeliveryRequest } from '../delivery.ts';
import type { Fault } from './fault.ts';

/** Replaces one step of the delivery pipeline with a wrapper around the original. */
function wrapStep<K extends keyof DeliveryPipeline>(pipeline: DeliveryPipeline, name: K, wrap: (original: DeliveryPipeline[K]) => DeliveryPipeline[K]): void {
  pipeline[name] = wrap(pipeline[name]);
}

/** Edits the headers of every delivery (names as the pipeline writes them). */
/** Edits the headers of a sync's later runs only (the first run is left right). */
function editLaterRuns(pipeline: DeliveryPipeline, edit: (headers: Record<string, string>) => void): void {
  wrapStep(pipeline, 'buildHeaders', (original) => (batch) => {
    const headers = original(batch);
    if (batch.run.ordinal > 1) edit(headers);
    return headers;
  });
}

export function editHeaders(pipeline: DeliveryPipeline, edit: (headers: Record<string, string>, secret: string, connectionId: string) => void): void {
  wrapStep(pipeline, 'buildHeaders', (original) => (batch) => {
    const headers = original(batch);
    edit(headers, batch.secret, batch.connection.id);
    return headers;
  });
}

/** The same instant written in local time at +01:00, e.g. 2026-11-22T05:00:00.000+01:00 for 04:00:00.000Z. */
function plusOneHour(utc: string): string {
  return new Date(Date.parse(utc) + 3_600_000).toISOString().replace(/Z$/, '+01:00');
}

/**
 * After each batch the receiver accepted, one more request to the same URL, made by `hostile` from
 * the real one; its answer is ignored and it is logged like any delivery. These faults prove that a
 * malformed delivery is recorded as a violation and the run still finishes.
 */
function sendExtra(pipeline: DeliveryPipeline, hostile: (request: DeliveryRequest) => DeliveryRequest): void {
  const extras = new WeakMap<object, { extra: DeliveryRequest; outcome: DeliveryOutcome }>();
  wrapStep(pipeline, 'sendBatch', (send) => async (request, transport) => {
    const outcome = await send(request, transport);
    if ('error' in outcome || pipeline.isFailure(outcome.status)) return outcome;
    const extra = hostile(request);
    extras.set(request, { extra, outcome: await send(extra, transport) });
    return outcome;
  });
  // The extra request is logged with its own answer: the log stays true (WH-022).
  wrapStep(pipeline, 'capture', (capture) => (log, exchange) => {
    capture(log, exchange);
    const sent = extras.get(exchange.request);
    if (sent) capture(log, { ...exchange, request: sent.extra, bodyBytes: (sent.extra.body as Uint8Array).byteLength, outcome: sent.outcome });
  });
}

/** The request with another body, and the Content-Length that goes with it. */
function withBody(request: DeliveryRequest, body: Buffer, headers = request.headers): DeliveryRequest {
  return { ...request, body, headers: { ...headers, 'Content-Length': String(body.byteLength) } };
}

/** An empty sync.records payload, gzipped: a delivery that carries no record. */
function emptyPayload(request: DeliveryRequest): Buffer {
  const json = JSON.parse(gunzipSync(request.body as Uint8Array).toString('utf8')) as { object: Record<string, unknown> };
  return gzipSync(JSON.stringify({ ...json, object: { ...json.object, records: [] } }));
}

let bomb: Buffer | undefined;
/** 1 GiB of zeros as 1,024 gzip members of 1 MiB each: about 1 MB on the wire. */
function gzipBomb(): Buffer {
  bomb ??= Buffer.concat(Array.from({ length: 1024 }, () => MEMBER));
  return bomb;
}
const MEMBER = gzipSync(Buffer.alloc(1 << 20));

export const deliveryFaults: Fault[] = [
  {
    name: 'delivery-method-put',
    breaks: ['WH-001'],
    description: 'Deliveries are sent with PUT instead of POST.',
    apply: ({ config }) => wrapStep(config.delivery, 'sendBatch', (send) => (request, transport) => send({ ...request, method: 'PUT' }, transport)),
  },
  {
    name: 'delivery-not-gzip',
    breaks: ['WH-002'],
    description: 'Delivery bodies are plain JSON, not gzip (and carry no Content-Encoding).',
    apply: ({ config }) => {
      config.delivery.encodeBody = (json) => Buffer.from(json, 'utf8');
      editHeaders(config.delivery, (headers) => delete headers['Content-Encoding']);
    },
  },
  {
    name: 'delivery-content-type-text',
    breaks: ['WH-003'],
    description: 'Deliveries are labelled Content-Type: text/plain.',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['Content-Type'] = 'text/plain')),
  },
  {
    name: 'delivery-no-accept-encoding',
    breaks: ['WH-004'],
    description: 'Deliveries carry no Accept-Encoding header.',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => delete headers['Accept-Encoding']),
  },
  {
    name: 'delivery-chunked',
    breaks: ['WH-005'],
    description: 'Deliveries carry no Content-Length: the body is sent with chunked transfer encoding.',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'sendBatch', (send) => (request, transport) => {
        const headers = { ...request.headers };
        delete headers['Content-Length'];
        return send({ ...request, headers, body: Readable.from([request.body]) }, transport);
      }),
  },
  {
    name: 'delivery-local-time',
    breaks: ['WH-006'],
    description: 'Service-Signature-Timestamp is written in local time with an offset (…T05:00:00.000+01:00), not in UTC.',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['Service-Signature-Timestamp'] = plusOneHour(headers['Service-Signature-Timestamp']!))),
  },
  {
    name: 'delivery-stale-timestamp',
    breaks: ['WH-007'],
    description: 'Service-Signature-Timestamp is 10 minutes before the request was created.',
    apply: ({ config }) =>
      editHeaders(config.delivery, (headers) => (headers['Service-Signature-Timestamp'] = new Date(Date.parse(headers['Service-Signature-Timestamp']!) - 600_000).toISOString())),
  },
  {
    name: 'delivery-content-type-later-runs',
    breaks: ['WH-003'],
    description: "A sync's first run is labelled application/json; its later runs application/octet-stream.",
    apply: ({ config }) => editLaterRuns(config.delivery, (headers) => (headers['Content-Type'] = 'application/octet-stream')),
  },
  {
    name: 'delivery-accept-encoding-later-runs',
    breaks: ['WH-004'],
    description: "A sync's later runs carry Accept-Encoding: identity instead of gzip.",
    apply: ({ config }) => editLaterRuns(config.delivery, (headers) => (headers['Accept-Encoding'] = 'identity')),
  },
  {
    name: 'delivery-user-agent-later-runs',
    breaks: ['WH-009'],
    description: "A sync's later runs carry a User-Agent with the service name only (DSS-Reference), no release label.",
    apply: ({ config }) => editLaterRuns(config.delivery, (headers) => (headers['User-Agent'] = 'DSS-Reference')),
  },
  {
    name: 'delivery-host-elsewhere',
    breaks: ['WH-023'],
    description: 'Deliveries reach the receiver with a Host header naming another host (dssc-elsewhere.invalid).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers.Host = 'dssc-elsewhere.invalid')),
  },
  {
    name: 'delivery-wrong-bearer',
    breaks: ['WH-008'],
    description: 'Deliveries carry a bearer secret other than the one returned when the webhook connection was created.',
    apply: ({ config }) => {
      const other = randomBytes(32).toString('base64url');
      editHeaders(config.delivery, (headers) => (headers.Authorization = `Bearer ${other}`));
    },
  },
  {
    name: 'delivery-rotating-bearer',
    breaks: ['WH-008'],
    description: "A webhook connection's first delivery carries its secret; every later one a new random secret.",
    apply: ({ config }) => {
      const used = new Set<string>();
      editHeaders(config.delivery, (headers, _secret, connectionId) => {
        if (used.has(connectionId)) headers.Authorization = `Bearer ${randomBytes(32).toString('base64url')}`;
        used.add(connectionId);
      });
    },
  },
  {
    name: 'delivery-no-user-agent',
    breaks: ['WH-009'],
    description: 'Deliveries carry no User-Agent header.',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => delete headers['User-Agent']),
  },
  {
    name: 'delivery-wrong-event',
    breaks: ['WH-010'],
    description: 'The delivery body says event "sync.record" instead of "sync.records".',
    apply: ({ config }) => wrapStep(config.delivery, 'buildPayload', (build) => (batch) => ({ ...build(batch), event: 'sync.record' })),
  },
  {
    name: 'delivery-wrong-object-id',
    breaks: ['WH-011'],
    description: "object.id is the run's (execution's) id instead of the sync's.",
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
        const payload = build(batch);
        return { ...payload, object: { ...payload.object, id: batch.run.id } };
      }),
  },
  {
    name: 'delivery-object-name-later-runs',
    breaks: ['WH-011'],
    description: "object.name is right in a sync's first run and the sync's id in its later runs.",
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
        const payload = build(batch);
        return batch.run.ordinal > 1 ? { ...payload, object: { ...payload.object, name: batch.sync.id } } : payload;
      }),
  },
  {
    name: 'delivery-null-as-empty-string',
    // WH-017 too: a row changed from "" to null (or back) is delivered alike before and after, so it is not sent again.
    breaks: ['WH-012', 'WH-017'],
    description: 'A null source value is delivered as "" (a serializer that has no null).',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'selectFields', (select) => (row, selection) =>
        Object.fromEntries(Object.entries(select(row, selection)).map(([k, v]) => [k, v === null ? '' : v]))),
  },
  {
    name: 'delivery-numeric-strings-as-numbers',
    // WH-017 too: a row changed from 1 to "1" (or true to "true") is delivered alike before and after, so it is not sent again.
    breaks: ['WH-012', 'WH-017'],
    description: 'A source string that looks like a number or a boolean ("1", "true") is delivered as that number or boolean.',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'selectFields', (select) => (row, selection) =>
        Object.fromEntries(Object.entries(select(row, selection)).map(([k, v]) => [k, v === 'true' ? true : v === 'false' ? false : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v]))),
  },
  {
    name: 'delivery-extra-field',
    breaks: ['WH-012'],
    description: "Records carry the row's unselected columns too, besides the selected fields.",
    apply: ({ config }) => wrapStep(config.delivery, 'selectFields', (select) => (row, selection) => ({ ...row, ...select(row, selection) })),
  },
  {
    name: 'hash-key-order',
    breaks: ['WH-013'],
    description: 'The record hash is taken over the field pairs in selection order, not sorted by name: the same pairs selected in another order hash differently.',
    apply: ({ config }) => {
      config.delivery.hashRecord = (fields) => createHash('sha256').update(JSON.stringify(Object.entries(fields))).digest('hex');
    },
  },
  {
    name: 'hash-ignores-values',
    // WH-017 too: a changed row keeps its hash, so the next run does not see the change.
    breaks: ['WH-013', 'WH-017'],
    description: 'The record hash is taken over the field names only, so records with other values share a hash (and a changed row is not seen as changed).',
    apply: ({ config }) => {
      config.delivery.hashRecord = (fields) => createHash('sha256').update(JSON.stringify(Object.keys(fields).sort())).digest('hex');
    },
  },
  {
    name: 'metadata-dropped',
    breaks: ['WH-014'],
    description: "object.metadata is null even when the sync's Metadata setting holds pairs.",
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
        const payload = build(batch);
        return { ...payload, object: { ...payload.object, metadata: null } };
      }),
  },
  {
    name: 'batch-size-plus-one',
    breaks: ['WH-015'],
    description: 'Deliveries hold one record more than the batch size (101 by default).',
    apply: ({ config }) => wrapStep(config.delivery, 'batchSize', (size) => (sync) => size(sync) + 1),
  },
  {
    name: 'lose-record',
    // WH-017 too: a first run that loses a row has not delivered every row.
    breaks: ['WH-016', 'WH-017'],
    description: "The last record of a sync's first run's last batch is left out of the delivery, yet marked delivered.",
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
        const payload = build(batch);
        if (batch.run.ordinal !== 1 || !batch.last) return payload;
        return { ...payload, object: { ...payload.object, records: payload.object.records.slice(0, -1) } };
      }),
  },
  {
    name: 'full-sync-later-run-duplicates',
    breaks: ['WH-016'],
    description: 'With full sync on, a later run (not the first) repeats the first record of its last batch at the end of that batch, when the batch has room for it.',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildPayload', (build) => (batch) => {
        const payload = build(batch);
        const first = payload.object.records[0];
        // A full batch is left alone: one record more would also break the batch size (WH-015).
        const room = payload.object.records.length < config.delivery.batchSize(batch.sync);
        if (batch.run.ordinal === 1 || !batch.last || batch.sync.sync_all_records !== true || !first || !room) return payload;
        return { ...payload, object: { ...payload.object, records: [...payload.object.records, first] } };
      }),
  },
  {
    name: 'duplicate-record',
    breaks: ['WH-016'],
    description: 'Every batch the receiver accepted is sent once more (a retry that ignores the first success); the resend is logged too.',
    apply: ({ config }) => {
      const resent = new WeakMap<object, DeliveryOutcome>();
      wrapStep(config.delivery, 'sendBatch', (send) => async (request, transport) => {
        const first = await send(request, transport);
        if ('error' in first || config.delivery.isFailure(first.status)) return first;
        resent.set(request, first);
        return send(request, transport);
      });
      // Each send is logged with its own answer: the log stays true (WH-022).
      wrapStep(config.delivery, 'capture', (capture) => (log, exchange) => {
        const first = resent.get(exchange.request);
        if (first) capture(log, { ...exchange, outcome: first });
        capture(log, exchange);
      });
    },
  },
  {
    name: 'differential-resends-all',
    breaks: ['WH-017', 'WH-019'],
    description: 'Every run delivers every row, as if full sync were always on (the first run with skip backfill still delivers nothing).',
    apply: ({ config }) => wrapStep(config.delivery, 'deliveryMode', (mode) => (sync, run) => (mode(sync, run) === 'changes' ? 'all' : mode(sync, run))),
  },
  {
    name: 'full-sync-ignored',
    breaks: ['WH-018'],
    description: 'Always do a full sync (sync_all_records) is ignored: runs deliver only differences.',
    apply: ({ config }) => wrapStep(config.delivery, 'deliveryMode', (mode) => (sync, run) => (mode(sync, run) === 'all' ? 'changes' : mode(sync, run))),
  },
  {
    name: 'skip-backfill-ignored',
    breaks: ['WH-019'],
    description: 'Skip backfill on first sync (skip_initial_backfill) is ignored: the first run delivers every existing row.',
    apply: ({ config }) => wrapStep(config.delivery, 'deliveryMode', (mode) => (sync, run) => (mode(sync, run) === 'baseline' ? 'changes' : mode(sync, run))),
  },
  {
    name: '4xx-completes',
    breaks: ['WH-020'],
    description: 'A 4xx answer from the receiver counts as delivered: the run goes on and completes.',
    apply: ({ config }) => wrapStep(config.delivery, 'isFailure', (isFailure) => (status) => (status >= 400 && status < 500 ? false : isFailure(status))),
  },
  {
    name: '5xx-completes',
    breaks: ['WH-021'],
    description: 'A 5xx answer from the receiver counts as delivered: the run goes on and completes.',
    apply: ({ config }) => wrapStep(config.delivery, 'isFailure', (isFailure) => (status) => (status >= 500 && status < 600 ? false : isFailure(status))),
  },
  {
    name: 'no-capture-log',
    breaks: ['WH-022'],
    description: "Runs keep no capture log: an execution's requests is null even when record_requests is true.",
    apply: ({ config }) => {
      config.delivery.openLog = () => null;
    },
  },
  {
    name: 'extra-delivery-not-json',
    breaks: ['WH-010'],
    description: 'After each accepted batch, one more delivery whose gzip body is not JSON.',
    apply: ({ config }) => sendExtra(config.delivery, (r) => withBody(r, gzipSync('sync.records: this is not JSON'))),
  },
  {
    name: 'extra-delivery-no-authorization',
    breaks: ['WH-008'],
    description: 'After each accepted batch, one more delivery (with no records) that carries no Authorization header.',
    apply: ({ config }) =>
      sendExtra(config.delivery, (r) => {
        const { Authorization: _dropped, ...headers } = r.headers;
        return withBody(r, emptyPayload(r), headers);
      }),
  },
  {
    name: 'extra-delivery-gzip-bomb',
    breaks: ['WH-002', 'WH-010'],
    description: 'After each accepted batch, one more delivery whose gzip body inflates to 1 GiB (about 1 MB sent).',
    apply: ({ config }) => sendExtra(config.delivery, (r) => withBody(r, gzipBomb())),
  },
];
