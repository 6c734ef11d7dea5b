import { Readable } from 'node:stream';
import { crc32, gunzipSync, gzipSync } from 'node:zlib';
import type { DeliveryPipeline } from '../delivery.ts';
import type { Store } from '../store.ts';
import { isObject } from '../validation.ts';
import { editHeaders } from './deliveries.ts';
import { editErrorBody, editSuccess, ROUTES, wrapStore, type Fault } from './fault.ts';

// Benign variants written by an outside tester from the spec's words alone (README › Interpretations
// says why each is conforming): behaviours a conforming target may show where the spec leaves the
// choice open, and that a check could wrongly take for a failure.

function wrapPipeline<K extends keyof DeliveryPipeline>(pipeline: DeliveryPipeline, name: K, wrap: (original: DeliveryPipeline[K]) => DeliveryPipeline[K]): void {
  pipeline[name] = wrap(pipeline[name]);
}

/** Gives every new resource of one kind an id made by `next`, re-keying the store's map. */
function reId<K extends 'addConnection' | 'addBulkSync' | 'addModelSync' | 'addModel'>(store: Store, method: K, map: Map<string, { id: string }>, next: () => string): void {
  wrapStore(store, method, ((original: (input: unknown) => { id: string }) => (input: unknown) => {
    const created = original(input);
    map.delete(created.id);
    created.id = next();
    map.set(created.id, created);
    return created;
  }) as never);
}

function reIdAll(store: Store, next: () => string): void {
  reId(store, 'addConnection', store.connections, next);
  reId(store, 'addBulkSync', store.bulkSyncs, next);
  reId(store, 'addModelSync', store.modelSyncs, next);
  reId(store, 'addModel', store.models, next);
}

const onErrorHandling = (url: string | undefined) => url === ROUTES.syncErrorHandling || url === ROUTES.bulkErrorHandling;

export const heldOutVariants: readonly Fault[] = [
  {
    name: 'error-bodies-empty',
    breaks: [],
    description: 'Error bodies are {} (every field of the error body is optional: Spec › Errors); only the "No schemas found" answer keeps its status, message and metadata null (Specific cases 1).',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        if (typeof body.message === 'string' && body.message.startsWith('No schemas found')) return;
        for (const field of Object.keys(body)) delete body[field];
      }),
  },
  {
    name: 'put-answers-no-data',
    breaks: [],
    description: 'The error-handling PUTs answer 200 {} without data ("data is optional"); the reads show the settings.',
    apply: ({ app }) =>
      app.addHook('preSerialization', async (request, reply, payload: unknown) => {
        if (request.method === 'PUT' && reply.statusCode === 200 && onErrorHandling(request.routeOptions.url)) return {};
        return payload;
      }),
  },
  {
    name: 'reads-omitempty',
    breaks: [],
    description: 'The error-handling reads and PUTs leave out every field whose value is null, false or an empty list, always (all fields are optional in the response), as a Go server with omitempty does.',
    apply: ({ app }) =>
      app.addHook('preSerialization', async (request, reply, payload: unknown) => {
        if (reply.statusCode !== 200 || !onErrorHandling(request.routeOptions.url) || !isObject(payload) || !isObject(payload.data)) return payload;
        const empty = (value: unknown) => value === null || value === false || (Array.isArray(value) && value.length === 0);
        return { ...payload, data: Object.fromEntries(Object.entries(payload.data).filter(([, value]) => !empty(value))) };
      }),
  },
  {
    name: 'ids-reserved-chars',
    breaks: [],
    description: "Resource ids hold characters a path segment may carry unescaped (RFC 3986 pchar: ':', '@', '+', '=', '~', '!'), e.g. conn:7+a=b@eu~1!.",
    apply: ({ store }) => {
      let next = 0;
      reIdAll(store, () => `res:${++next}+a=b@eu~1!`);
    },
  },
  {
    name: 'answers-gzip-chunked',
    breaks: [],
    description: 'Answers are streamed with Transfer-Encoding: chunked (no Content-Length), gzip-compressed (Content-Encoding: gzip) whenever the request\'s Accept-Encoding allows it (RFC 9110 §12.5.3), as a compressing proxy sends them.',
    apply: ({ app }) =>
      app.addHook('onSend', async (request, reply, payload: unknown) => {
        if (typeof payload !== 'string') return payload;
        const gzip = /\bgzip\b/i.test(String(request.headers['accept-encoding'] ?? ''));
        const bytes = gzip ? gzipSync(payload) : Buffer.from(payload);
        if (gzip) reply.header('content-encoding', 'gzip').header('vary', 'Accept-Encoding');
        reply.removeHeader('content-length');
        const chunks: Buffer[] = [];
        for (let at = 0; at < bytes.length; at += 7) chunks.push(bytes.subarray(at, at + 7));
        return Readable.from(chunks);
      }),
  },
  {
    name: 'no-schemas-other-wording',
    breaks: [],
    description: 'The "No schemas found" answer has another key and another wording after the prefix: "No schemas found. The connection\'s schemas are still being cached; please retry shortly." (status 400, metadata null).',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        if (typeof body.message !== 'string' || !body.message.startsWith('No schemas found')) return;
        body.key = 'schema_cache_pending';
        body.message = "No schemas found. The connection's schemas are still being cached; please retry shortly.";
      }),
  },
  {
    name: 'delivery-keys-reordered',
    breaks: [],
    description: 'Delivery bodies write their keys in another order: object before event, metadata and records before id and name, fields before hash, and each record\'s fields in reverse order.',
    apply: ({ config }) =>
      wrapPipeline(config.delivery, 'buildPayload', (original) => (batch) => {
        const { event, object } = original(batch);
        const records = object.records.map(({ hash, fields }) => ({ fields: Object.fromEntries(Object.entries(fields).reverse()), hash }));
        return { object: { metadata: object.metadata, records, name: object.name, id: object.id }, event } as never;
      }),
  },
  {
    name: 'delivery-metadata-absent',
    breaks: [],
    description: 'A delivery of a sync with no Metadata setting carries no object.metadata (the real service\'s example shows none); with pairs set it carries them.',
    apply: ({ config }) =>
      wrapPipeline(config.delivery, 'buildPayload', (original) => (batch) => {
        const payload = original(batch);
        if (payload.object.metadata === null) delete (payload.object as Partial<typeof payload.object>).metadata;
        return payload;
      }),
  },
  {
    name: 'delivery-metadata-empty-object',
    breaks: [],
    description: 'A delivery of a sync with no Metadata setting carries object.metadata {} (the pairs of the setting: none), as a server with an initialised map writes it.',
    apply: ({ config }) =>
      wrapPipeline(config.delivery, 'buildPayload', (original) => (batch) => {
        const payload = original(batch);
        if (payload.object.metadata === null) payload.object.metadata = {};
        return payload;
      }),
  },
  {
    name: 'delivery-timestamp-nanos-hour-offset',
    breaks: [],
    description: 'Service-Signature-Timestamp has nine fraction digits (as Go\'s RFC3339Nano writes them) and its zero offset as hours only (2026-11-25T21:09:07.473000000+00: ISO 8601 allows ±hh).',
    apply: ({ config }) =>
      editHeaders(config.delivery, (headers) => {
        headers['Service-Signature-Timestamp'] = headers['Service-Signature-Timestamp']!.replace(/\.(\d{3})Z$/, '.$1000000+00');
      }),
  },
  {
    name: 'webhook-secret-jwt',
    breaks: [],
    description: 'A webhook connection\'s generated secret is a JWT (header.payload.signature, base64url with dots), as the real service\'s are.',
    apply: ({ app, store }) => {
      const jwt = (id: string) => {
        const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
        return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ aud: 'webhook', jti: id, iss: 'dss' })}.${Buffer.from(id).toString('base64url')}Xy-_`;
      };
      wrapStore(store, 'addConnection', (original) => (input) => {
        const created = original(input);
        if (typeof created.configuration.secret === 'string') created.configuration.secret = jwt(created.id);
        return created;
      });
      editSuccess(app, 'POST', ROUTES.connections, (data) => {
        const stored = typeof data.id === 'string' ? store.getConnection(data.id) : undefined;
        if (stored && isObject(data.configuration) && typeof data.configuration.secret === 'string') data.configuration.secret = stored.configuration.secret;
      });
    },
  },
  {
    name: 'auth-401-unlisted',
    breaks: [],
    description: 'A missing or wrong credential is answered 401 Unauthorized on the endpoints that do not list 403 (POST connections, POST bulk syncs, the extensions); the two that list 403 answer 403 (Spec › Authentication 3).',
    apply: ({ app }) =>
      app.addHook('onSend', async (request, reply, payload: unknown) => {
        if (reply.statusCode !== 403 || onErrorHandling(request.routeOptions.url)) return payload;
        reply.code(401);
        if (typeof payload !== 'string') return payload;
        const body: unknown = JSON.parse(payload);
        return isObject(body) && body.status === 403 ? JSON.stringify({ ...body, status: 401, key: 'unauthorized' }) : payload;
      }),
  },
  {
    name: 'put-unknown-fields-refused',
    breaks: [],
    description: 'The error-handling PUTs answer a body with a field the spec does not name 400 validation_error (400 is listed), and change nothing.',
    apply: ({ app }) => {
      const known: Record<string, string[]> = {
        [ROUTES.syncErrorHandling]: ['auto_retry_record_errors', 'notify_on_record_errors', 'subscribers', 'warning_notifications'],
        [ROUTES.bulkErrorHandling]: ['ingestion_failure_threshold', 'subscribers'],
      };
      app.addHook('preValidation', async (request, reply) => {
        const fields = request.method === 'PUT' ? known[request.routeOptions.url ?? ''] : undefined;
        if (!fields || !isObject(request.body)) return;
        const extra = Object.keys(request.body).find((field) => !fields.includes(field));
        if (extra === undefined) return;
        return reply
          .code(400)
          .type('application/json')
          .send({ key: 'validation_error', message: `/${extra} is not a field of this body`, metadata: { field: `/${extra}` }, status: 400 });
      });
    },
  },
  {
    name: 'delivery-gzip-header-fields',
    breaks: [],
    description: 'Each delivery body is one gzip member whose header carries the optional fields (RFC 1952 §2.3: FNAME payload.json, FCOMMENT, FHCRC, an mtime and OS byte) before the deflate data.',
    apply: ({ config }) =>
      wrapPipeline(config.delivery, 'encodeBody', (encode) => (json) => {
        const plain = Buffer.from(encode(json));
        const flags = 0x02 | 0x08 | 0x10; // FHCRC, FNAME, FCOMMENT
        const head = Buffer.concat([
          Buffer.from([0x1f, 0x8b, 8, flags]),
          Buffer.from([0x80, 0x5e, 0x26, 0x69]), // mtime
          Buffer.from([0x00, 0x03]), // XFL, OS unix
          Buffer.from('payload.json\0', 'latin1'),
          Buffer.from('sync.records batch\0', 'latin1'),
        ]);
        const crc16 = crc32(head) & 0xffff;
        const hcrc = Buffer.from([crc16 & 0xff, crc16 >> 8]);
        return Buffer.concat([head, hcrc, plain.subarray(10)]);
      }),
  },
  {
    name: 'delivery-stamped-at-queueing',
    breaks: [],
    description: 'Service-Signature-Timestamp is when the request was created and queued, 90 s before it is sent (a sender with a queue): within "a few minutes".',
    apply: ({ config }) =>
      editHeaders(config.delivery, (headers) => {
        headers['Service-Signature-Timestamp'] = new Date(Date.parse(headers['Service-Signature-Timestamp']!) - 90_000).toISOString();
      }),
  },
  {
    name: 'errors-problem-json',
    breaks: [],
    description: 'Error answers are labelled application/problem+json (RFC 9457), a JSON media type (RFC 6839 +json), with the spec\'s error body.',
    apply: ({ app }) =>
      app.addHook('onSend', async (_request, reply, payload) => {
        if (reply.statusCode >= 400) reply.header('content-type', 'application/problem+json; charset=utf-8');
        return payload;
      }),
  },
  {
    name: 'bulk-create-location-only',
    breaks: [],
    description: 'A bulk sync creation answers 201 Created with an empty body and Location: /api/bulk/syncs/<id> (Spec: "Body not shown. Success is a 2xx status").',
    apply: ({ app }) =>
      app.addHook('onSend', async (request, reply, payload: unknown) => {
        if (reply.statusCode >= 300 || request.method !== 'POST' || request.routeOptions.url !== ROUTES.bulkSyncs || typeof payload !== 'string') return payload;
        const id = (JSON.parse(payload) as { data?: { id?: string } }).data?.id;
        if (id === undefined) return payload;
        reply.code(201).header('location', `/api/bulk/syncs/${encodeURIComponent(id)}`);
        reply.removeHeader('content-type');
        return '';
      }),
  },
  {
    name: 'connection-id-in-location',
    breaks: [],
    description: 'A connection creation answers 201 with Location: /api/connections/<id> and a body without the id (auth_url and a webhook\'s secret stay): "not shown beyond auth_url".',
    apply: ({ app }) =>
      app.addHook('preSerialization', async (request, reply, payload: unknown) => {
        if (reply.statusCode >= 300 || request.method !== 'POST' || request.routeOptions.url !== ROUTES.connections) return payload;
        if (!isObject(payload) || !isObject(payload.data) || typeof payload.data.id !== 'string') return payload;
        const { id, ...rest } = payload.data;
        reply.code(201).header('location', `/api/connections/${encodeURIComponent(id)}`);
        return { ...payload, data: rest };
      }),
  },
  {
    name: 'reads-never-data',
    breaks: [],
    description: 'The error-handling reads (the spec\'s GET of a bulk sync, the model-sync GET extension) always answer 200 {} without data ("data is optional"); the PUTs answer the settings.',
    apply: ({ app }) =>
      app.addHook('preSerialization', async (request, reply, payload: unknown) => {
        if (request.method === 'GET' && reply.statusCode === 200 && onErrorHandling(request.routeOptions.url)) return {};
        return payload;
      }),
  },
  {
    name: 'delivery-empty-batch-first',
    breaks: [],
    description: 'A run opens with a delivery of no records (records: []) before its first batch, as a sender that announces the run does; its answer counts like any other.',
    apply: ({ config }) => {
      editHeadersOfBatch(config.delivery);
      wrapPipeline(config.delivery, 'sendBatch', (send) => async (request, transport) => {
        if (!(FIRST_BATCH in request.headers) || !(request.body instanceof Uint8Array)) return send(request, transport);
        const payload = JSON.parse(gunzipSync(request.body).toString('utf8')) as { object: { records: unknown[] } };
        const body = gzipSync(JSON.stringify({ ...payload, object: { ...payload.object, records: [] } }));
        // Created with the batch (the same stamp): a sequential sender creates what it sends first no later (WH-007).
        const headers = { ...request.headers, 'Content-Length': String(body.byteLength) };
        const at = new Date().toISOString();
        const opening = await send({ ...request, headers, body }, transport);
        openings.set(request.headers, { at, request: { ...request, headers, body }, bodyBytes: body.byteLength, outcome: opening });
        if ('error' in opening || config.delivery.isFailure(opening.status)) return opening;
        return send(request, transport);
      });
      // Emission 6: the opening request is logged too, before the batch it opened.
      const openings = new WeakMap<object, Parameters<DeliveryPipeline['capture']>[1]>();
      wrapPipeline(config.delivery, 'capture', (capture) => (log, exchange) => {
        const opening = openings.get(exchange.request.headers);
        if (opening) capture(log, opening);
        if (!opening || !('error' in opening.outcome || config.delivery.isFailure(opening.outcome.status))) capture(log, exchange);
      });
    },
  },
];

/** Marks the headers of a run's first batch (a symbol: never sent). */
const FIRST_BATCH = Symbol('first batch');
function editHeadersOfBatch(pipeline: DeliveryPipeline): void {
  wrapPipeline(pipeline, 'buildHeaders', (build) => (batch) => {
    const headers = build(batch);
    if (batch.index === 1) Object.defineProperty(headers, FIRST_BATCH, { value: true, enumerable: false });
    return headers;
  });
}
