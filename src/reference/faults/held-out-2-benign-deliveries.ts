import { randomUUID } from 'node:crypto';
import type { BatchContext, DeliveryOutcome, DeliveryPipeline, DeliveryRequest } from '../delivery.ts';
import type { ExecutionStatus, SyncExecution } from '../store.ts';
import { isObject } from '../validation.ts';
import { isRoute, ROUTES, wrapStore, type Fault } from './fault.ts';

// Held-out benign items, round 2 (runs and webhook deliveries): what the spec leaves open in a
// delivery and in a run's course. Each description cites the spec's words that allow it.

const TIMESTAMP = 'Service-Signature-Timestamp';

/** Replaces the timestamp header's value with another ISO 8601 UTC form of the same moment. */
function timestampForm(p: DeliveryPipeline, form: (now: Date) => string): void {
  const original = p.buildHeaders;
  p.buildHeaders = (batch) => ({ ...original(batch), [TIMESTAMP]: form(new Date()) });
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The batch each request belongs to (its headers object is the key: runs.ts sends the headers it was given). */
function rememberBatches(p: DeliveryPipeline): WeakMap<object, BatchContext> {
  const batches = new WeakMap<object, BatchContext>();
  const original = p.buildHeaders;
  p.buildHeaders = (batch) => {
    const headers = original(batch);
    batches.set(headers, batch);
    return headers;
  };
  return batches;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const heldOut2DeliveryVariants: readonly Fault[] = [
  {
    name: 'hb2-ts-seconds',
    breaks: [],
    description: "Service-Signature-Timestamp has whole seconds only (2026-11-23T10:00:00Z), the real service's form: 'ISO 8601 UTC timestamp of when the request was created' (Spec › Events › Delivery request).",
    apply({ config }) {
      timestampForm(config.delivery, (now) => `${now.toISOString().slice(0, 19)}Z`);
    },
  },
  {
    name: 'hb2-ts-utc-offset',
    breaks: [],
    description: "Service-Signature-Timestamp names UTC by the offset +00:00 instead of Z (2026-11-23T10:00:00.123+00:00): ISO 8601 writes UTC either way; 'ISO 8601 UTC timestamp' (Spec › Events › Delivery request).",
    apply({ config }) {
      timestampForm(config.delivery, (now) => `${now.toISOString().slice(0, 23)}+00:00`);
    },
  },
  {
    name: 'hb2-ts-basic-format',
    breaks: [],
    description: "Service-Signature-Timestamp is in ISO 8601 basic format (20261123T100000Z), which ISO 8601 defines beside the extended one: 'ISO 8601 UTC timestamp' (Spec › Events › Delivery request).",
    apply({ config }) {
      timestampForm(config.delivery, (d) => `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`);
    },
  },
  {
    name: 'hb2-ts-nanoseconds',
    breaks: [],
    description: "Service-Signature-Timestamp carries nine fraction digits (Go's RFC3339Nano, 2026-11-23T10:00:00.123456789Z): ISO 8601 sets no limit on the fraction; 'ISO 8601 UTC timestamp' (Spec › Events › Delivery request).",
    apply({ config }) {
      timestampForm(config.delivery, (now) => `${now.toISOString().slice(0, 23)}${pad(Math.floor(Math.random() * 1e6), 6)}Z`);
    },
  },
  {
    name: 'hb2-ts-comma-fraction',
    breaks: [],
    description: "Service-Signature-Timestamp separates the fraction with a comma (2026-11-23T10:00:00,123Z), the decimal sign ISO 8601 prefers: 'ISO 8601 UTC timestamp' (Spec › Events › Delivery request).",
    apply({ config }) {
      timestampForm(config.delivery, (now) => `${now.toISOString().slice(0, 19)},${now.toISOString().slice(20, 23)}Z`);
    },
  },
  {
    name: 'hb2-delivery-extra-fields',
    breaks: [],
    description:
      "Deliveries carry fields the body table does not list (a delivery id and created_at at the top, execution_id and batch in object, operation in each record): the spec lists the fields it defines and forbids no other; 'Receivers should process only event types they know' (Spec › Events › Body).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = original(batch);
        const object = { ...body.object, execution_id: batch.run.id, batch: batch.index, records: body.object.records.map((r) => ({ ...r, operation: 'upsert' })) };
        return { id: randomUUID(), created_at: new Date().toISOString(), ...body, object } as typeof body;
      };
    },
  },
  {
    name: 'hb2-delivery-metadata-omitted',
    breaks: [],
    description:
      "object.metadata is left out when the sync has no Metadata setting (its default, null), as the real service's documented example shows no metadata: Metadata 'Fixed pairs added to every payload under object.metadata', default null (Spec › Webhook settings).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = original(batch);
        if (body.object.metadata === null) delete (body.object as Partial<typeof body.object>).metadata;
        return body;
      };
    },
  },
  {
    name: 'hb2-delivery-headers-variant',
    breaks: [],
    description:
      "Delivery headers are written in lower case, Content-Type carries '; charset=utf-8', the User-Agent's release label is 'rel2026.11.23' (DSS-Reference/rel2026.11.23, the real service's label form), and X-Request-Id and Service-Delivery-Attempt are added: header names are case-insensitive (RFC 9110 §5.1), 'Content-Type | application/json', 'User-Agent | Service name followed by a release label' (Spec › Events › Delivery request).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.buildHeaders;
      p.buildHeaders = (batch) => {
        const headers = Object.fromEntries(Object.entries(original(batch)).map(([k, v]) => [k.toLowerCase(), v]));
        return { ...headers, 'content-type': 'application/json; charset=utf-8', 'user-agent': 'DSS-Reference/rel2026.11.23', 'x-request-id': randomUUID(), 'service-delivery-attempt': '1' };
      };
    },
  },
  {
    name: 'hb2-delivery-gzip-no-content-encoding',
    breaks: [],
    description:
      "The gzip body is sent without a Content-Encoding header, exactly the spec's header table (Host, Accept-Encoding, Content-Type, Service-Signature-Timestamp, Authorization, Content-Length, User-Agent) and the real service's example: 'Content is sent gzip-compressed.' (Spec › Events › Delivery request).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.buildHeaders;
      p.buildHeaders = (batch) => {
        const headers = original(batch);
        delete headers['Content-Encoding'];
        return headers;
      };
    },
  },
  {
    name: 'hb2-delivery-x-gzip',
    breaks: [],
    description: "The gzip body is labelled 'Content-Encoding: x-gzip', which RFC 9110 §8.4.1.3 makes equivalent to gzip: 'Content is sent gzip-compressed.' (Spec › Events › Delivery request).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.buildHeaders;
      p.buildHeaders = (batch) => ({ ...original(batch), 'Content-Encoding': 'x-gzip' });
    },
  },
  {
    name: 'hb2-delivery-hash-16hex',
    breaks: [],
    description: "A record's hash is 16 hex digits (the real service's length), still different for different field pairs: 'hash | string | Computed hash of the record's field key/value pairs' (Spec › Events › Body).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.hashRecord;
      p.hashRecord = (fields) => original(fields).slice(0, 16);
    },
  },
  {
    name: 'hb2-delivery-records-reversed',
    breaks: [],
    description:
      "Within a delivery, records come in reverse source order and each record's fields in reverse selection order: the spec sets no order for records ('Records changed since the last payload') nor for the fields object (Spec › Events › Body).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.buildPayload;
      p.buildPayload = (batch) => {
        const body = original(batch);
        body.object.records = [...body.object.records].reverse().map((r) => ({ hash: r.hash, fields: Object.fromEntries(Object.entries(r.fields).reverse()) }));
        return body;
      };
    },
  },
  {
    name: 'hb2-delivery-smaller-batches',
    breaks: [],
    description: "Each delivery holds at most half the batch size (rounded up), never more than the batch size: 'Each delivery holds at most one batch of records' (Spec › Events › Emission 1).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.batchSize;
      p.batchSize = (sync) => Math.max(1, Math.ceil(original(sync) / 2));
    },
  },
  {
    name: 'hb2-delivery-retries',
    breaks: [],
    description:
      "A delivery that got no answer or a 5xx is sent again (up to twice, 100 ms apart, with a fresh timestamp), each attempt logged; a 5xx still fails the run even when a retry succeeds: 'Retry behaviour after a failed delivery: not shown.' and 'Any 4xx or 5xx answer ... makes the sync appear as failed' (Spec › Events › Emission 3, 5).",
    apply({ config }) {
      const p = config.delivery;
      const batches = rememberBatches(p);
      const logged = new WeakSet<object>();
      const send = p.sendBatch;
      const capture = p.capture;
      p.capture = (log, exchange) => {
        if (!logged.has(exchange.outcome)) capture(log, exchange);
      };
      p.sendBatch = async (request, transport) => {
        const batch = batches.get(request.headers);
        if (!batch || !(request.body instanceof Uint8Array)) return send(request, transport);
        const attempts: Array<{ at: string; request: DeliveryRequest; outcome: DeliveryOutcome }> = [];
        let sent = request;
        for (let attempt = 0; attempt < 3; attempt++) {
          if (attempt > 0) {
            await sleep(100);
            sent = { ...request, headers: { ...request.headers, [TIMESTAMP]: new Date().toISOString() } };
          }
          const at = new Date().toISOString();
          const outcome = await send(sent, transport);
          attempts.push({ at, request: sent, outcome });
          const retry = 'error' in outcome || outcome.status >= 500;
          if (!retry) break;
        }
        if (attempts.length === 1) return attempts[0]!.outcome;
        for (const a of attempts) capture(batch.run.requests, { ...a, bodyBytes: (request.body as Uint8Array).byteLength });
        const failed = attempts.find((a) => !('error' in a.outcome) && a.outcome.status >= 400);
        const result = failed?.outcome ?? attempts.at(-1)!.outcome;
        logged.add(result);
        return result;
      };
    },
  },
  {
    name: 'hb2-runs-queued-long',
    breaks: [],
    description:
      "A run stays queued for 0.5 s before it delivers anything (the real service's runs 'can sit in queued for minutes'): the spec shows no states and no time for a run ('States and transitions: not shown', Spec › States and transitions).",
    apply({ store, config }) {
      const holdMs = 500;
      const held = new WeakMap<SyncExecution, number>();
      wrapStore(store, 'addExecution', (original) => (sync, requests, options) => {
        const run = original(sync, requests, options);
        const until = Date.now() + holdMs;
        held.set(run, until);
        let status = run.status;
        let startedAt = run.startedAt;
        const holding = () => Date.now() < until;
        Object.defineProperty(run, 'status', { get: () => (status === 'running' && holding() ? 'queued' : status), set: (v: ExecutionStatus) => (status = v), enumerable: true });
        Object.defineProperty(run, 'startedAt', { get: () => (holding() ? null : startedAt), set: (v: string | null) => (startedAt = v), enumerable: true });
        return run;
      });
      const p = config.delivery;
      const batches = rememberBatches(p);
      const send = p.sendBatch;
      p.sendBatch = async (request, transport) => {
        const until = held.get(batches.get(request.headers)?.run as SyncExecution);
        if (until !== undefined && Date.now() < until) await sleep(until - Date.now());
        return send(request, transport);
      };
    },
  },
  {
    name: 'hb2-runs-extra-states',
    breaks: [],
    description:
      "A run passes through more of the real service's states: scheduled when created, and processing for 200 ms after its last batch was answered, before completed: 'States and transitions: not shown. No states of ... sync executions are enumerated.' (Spec › States and transitions).",
    apply({ store, config }) {
      wrapStore(store, 'addExecution', (original) => (sync, requests, options) => {
        const run = original(sync, requests, options);
        run.status = 'scheduled' as ExecutionStatus;
        return run;
      });
      const p = config.delivery;
      const batches = rememberBatches(p);
      const send = p.sendBatch;
      p.sendBatch = async (request, transport) => {
        const outcome = await send(request, transport);
        const batch = batches.get(request.headers);
        if (batch?.last && !('error' in outcome) && !p.isFailure(outcome.status) && batch.run.status === 'running') {
          batch.run.status = 'processing' as ExecutionStatus;
          batch.run.updatedAt = new Date().toISOString();
          await sleep(200);
          if ((batch.run.status as string) === 'processing') batch.run.status = 'running';
        }
        return outcome;
      };
    },
  },
  {
    name: 'hb2-runs-list-oldest-first',
    breaks: [],
    description:
      "The list of a sync's runs is answered oldest first when no order is asked for: listing is among the operations 'not shown' (Spec › Endpoints: 'Other operations (listing, reading, ... running connections and syncs ...): not shown').",
    apply({ app }) {
      app.addHook('preSerialization', async (request, reply, payload: unknown) => {
        if (reply.statusCode >= 400 || !isRoute(request, 'GET', ROUTES.runs) || !isObject(payload) || !Array.isArray(payload.data)) return payload;
        const query = (request.query ?? {}) as Record<string, unknown>;
        if (query.ascending !== undefined || query.page_token !== undefined) return payload;
        return { ...payload, data: [...payload.data].reverse() };
      });
    },
  },
];
