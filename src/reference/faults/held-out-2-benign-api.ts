import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isObject } from '../validation.ts';
import { editErrorBody, editSuccess, isRoute, ROUTES, wrapStore, type Fault } from './fault.ts';

// Held-out benign items, round 2 (API side): answers that the spec leaves open, shaped as other
// vendors (or the real service) would shape them. Each description cites the spec's words that
// allow it. Written blind (hunt protocol Phase A): none is shaped by what the suite checks.

type Body = Record<string, unknown>;

const ERROR_HANDLING_ROUTES: ReadonlyArray<[string, string]> = [
  ['GET', ROUTES.bulkErrorHandling],
  ['PUT', ROUTES.bulkErrorHandling],
  ['GET', ROUTES.syncErrorHandling],
  ['PUT', ROUTES.syncErrorHandling],
];

const onErrorHandlingRoute = (request: FastifyRequest) => ERROR_HANDLING_ROUTES.some(([m, u]) => isRoute(request, m, u));

/** Replaces the whole success payload of the routes `match` picks (status < 400). */
function replaceSuccess(app: FastifyInstance, match: (request: FastifyRequest) => boolean, replace: (payload: Body, request: FastifyRequest, reply: FastifyReply) => unknown): void {
  app.addHook('preSerialization', async (request, reply, payload: unknown) => {
    if (reply.statusCode >= 400 || !match(request) || !isObject(payload)) return payload;
    return replace(payload, request, reply);
  });
}

/** Rewrites every JSON answer's text (success and error), after the reference serialized it. */
function rewriteJsonText(app: FastifyInstance, rewrite: (value: unknown) => string): void {
  app.addHook('onSend', async (_request, reply, payload: unknown) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (typeof payload !== 'string' || !type.startsWith('application/json') || payload === '') return payload;
    return rewrite(JSON.parse(payload));
  });
}

/** A JSON writer with its own choices of number form, escapes and key order (all the same JSON value). */
function writeJson(value: unknown, opts: { number?: (n: number) => string; string?: (s: string) => string; keys?: (k: string[]) => string[] }): string {
  const num = opts.number ?? ((n: number) => JSON.stringify(n));
  const str = opts.string ?? ((s: string) => JSON.stringify(s));
  const order = opts.keys ?? ((k: string[]) => k);
  const walk = (v: unknown): string => {
    if (v === null) return 'null';
    if (typeof v === 'number') return num(v);
    if (typeof v === 'string') return str(v);
    if (typeof v === 'boolean') return String(v);
    if (Array.isArray(v)) return `[${v.map(walk).join(',')}]`;
    const o = v as Body;
    return `{${order(Object.keys(o).filter((k) => o[k] !== undefined)).map((k) => `${str(k)}:${walk(o[k])}`).join(',')}}`;
  };
  return walk(value);
}

/** A JSON answer's text parsed, or undefined when it is none (an empty body). */
function parsed(text: string): { data?: { id?: unknown } } | undefined {
  try {
    return JSON.parse(text) as { data?: { id?: unknown } };
  } catch {
    return undefined;
  }
}

/** An integer with a fraction, or (a multiple of ten) with an exponent: 7 as 7.0, 400 as 40.0e1. */
const numberForm = (n: number) => (Number.isInteger(n) ? (Math.abs(n) >= 10 && n % 10 === 0 ? `${n / 10}.0e1` : `${n}.0`) : JSON.stringify(n));

/** Every character outside printable ASCII as \uXXXX, and '/' as '\/' (both allowed by RFC 8259 §7). */
function escapeAll(s: string): string {
  let out = '"';
  for (const ch of s) {
    for (let i = 0; i < ch.length; i++) {
      const code = ch.charCodeAt(i);
      if (ch === '"' || ch === '\\') out += `\\${ch}`;
      else if (ch === '/') out += '\\/';
      else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else out += ch[i];
    }
  }
  return `${out}"`;
}

/** Store maps keyed by id: the id of what `add` made is replaced by `next()` (a different but allowed id shape). */
function reshapeIds(store: Parameters<typeof wrapStore>[0], next: (prefix: string) => string): void {
  const rekey = <T extends { id: string }>(map: Map<string, T>, item: T, prefix: string): T => {
    map.delete(item.id);
    item.id = next(prefix);
    map.set(item.id, item);
    return item;
  };
  wrapStore(store, 'addConnection', (original) => (input) => rekey(store.connections, original(input), 'conn'));
  wrapStore(store, 'addBulkSync', (original) => (input) => rekey(store.bulkSyncs, original(input), 'bsync'));
  wrapStore(store, 'addModelSync', (original) => (input) => rekey(store.modelSyncs, original(input), 'sync'));
  wrapStore(store, 'addModel', (original) => (input) => rekey(store.models, original(input), 'model'));
  wrapStore(store, 'addExecution', (original) => (sync, requests, options) => {
    const run = original(sync, requests, options);
    run.id = next('exec');
    return run;
  });
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (n: number) => Array.from(randomBytes(n), (b) => BASE62[b % 62]).join('');

const DATED_VERSION = /^(\d{4})-(\d{2})-(\d{2})$/;

export const heldOut2ApiVariants: readonly Fault[] = [
  {
    name: 'hb2-error-handling-omitempty',
    breaks: [],
    description:
      "Error-handling answers leave out every field at its zero value (false, empty list, null), as Go's omitempty does: 'All fields are optional in the response.' (Spec › SyncErrorHandling, BulkSyncErrorHandling).",
    apply({ app }) {
      replaceSuccess(app, onErrorHandlingRoute, (payload) => {
        const data = payload.data;
        if (!isObject(data)) return payload;
        for (const [k, v] of Object.entries(data)) if (v === false || v === null || (Array.isArray(v) && v.length === 0)) delete data[k];
        return payload;
      });
    },
  },
  {
    name: 'hb2-subscribers-null-when-empty',
    breaks: [],
    description: "An empty subscribers list is answered as null (a nil slice): 'subscribers | list of string, nullable' (Spec › SyncErrorHandling, BulkSyncErrorHandling).",
    apply({ app }) {
      replaceSuccess(app, onErrorHandlingRoute, (payload) => {
        const data = payload.data;
        if (isObject(data) && Array.isArray(data.subscribers) && data.subscribers.length === 0) data.subscribers = null;
        return payload;
      });
    },
  },
  {
    name: 'hb2-error-handling-data-omitted',
    breaks: [],
    description:
      "GET /api/bulk/syncs/{id}/error-handling and PUT /api/syncs/{id}/error-handling answer 200 with {} (no data): 'Response 200 | { data: BulkSyncErrorHandling } (data is optional)' and the same for SyncErrorHandling.",
    apply({ app }) {
      replaceSuccess(app, (r) => isRoute(r, 'GET', ROUTES.bulkErrorHandling) || isRoute(r, 'PUT', ROUTES.syncErrorHandling), () => ({}));
    },
  },
  {
    name: 'hb2-put-answer-sent-fields-only',
    breaks: [],
    description:
      "A PUT of error handling answers only the fields the body sent, with their new values (a PATCH-style echo): 'All fields are optional in the response.' (Spec › SyncErrorHandling, BulkSyncErrorHandling).",
    apply({ app }) {
      replaceSuccess(app, (r) => isRoute(r, 'PUT', ROUTES.syncErrorHandling) || isRoute(r, 'PUT', ROUTES.bulkErrorHandling), (payload, request) => {
        const data = payload.data;
        const sent = isObject(request.body) ? request.body : {};
        if (isObject(data)) for (const k of Object.keys(data)) if (!Object.hasOwn(sent, k)) delete data[k];
        return payload;
      });
    },
  },
  {
    name: 'hb2-put-null-resets-default',
    breaks: [],
    description:
      "A field sent as null in a PUT of error handling is reset to its default (false, no subscribers, no threshold), as JSON merge patch reads null: the body fields are 'optional, nullable' and only an omitted field 'stays unchanged' (Spec › PUT /api/syncs/{id}/error-handling, Rules 1).",
    apply({ app, store }) {
      replaceSuccess(app, (r) => isRoute(r, 'PUT', ROUTES.syncErrorHandling), (payload, request) => {
        const sent = isObject(request.body) ? request.body : {};
        const sync = store.getModelSync((request.params as { id: string }).id);
        if (!sync) return payload;
        const e = sync.errorHandling;
        for (const k of ['auto_retry_record_errors', 'notify_on_record_errors', 'warning_notifications'] as const) if (sent[k] === null) e[k] = false;
        if (sent.subscribers === null) e.subscribers = [];
        return { data: { ...e, subscribers: [...e.subscribers] } };
      });
      replaceSuccess(app, (r) => isRoute(r, 'PUT', ROUTES.bulkErrorHandling), (payload, request) => {
        const sent = isObject(request.body) ? request.body : {};
        const sync = store.bulkSyncs.get((request.params as { id: string }).id);
        if (!sync) return payload;
        if (sent.ingestion_failure_threshold === null) sync.errorHandling.ingestion_failure_threshold = null;
        if (sent.subscribers === null) sync.errorHandling.subscribers = [];
        return { data: { ...sync.errorHandling, subscribers: [...sync.errorHandling.subscribers] } };
      });
    },
  },
  {
    name: 'hb2-json-number-forms',
    breaks: [],
    description: "Integers are written with a fraction or an exponent (400.0, 6.0e1): the same JSON number (RFC 8259 §6); 'Bodies are JSON' (Spec › Conventions) and status is an 'integer' by value.",
    apply({ app }) {
      rewriteJsonText(app, (v) => writeJson(v, { number: numberForm }));
    },
  },
  {
    name: 'hb2-json-escaped-strings',
    breaks: [],
    description: "Every non-ASCII character is written as a \\u escape and '/' as '\\/', as some encoders do: the same JSON strings (RFC 8259 §7); 'Bodies are JSON' (Spec › Conventions).",
    apply({ app }) {
      rewriteJsonText(app, (v) => writeJson(v, { string: escapeAll }));
    },
  },
  {
    name: 'hb2-json-keys-reversed',
    breaks: [],
    description: "Object members are written in reverse order: JSON objects are unordered (RFC 8259 §4) and the spec shows no field order (Spec › Resources, Errors).",
    apply({ app }) {
      rewriteJsonText(app, (v) => writeJson(v, { keys: (k) => [...k].reverse() }));
    },
  },
  {
    name: 'hb2-extra-answer-fields',
    breaks: [],
    description:
      "Answers carry fields the spec does not list, as the real service's do (organization_id, created_at, updated_at, policies; request_id beside data; request_id and docs_url in error bodies): the spec shows some bodies only in part ('not shown beyond', 'All fields are optional') and forbids no extra field.",
    apply({ app }) {
      app.addHook('preSerialization', async (_request, reply, payload: unknown) => {
        if (reply.statusCode >= 400 || !isObject(payload)) return payload;
        const stamp = new Date().toISOString();
        const extra = { organization_id: 'org_7f3a', created_at: stamp, updated_at: stamp, policies: [] };
        const data = payload.data;
        if (isObject(data)) Object.assign(data, extra);
        else if (Array.isArray(data)) for (const item of data) if (isObject(item)) Object.assign(item, extra);
        return { ...payload, request_id: `req_${base62(12)}` };
      });
      editErrorBody(app, (body) => {
        body.request_id = `req_${base62(12)}`;
        body.docs_url = 'https://docs.example.com/errors';
      });
    },
  },
  {
    name: 'hb2-error-body-message-only',
    breaks: [],
    description:
      "Error bodies carry only message, except the 'No schemas found' answer, which keeps status 400 and metadata null: every error body field is 'Required: no' (Spec › Errors › Error body); Specific cases 1 names what that one answer holds.",
    apply({ app }) {
      editErrorBody(app, (body) => {
        if (typeof body.message === 'string' && body.message.startsWith('No schemas found')) return;
        for (const k of Object.keys(body)) if (k !== 'message') delete body[k];
      });
    },
  },
  {
    name: 'hb2-json-answer-forms',
    breaks: [],
    description:
      "Every JSON answer is written in other forms of the same JSON value, labelled 'application/json' without a charset: integers with a fraction or an exponent (400.0, 6.0e1), every non-ASCII character as a \\u escape and '/' as '\\/', object members in reverse order (RFC 8259 §4, §6, §7, §8.1): 'Bodies are JSON' (Spec › Conventions).",
    apply({ app }) {
      rewriteJsonText(app, (v) => writeJson(v, { number: numberForm, string: escapeAll, keys: (k) => [...k].reverse() }));
      app.addHook('onSend', async (_request, reply, payload) => {
        if (String(reply.getHeader('content-type') ?? '').startsWith('application/json')) reply.header('content-type', 'application/json');
        return payload;
      });
    },
  },
  {
    name: 'hb2-content-type-spring',
    breaks: [],
    description: "JSON answers are labelled 'application/json;charset=UTF-8' (no space, upper-case charset, as Spring writes it): parameter names and charset values are case-insensitive (RFC 9110 §8.3.1); 'Bodies are JSON'.",
    apply({ app }) {
      app.addHook('onSend', async (_request, reply, payload) => {
        if (String(reply.getHeader('content-type') ?? '').startsWith('application/json')) reply.header('content-type', 'application/json;charset=UTF-8');
        return payload;
      });
    },
  },
  {
    name: 'hb2-content-type-bare',
    breaks: [],
    description: "JSON answers are labelled 'application/json' with no charset parameter (JSON is UTF-8 by definition, RFC 8259 §8.1): 'Bodies are JSON' (Spec › Conventions).",
    apply({ app }) {
      app.addHook('onSend', async (_request, reply, payload) => {
        if (String(reply.getHeader('content-type') ?? '').startsWith('application/json')) reply.header('content-type', 'application/json');
        return payload;
      });
    },
  },
  {
    name: 'hb2-extra-response-headers',
    breaks: [],
    description:
      'Answers carry headers the spec does not name (X-Request-Id, Cache-Control: no-store, Vary, X-RateLimit-Limit/Remaining, Strict-Transport-Security, Location on a created resource, and Connection: close, the server closing every connection after its answer): the spec lists request headers only and forbids no answer header; HTTP/1.1 allows either persistence (RFC 9112 §9.6).',
    apply({ app }) {
      app.addHook('onSend', async (request, reply, payload) => {
        reply.header('Connection', 'close');
        reply.header('X-Request-Id', `req_${base62(16)}`);
        reply.header('Cache-Control', 'no-store');
        reply.header('Vary', 'Accept-Encoding, X-Service-Version');
        reply.header('X-RateLimit-Limit', '600');
        reply.header('X-RateLimit-Remaining', '599');
        reply.header('Strict-Transport-Security', 'max-age=63072000');
        if (request.method === 'POST' && reply.statusCode < 300 && typeof payload === 'string' && !reply.hasHeader('location')) {
          const id = parsed(payload)?.data?.id;
          const path = request.routeOptions.url ?? '';
          if (typeof id === 'string' && !path.includes(':')) reply.header('Location', `${path}/${encodeURIComponent(id)}`);
        }
        return payload;
      });
    },
  },
  {
    name: 'hb2-creations-201',
    breaks: [],
    description:
      "POST /api/connections and POST /api/bulk/syncs answer 201 Created (body unchanged): the bulk sync's 'Success is a 2xx status', and connection creation's status is not shown (Spec › Endpoints).",
    apply({ app }) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode === 200 && (isRoute(request, 'POST', ROUTES.connections) || isRoute(request, 'POST', ROUTES.bulkSyncs))) reply.code(201);
        return payload;
      });
    },
  },
  {
    name: 'hb2-bulk-sync-202-empty-body',
    breaks: [],
    description:
      "POST /api/bulk/syncs succeeds with 202 Accepted, an empty body and a Location header naming the new sync: 'Response | Body not shown. Success is a 2xx status.' (Spec › POST /api/bulk/syncs).",
    apply({ app }) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode !== 200 || !isRoute(request, 'POST', ROUTES.bulkSyncs) || typeof payload !== 'string') return payload;
        const id = (JSON.parse(payload) as { data?: { id?: unknown } }).data?.id;
        reply.code(202);
        reply.removeHeader('content-type');
        if (typeof id === 'string') reply.header('Location', `/api/bulk/syncs/${encodeURIComponent(id)}`);
        return '';
      });
    },
  },
  {
    name: 'hb2-connection-answer-flat',
    breaks: [],
    description:
      "POST /api/connections answers the connection as a plain object, without the data envelope ({id, name, type, configuration, auth_url}): 'For OAuth-authorized kinds, an object with auth_url.' (Spec › POST /api/connections); the envelope is not shown.",
    apply({ app }) {
      replaceSuccess(app, (r) => isRoute(r, 'POST', ROUTES.connections), (payload) => (isObject(payload.data) ? payload.data : payload));
    },
  },
  {
    name: 'hb2-connection-answer-minimal',
    breaks: [],
    description:
      "POST /api/connections answers only data.id (and auth_url for an OAuth kind; a webhook keeps its generated configuration): 'Full response body of connection creation: not shown beyond auth_url.' (Spec › Connection response).",
    apply({ app }) {
      editSuccess(app, 'POST', ROUTES.connections, (data) => {
        const type = isObject(data.type) ? data.type.id : data.type;
        const keep = type === 'webhook' ? ['id', 'configuration'] : ['id', 'auth_url'];
        for (const k of Object.keys(data)) if (!keep.includes(k)) delete data[k];
      });
    },
  },
  {
    name: 'hb2-ids-numeric',
    breaks: [],
    description: "Ids are decimal strings from one counter (\"100001\", \"100002\", ...), as a database sequence gives: 'id (string, required)' and '<connection_id> stand for values of the stated type' (Spec › Conventions, Path parameter).",
    apply({ store }) {
      let counter = 100_000;
      reshapeIds(store, () => String(++counter));
    },
  },
  {
    name: 'hb2-ids-numeric-and-long',
    breaks: [],
    description:
      "Ids differ in shape by resource, as separate tables issue them: connections and models get decimal strings from a sequence (\"100001\"), syncs, bulk syncs and runs 160-character opaque tokens: 'id (string, required)' (Spec › Path parameter) sets no shape or length.",
    apply({ store }) {
      let counter = 100_000;
      reshapeIds(store, (prefix) => (prefix === 'conn' || prefix === 'model' ? String(++counter) : `${prefix}_${base62(160 - prefix.length - 1)}`));
    },
  },
  {
    name: 'hb2-ids-prefixed',
    breaks: [],
    description: "Ids are typed, mixed-case base62 strings (conn_4fGh..., bsync_..., sync_..., exec_...), case-sensitive: 'id (string, required)' (Spec › Path parameter).",
    apply({ store }) {
      reshapeIds(store, (prefix) => `${prefix}_${base62(22)}`);
    },
  },
  {
    name: 'hb2-ids-long',
    breaks: [],
    description: "Ids are 160-character opaque tokens (an encrypted reference, as some services issue): 'id (string, required)' (Spec › Path parameter) sets no length.",
    apply({ store }) {
      reshapeIds(store, (prefix) => `${prefix}_${base62(160 - prefix.length - 1)}`);
    },
  },
  {
    name: 'hb2-omitted-version-oldest',
    breaks: [],
    description:
      "A request without X-Service-Version is served as 2021-05-23, the oldest version (the real service's documented behaviour before 2025): 'What the service does when the header is omitted: not shown.' (Spec › Versioning 4).",
    apply({ config }) {
      config.defaultVersion = '2021-05-23';
    },
  },
  {
    name: 'hb2-unknown-version-nearest-earlier',
    breaks: [],
    description:
      "An X-Service-Version date between known versions is served as the newest known version not after it (Stripe-style pinning); other values are refused: the spec lists the known versions and does not say an unknown date is refused (Spec › Versioning 1-2).",
    apply({ config }) {
      const original = config.resolveVersion;
      config.resolveVersion = (header) => {
        const known = original(header);
        const m = header === undefined ? null : DATED_VERSION.exec(header);
        if (known !== undefined || !m || Number.isNaN(Date.parse(`${header}T00:00:00Z`))) return known;
        return [...config.versions.keys()].filter((v) => v <= header!).sort().at(-1);
      };
    },
  },
  {
    name: 'hb2-no-version-echo',
    breaks: [],
    description: "Answers do not echo X-Service-Version: the spec makes it a request header only ('The API version is chosen with the request header X-Service-Version', Spec › Versioning 1).",
    apply({ app }) {
      app.addHook('onSend', async (_request, reply, payload) => {
        reply.removeHeader('x-service-version');
        return payload;
      });
    },
  },
  {
    name: 'hb2-auth-401-where-403-unlisted',
    breaks: [],
    description:
      "POST /api/connections and POST /api/bulk/syncs refuse a missing or wrong credential with 401 and WWW-Authenticate: 403 is owed only 'on the endpoints that list that status' (Spec › Authentication 3), and those two list no 403 (Errors › Status codes per endpoint: 'not listed').",
    apply({ app }) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode !== 403 || !(isRoute(request, 'POST', ROUTES.connections) || isRoute(request, 'POST', ROUTES.bulkSyncs))) return payload;
        reply.code(401);
        reply.header('WWW-Authenticate', 'Bearer realm="api"');
        if (typeof payload !== 'string') return payload;
        return JSON.stringify({ key: 'unauthorized', message: 'a valid Authorization header is required', metadata: null, status: 401 });
      });
    },
  },
  {
    name: 'hb2-auth-url-opaque',
    breaks: [],
    description:
      "auth_url is an opaque one-time link (https://auth.../a/<token>) that carries neither the connection id nor redirect_url, which the service keeps on its side: 'auth_url (string, URL)'; redirect_url 'Changes where the browser goes after OAuth authorization' (Spec › Connection).",
    apply({ app }) {
      editSuccess(app, 'POST', ROUTES.connections, (data) => {
        if (typeof data.auth_url === 'string') data.auth_url = `https://auth.reference.invalid/a/${base62(32)}`;
      });
    },
  },
  {
    name: 'hb2-schemas-cache-slow',
    breaks: [],
    description:
      "A new connection's schemas take 2.5 s to cache, so bulk syncs on it are refused with 'No schemas found' for that long: 'the service caches the source's schemas for a short time' and 'The caller repeats the request until it gets a 2xx status' (Spec › What the service does 7, Errors › Specific cases 1).",
    apply({ config }) {
      config.schemaCacheDelayMs = 2500;
    },
  },
  {
    name: 'hb2-schemas-cached-at-once',
    breaks: [],
    description:
      "A new connection's schemas are cached before its creation is answered, so no bulk sync is ever refused with 'No schemas found': Rules 1 applies only 'When the source connection's schemas are not cached yet' (Spec › POST /api/bulk/syncs).",
    apply({ config }) {
      config.schemaCacheDelayMs = 0;
    },
  },
  {
    name: 'hb2-slow-first-answers',
    breaks: [],
    description: "The first answer of each route takes 1.5 s more (a cold start), well within any client timeout: the spec sets no answer time (Spec › Limits: 'Rate limits, request size limits ...: not shown').",
    apply({ app }) {
      const warm = new Set<string>();
      app.addHook('onSend', async (request, _reply, payload) => {
        const route = `${request.method} ${request.routeOptions.url ?? '*'}`;
        if (!warm.has(route)) {
          warm.add(route);
          await new Promise((resolve) => setTimeout(resolve, 1500));
        }
        return payload;
      });
    },
  },
];
