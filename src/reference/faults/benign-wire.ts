import { gzipSync } from 'node:zlib';
import type { DeliveryPipeline } from '../delivery.ts';
import { isObject } from '../validation.ts';
import { VERSION_HEADER } from '../versions.ts';
import { editHeaders } from './deliveries.ts';
import { editErrorBody, editSuccess, isRoute, ROUTES, type Fault } from './fault.ts';

// More benign variants, of what goes on the wire: answers and error bodies a vendor may shape
// otherwise where the spec leaves it open, and deliveries that are unusual but conforming. Each is
// something a check could wrongly take for a failure (README › Interpretations says why each is
// conforming).

function wrapPipeline<K extends keyof DeliveryPipeline>(pipeline: DeliveryPipeline, name: K, wrap: (original: DeliveryPipeline[K]) => DeliveryPipeline[K]): void {
  pipeline[name] = wrap(pipeline[name]);
}

export const wireVariants: readonly Fault[] = [
  {
    name: 'error-message-only',
    breaks: [],
    description:
      'Error bodies carry only message (key, metadata and status are optional: Spec › Errors). The "No schemas found" answer keeps the status 400 and metadata null that Specific cases 1 requires.',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        const noSchemas = typeof body.message === 'string' && body.message.startsWith('No schemas found');
        for (const field of Object.keys(body)) if (field !== 'message' && !(noSchemas && (field === 'status' || field === 'metadata'))) delete body[field];
      }),
  },
  {
    name: 'minimal-connection-answer',
    breaks: [],
    description: 'A connection creation answers { data: { id } } only, plus auth_url for OAuth kinds and the generated secret of a webhook (Spec: "not shown beyond auth_url").',
    apply: ({ app }) =>
      editSuccess(app, 'POST', ROUTES.connections, (data) => {
        const secret = isObject(data.configuration) ? data.configuration.secret : undefined;
        for (const field of Object.keys(data)) if (field !== 'id' && field !== 'auth_url') delete data[field];
        if (secret !== undefined) data.configuration = { secret };
      }),
  },
  {
    name: 'bulk-create-202',
    breaks: [],
    description: 'A bulk sync creation answers 202 Accepted (Spec: "Success is a 2xx status").',
    apply: ({ app }) =>
      app.addHook('preSerialization', async (request, reply, payload) => {
        if (reply.statusCode === 200 && isRoute(request, 'POST', ROUTES.bulkSyncs)) reply.code(202);
        return payload;
      }),
  },
  {
    name: 'no-version-echo',
    breaks: [],
    description: 'Answers do not carry X-Service-Version back (the spec never says they do).',
    apply: ({ app }) =>
      app.addHook('onSend', async (_request, reply, payload) => {
        reply.removeHeader(VERSION_HEADER);
        return payload;
      }),
  },
  {
    name: 'schema-cache-slow',
    breaks: [],
    description: 'A new connection\'s schemas take 3 s to cache instead of 0.5 s (the spec: "a short time"; the reference profile allows 15 s).',
    apply: ({ config }) => {
      config.schemaCacheDelayMs = 3000;
    },
  },
  {
    name: 'subscribers-null-when-empty',
    breaks: [],
    description: 'An empty subscriber list is answered as null (the field is nullable, and null holds no address).',
    apply: ({ app }) =>
      app.addHook('preSerialization', async (request, _reply, payload: unknown) => {
        const onErrorHandling = request.routeOptions.url === ROUTES.syncErrorHandling || request.routeOptions.url === ROUTES.bulkErrorHandling;
        if (onErrorHandling && isObject(payload) && isObject(payload.data) && Array.isArray(payload.data.subscribers) && payload.data.subscribers.length === 0) {
          return { ...payload, data: { ...payload.data, subscribers: null } };
        }
        return payload;
      }),
  },
  {
    name: 'delivery-json-charset',
    breaks: [],
    description: 'Deliveries are labelled Content-Type: application/json; charset=utf-8 (the same media type, with a parameter).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['Content-Type'] = 'application/json; charset=utf-8')),
  },
  {
    name: 'delivery-header-spellings',
    breaks: [],
    description:
      'Deliveries spell their headers in other conforming ways: Service-Signature-Timestamp in the ISO 8601 basic format, to the microsecond, with the zero offset +0000 (20261125T210907.473000+0000); tabs as the optional whitespace in Content-Type (application/json\\t;\\tcharset=utf-8) and Accept-Encoding (deflate,\\tgzip) (RFC 9110 §5.6.3).',
    apply: ({ config }) =>
      editHeaders(config.delivery, (headers) => {
        headers['Service-Signature-Timestamp'] = headers['Service-Signature-Timestamp']!.replace(/[-:]/g, '').replace(/\.(\d+)Z$/, '.$1000+0000');
        headers['Content-Type'] = 'application/json\t;\tcharset=utf-8';
        headers['Accept-Encoding'] = 'deflate,\tgzip';
      }),
  },
  {
    name: 'delivery-accept-encoding-list',
    breaks: [],
    description: 'Deliveries carry Accept-Encoding: deflate, gzip;q=1.0, br (gzip among others).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['Accept-Encoding'] = 'deflate, gzip;q=1.0, br')),
  },
  {
    name: 'delivery-timestamp-seconds',
    breaks: [],
    description: 'Service-Signature-Timestamp has whole seconds, no fraction (2026-11-25T04:00:00Z, as the real service writes it).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['Service-Signature-Timestamp'] = headers['Service-Signature-Timestamp']!.replace(/\.\d+(?=Z$)/, ''))),
  },
  {
    name: 'delivery-timestamp-comma',
    breaks: [],
    description: 'Service-Signature-Timestamp has a comma as the decimal sign (2026-11-25T21:09:07,473Z): ISO 8601 allows it, and prefers it (RFC 3339 does not, but the spec names ISO 8601).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['Service-Signature-Timestamp'] = headers['Service-Signature-Timestamp']!.replace('.', ','))),
  },
  {
    name: 'delivery-extra-headers',
    breaks: [],
    description: 'Deliveries carry headers the spec does not list (X-Request-Id, Service-Delivery-Attempt).',
    apply: ({ config }) =>
      editHeaders(config.delivery, (headers) => {
        headers['X-Request-Id'] = `req-${Date.now().toString(36)}`;
        headers['Service-Delivery-Attempt'] = '1';
      }),
  },
  {
    name: 'delivery-records-reversed',
    breaks: [],
    description: 'The records of each delivery come in reverse source order (the spec gives no order).',
    apply: ({ config }) =>
      wrapPipeline(config.delivery, 'buildPayload', (build) => (batch) => {
        const body = build(batch);
        return { ...body, object: { ...body.object, records: [...body.object.records].reverse() } };
      }),
  },
  {
    name: 'delivery-half-batches',
    breaks: [],
    description: 'Deliveries hold half the batch size, rounded up (Spec › Emission 1: "at most one batch of records").',
    apply: ({ config }) => wrapPipeline(config.delivery, 'batchSize', (size) => (sync) => Math.ceil(size(sync) / 2)),
  },
  {
    name: 'delivery-extra-body-fields',
    breaks: [],
    description: 'Delivery bodies carry fields the spec does not name: a top-level id and created_at, object.sync_mode, and an op beside each record\'s hash and fields.',
    apply: ({ config }) =>
      wrapPipeline(config.delivery, 'buildPayload', (build) => (batch) => {
        const body = build(batch);
        const records = body.object.records.map((r) => ({ ...r, op: 'upsert' }));
        const extended = { id: `evt_${batch.run.id}_${batch.index}`, created_at: new Date().toISOString(), ...body, object: { ...body.object, sync_mode: 'differential', records } };
        return extended as typeof body;
      }),
  },
  {
    name: 'delivery-json-ascii-escapes',
    breaks: [],
    description: 'Delivery bodies are ASCII-only JSON: every non-ASCII character (of a sync name, of a record value) written as a \\u escape, as Python\'s json.dumps does by default; the strings are the same.',
    apply: ({ config }) =>
      wrapPipeline(config.delivery, 'encodeBody', (encode) => (json) => encode(json.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))),
  },
  {
    name: 'delivery-short-hash',
    breaks: [],
    description: 'Record hashes are 16 hex characters (the first 64 bits of the reference\'s hash), as the real service\'s are.',
    apply: ({ config }) => wrapPipeline(config.delivery, 'hashRecord', (hash) => (fields) => hash(fields).slice(0, 16)),
  },
  {
    name: 'delivery-gzip-two-members',
    breaks: [],
    description: 'Each body is two gzip members, one after the other (RFC 1952 §2.2: a gzip file is a series of members), as a compressor flushed midway writes it.',
    apply: ({ config }) =>
      wrapPipeline(config.delivery, 'encodeBody', () => (json) => {
        const bytes = Buffer.from(json, 'utf8');
        const half = Math.floor(bytes.length / 2);
        return Buffer.concat([gzipSync(bytes.subarray(0, half)), gzipSync(bytes.subarray(half))]);
      }),
  },
];
