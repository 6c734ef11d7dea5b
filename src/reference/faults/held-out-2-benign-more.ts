import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isObject } from '../validation.ts';
import { END_STATES as END, type CaptureEntry } from '../store.ts';
import { fieldError } from '../errors.ts';
import { beforeRoute, editSuccess, isRoute, ROUTES, wrapStore, type Fault } from './fault.ts';

// Held-out benign items, round 2, second batch: written after the Phase A commit (so after a look
// at the target profile's shape, not at the checks). Each description cites the spec's words that
// allow it; for the extensions (runs, model syncs, the capture log) the spec's 'not shown'.

/** JSON text with every integer written with a fraction (1 as 1.0): the same JSON value. */
function withFractions(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? `${value}.0` : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(withFractions).join(',')}]`;
  if (isObject(value)) return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${withFractions(v)}`).join(',')}}`;
  return JSON.stringify(value);
}

/** Every `every`th request under /api/ is answered 429 (an error body of the spec's shape), with the Retry-After `after` gives. */
function rateLimit(app: FastifyInstance, after: () => string | undefined, every: number): void {
  let count = 0;
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/api/') || ++count % every !== 0) return;
    const retryAfter = after();
    if (retryAfter !== undefined) reply.header('Retry-After', retryAfter);
    reply.code(429).type('application/json; charset=utf-8');
    return reply.send({ key: 'rate_limited', message: 'too many requests; slow down', metadata: null, status: 429 });
  });
}

const isRunStart = (r: FastifyRequest) => isRoute(r, 'POST', ROUTES.runs);

export const heldOut2MoreVariants: readonly Fault[] = [
  {
    name: 'hb2-batch-size-cap-100',
    breaks: [],
    description:
      "The service's maximum batch size is 100, the default: a sync configured with more gets deliveries of at most 100 records: 'the maximum batch size: not shown' (Spec › Limits) and 'Each delivery holds at most one batch of records' (Spec › Events › Emission 1).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.batchSize;
      p.batchSize = (sync) => Math.min(100, original(sync));
    },
  },
  {
    name: 'hb2-batch-size-over-100-refused',
    breaks: [],
    description:
      "The service's maximum batch size is 100, the default: creating a sync whose webhook batch size is larger is answered 400 validation_error: 'the maximum batch size: not shown' (Spec › Limits); the sync settings' API names are not shown either.",
    apply({ app }) {
      beforeRoute(app, 'POST', ROUTES.modelSyncs, (request) => {
        const body = request.body;
        const size = isObject(body) && isObject(body.target) && isObject(body.target.configuration) ? body.target.configuration.batch_size : undefined;
        if (typeof size === 'number' && size > 100) throw fieldError('/target/configuration/batch_size', 'must be at most 100 (the maximum batch size)');
      });
    },
  },
  {
    name: 'hb2-delivery-number-forms',
    breaks: [],
    description: "Delivered bodies write every integer with a fraction (42 as 42.0): the same JSON number (RFC 8259 §6); the record's values are 'value types [that] come from the sync's field selection' (Spec › Events › Body).",
    apply({ config }) {
      const p = config.delivery;
      const original = p.encodeBody;
      p.encodeBody = (json) => original(withFractions(JSON.parse(json)));
    },
  },
  {
    name: 'hb2-delivery-hash-base64',
    breaks: [],
    description: "A record's hash is the digest in base64url, not hex: 'hash | string | Computed hash of the record's field key/value pairs' (Spec › Events › Body) names no encoding.",
    apply({ config }) {
      const p = config.delivery;
      const original = p.hashRecord;
      p.hashRecord = (fields) => Buffer.from(original(fields), 'hex').toString('base64url');
    },
  },
  {
    name: 'hb2-error-handling-set-defaults',
    breaks: [],
    description:
      "New syncs start with settings other than false/empty/null: the creator subscribed, auto_retry_record_errors and warning_notifications on, and a bulk threshold of 3600: the spec shows no default for any error-handling field (Spec › SyncErrorHandling, BulkSyncErrorHandling).",
    apply({ store }) {
      wrapStore(store, 'addModelSync', (original) => (input) => {
        const sync = original(input);
        sync.errorHandling = { auto_retry_record_errors: true, notify_on_record_errors: false, subscribers: ['owner@example.com'], warning_notifications: true };
        return sync;
      });
      wrapStore(store, 'addBulkSync', (original) => (input) => {
        const sync = original(input);
        sync.errorHandling = { ingestion_failure_threshold: 3600, subscribers: ['owner@example.com'] };
        return sync;
      });
    },
  },
  {
    name: 'hb2-subscribers-deduplicated',
    breaks: [],
    description: "A subscribers list sent with the same address twice is kept once: subscribers are 'E-mail addresses ... notified', and 'subscribers replaces the whole current list' (Spec › SyncErrorHandling; PUT Rules 2) says nothing of repeats.",
    apply({ store }) {
      const dedupe = (list: string[]) => [...new Set(list)];
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => original(id, patch.subscribers ? { ...patch, subscribers: dedupe(patch.subscribers) } : patch));
      wrapStore(store, 'updateBulkErrorHandling', (original) => (id, patch) => original(id, patch.subscribers ? { ...patch, subscribers: dedupe(patch.subscribers) } : patch));
    },
  },
  {
    name: 'hb2-connection-close',
    breaks: [],
    description: "Every answer carries 'Connection: close' and the server closes the connection after it (no keep-alive): HTTP/1.1 allows either (RFC 9112 §9.6); the spec says nothing of connections.",
    apply({ app }) {
      app.addHook('onSend', async (_request, reply, payload) => {
        reply.header('Connection', 'close');
        return payload;
      });
    },
  },
  {
    name: 'hb2-rate-limited',
    breaks: [],
    description:
      "Every 150th API request is answered 429 with an error body, its Retry-After in turn '1' (seconds), an HTTP-date 1 s ahead, and absent (RFC 9110 §10.2.3; RFC 6585 §4: it MAY include one), as a rate limit: 'Rate limits, request size limits and the maximum batch size: not shown.' (Spec › Limits).",
    apply({ app }) {
      let turn = 0;
      const forms = [() => '1', () => new Date(Date.now() + 1000).toUTCString(), () => undefined];
      rateLimit(app, () => forms[turn++ % forms.length]!(), 150);
    },
  },
  {
    name: 'hb2-rate-limited-http-date',
    breaks: [],
    description:
      "Every 60th API request is answered 429 with Retry-After as an HTTP-date 2 s ahead (RFC 9110 §10.2.3 allows a date or seconds): 'Rate limits ...: not shown.' (Spec › Limits).",
    apply({ app }) {
      rateLimit(app, () => new Date(Date.now() + 2000).toUTCString(), 60);
    },
  },
  {
    name: 'hb2-rate-limited-no-retry-after',
    breaks: [],
    description: "Every 60th API request is answered 429 with an error body and no Retry-After (RFC 6585 §4: it MAY include one): 'Rate limits ...: not shown.' (Spec › Limits).",
    apply({ app }) {
      rateLimit(app, () => undefined, 60);
    },
  },
  {
    name: 'hb2-run-start-202',
    breaks: [],
    description: "Starting a run answers 202 Accepted (the run goes on after the answer): running syncs is among the operations 'not shown' (Spec › Endpoints: 'Other operations ... running connections and syncs ...: not shown').",
    apply({ app }) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode === 200 && isRunStart(request)) reply.code(202);
        return payload;
      });
    },
  },
  {
    name: 'hb2-run-synchronous',
    breaks: [],
    description:
      "Starting a run answers only once the run has ended (its deliveries all sent and answered), with the run's end state, or after 5 s with the state it is in: running syncs is among the operations 'not shown' (Spec › Endpoints), and no state or timing of a run is shown (Spec › States and transitions).",
    apply({ app, store }) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode !== 200 || !isRunStart(request) || typeof payload !== 'string') return payload;
        const answer = JSON.parse(payload) as { data: { id: string; status: string } };
        const sync = store.getModelSync((request.params as { id: string }).id);
        const run = sync && store.getExecution(sync, answer.data.id);
        for (let waited = 0; run && !END.includes(run.status) && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
        if (run) answer.data.status = run.status;
        return JSON.stringify(answer);
      });
    },
  },
  {
    name: 'hb2-run-read-omitempty',
    breaks: [],
    description:
      "A run's read leaves out every field at its zero value (null times, zero counts, an empty errors list), as Go's omitempty does: reading runs is among the operations 'not shown' (Spec › Endpoints).",
    apply({ app }) {
      const prune = (o: Record<string, unknown>) => {
        for (const [k, v] of Object.entries(o)) {
          if (v === null || v === 0 || (Array.isArray(v) && v.length === 0)) delete o[k];
          else if (isObject(v)) {
            prune(v);
            if (Object.keys(v).length === 0) delete o[k];
          }
        }
      };
      editSuccess(app, 'GET', ROUTES.run, (data) => {
        const requests = data.requests;
        delete data.requests;
        prune(data);
        if (Array.isArray(requests) && requests.length > 0) data.requests = requests;
      });
    },
  },
  {
    name: 'hb2-model-sync-answer-id-only',
    breaks: [],
    description: "Creating a model sync answers only data.id: model syncs are among the operations the spec does not show (Spec › What the service does 3; Endpoints: 'Other operations ...: not shown').",
    apply({ app }) {
      editSuccess(app, 'POST', ROUTES.modelSyncs, (data) => {
        for (const k of Object.keys(data)) if (k !== 'id') delete data[k];
      });
    },
  },
  {
    name: 'hb2-capture-log-forms',
    breaks: [],
    description:
      "The capture log lists a run's exchanges newest first and leaves the Authorization header out of each logged request (rather than masking it): 'each request and its response are logged in the sync history' (Spec › Events › Emission 6) sets no order and does not say a secret is kept.",
    apply({ config }) {
      const p = config.delivery;
      const original = p.capture;
      p.capture = (log, exchange) => {
        if (log === null) return;
        const headers = Object.fromEntries(Object.entries(exchange.request.headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
        const one: CaptureEntry[] = [];
        original(one, { ...exchange, request: { ...exchange.request, headers } });
        log.unshift(...one);
      };
    },
  },
  {
    name: 'hb2-capture-log-newest-first',
    breaks: [],
    description: "The capture log lists a run's exchanges newest first: 'each request and its response are logged in the sync history' (Spec › Events › Emission 6) sets no order.",
    apply({ config }) {
      const p = config.delivery;
      const original = p.capture;
      p.capture = (log, exchange) => {
        if (log === null) return;
        const one: CaptureEntry[] = [];
        original(one, exchange);
        log.unshift(...one);
      };
    },
  },
  {
    name: 'hb2-capture-log-no-authorization',
    breaks: [],
    description: "The capture log leaves the Authorization header out of the logged request (rather than masking it): 'each request and its response are logged' (Spec › Events › Emission 6) does not say a secret must be kept.",
    apply({ config }) {
      const p = config.delivery;
      const original = p.capture;
      p.capture = (log, exchange) => {
        const headers = Object.fromEntries(Object.entries(exchange.request.headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
        original(log, { ...exchange, request: { ...exchange.request, headers } });
      };
    },
  },
];
