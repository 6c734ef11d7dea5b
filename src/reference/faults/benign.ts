import { randomBytes } from 'node:crypto';
import { fieldError } from '../errors.ts';
import type { Store } from '../store.ts';
import { editHeaders } from './deliveries.ts';
import { ROUTES, isRoute, wrapStore, type Fault } from './fault.ts';
import { isObject } from '../validation.ts';

// Benign variants: the reference made conforming-but-unusual in one way each, through the same
// seams as faults. The suite must pass under every one of them with zero failures (the benign
// matrix in test/suite/benign-matrix.test.ts): a check that fails here is stricter than the spec.

const CREATION = [ROUTES.connections, ROUTES.bulkSyncs, ROUTES.modelSyncs, ROUTES.models];

/** Gives a created resource an id that is not a UUID (ids are opaque strings: Spec › Resources). */
function opaqueIds(store: Store, method: 'addConnection' | 'addBulkSync' | 'addModelSync' | 'addModel', map: Map<string, { id: string }>): void {
  wrapStore(store, method, (original) => ((input: never) => {
    const created = (original as (i: never) => { id: string })(input);
    map.delete(created.id);
    created.id = `res_${randomBytes(9).toString('base64url')}`;
    map.set(created.id, created);
    return created;
  }) as never);
}

export const benignVariants: readonly Fault[] = [
  {
    name: 'created-201',
    breaks: [],
    description: 'Creations (connections, bulk syncs, model syncs, models) answer 201 Created instead of 200.',
    apply: ({ app }) => app.addHook('preSerialization', async (request, reply, payload) => {
      if (reply.statusCode === 200 && CREATION.some((url) => isRoute(request, 'POST', url))) reply.code(201);
      return payload;
    }),
  },
  {
    name: 'extra-fields',
    breaks: [],
    description: 'Every JSON answer, errors included, carries fields the spec does not name, at the top and inside data.',
    apply: ({ app }) => app.addHook('preSerialization', async (_request, _reply, payload: unknown) => {
      if (!isObject(payload)) return payload;
      const out: Record<string, unknown> = { ...payload, request_id: randomBytes(6).toString('hex'), vendor: { region: 'eu-1' } };
      if (isObject(payload.data)) out.data = { ...payload.data, created_by: 'vendor', links: { self: '/x' } };
      return out;
    }),
  },
  {
    name: 'pretty-json-charset',
    breaks: [],
    description: 'Answers are pretty-printed JSON labelled application/json;charset=UTF-8.',
    apply: ({ app }) => app.addHook('onSend', async (_request, reply, payload: unknown) => {
      if (typeof payload !== 'string') return payload;
      try {
        const pretty = JSON.stringify(JSON.parse(payload), null, 2) + '\n';
        reply.header('content-type', 'application/json;charset=UTF-8');
        return pretty;
      } catch {
        return payload;
      }
    }),
  },
  {
    name: 'opaque-ids',
    breaks: [],
    description: 'Resource ids are opaque strings (res_…), not UUIDs.',
    apply: ({ store }) => {
      opaqueIds(store, 'addConnection', store.connections as Map<string, { id: string }>);
      opaqueIds(store, 'addBulkSync', store.bulkSyncs as Map<string, { id: string }>);
      opaqueIds(store, 'addModelSync', store.modelSyncs as Map<string, { id: string }>);
      opaqueIds(store, 'addModel', store.models as Map<string, { id: string }>);
    },
  },
  {
    name: 'reordered-subscribers',
    breaks: [],
    description: 'Subscriber lists are answered in reverse order (the spec gives no order).',
    apply: ({ app }) => app.addHook('preSerialization', async (request, _reply, payload: unknown) => {
      const onErrorHandling = request.routeOptions.url === ROUTES.syncErrorHandling || request.routeOptions.url === ROUTES.bulkErrorHandling;
      if (onErrorHandling && isObject(payload) && isObject(payload.data) && Array.isArray(payload.data.subscribers)) {
        return { ...payload, data: { ...payload.data, subscribers: [...(payload.data.subscribers as unknown[])].reverse() } };
      }
      return payload;
    }),
  },
  {
    name: 'subscribers-normalised',
    breaks: [],
    description: 'Subscriber addresses are answered in lower case and each once (the spec makes no rule of case or duplicates).',
    apply: ({ app }) => app.addHook('preSerialization', async (request, _reply, payload: unknown) => {
      const onErrorHandling = request.routeOptions.url === ROUTES.syncErrorHandling || request.routeOptions.url === ROUTES.bulkErrorHandling;
      if (onErrorHandling && isObject(payload) && isObject(payload.data) && Array.isArray(payload.data.subscribers)) {
        const list = [...new Set((payload.data.subscribers as unknown[]).map((s) => String(s).toLowerCase()))];
        return { ...payload, data: { ...payload.data, subscribers: list } };
      }
      return payload;
    }),
  },
  {
    name: 'delivery-no-content-encoding',
    breaks: [],
    description: 'Gzip delivery bodies without a Content-Encoding header (the spec\'s header table does not list it).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => delete headers['Content-Encoding']),
  },
  {
    name: 'delivery-lowercase-bearer',
    breaks: [],
    description: 'Deliveries carry "Authorization: bearer <secret>" (auth schemes are case-insensitive, RFC 9110 §11.1).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers.Authorization = headers.Authorization!.replace(/^Bearer /, 'bearer '))),
  },
  {
    name: 'delivery-utc-offset',
    breaks: [],
    description: 'Service-Signature-Timestamp written with +00:00 instead of Z (both are UTC, RFC 3339 §4.2).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['Service-Signature-Timestamp'] = headers['Service-Signature-Timestamp']!.replace(/Z$/, '+00:00'))),
  },
  {
    name: 'delivery-user-agent-space',
    breaks: [],
    description: 'User-Agent written as "DSS-Reference 1.0.0" (a product name then a release label, space-separated).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['User-Agent'] = headers['User-Agent']!.replace('/', ' '))),
  },
  {
    name: 'sync-name-limit-255',
    breaks: [],
    description: 'POST /api/syncs answers a name longer than 255 characters 400 validation_error (the spec sets no limit on a name, and none against one).',
    apply: ({ app }) =>
      app.addHook('preValidation', async (request) => {
        const name = isObject(request.body) ? request.body.name : undefined;
        if (isRoute(request, 'POST', ROUTES.modelSyncs) && typeof name === 'string' && name.length > 255) throw fieldError('/name', 'is longer than 255 characters');
      }),
  },
  {
    name: 'delivery-user-agent-name-case',
    breaks: [],
    description: 'User-Agent written as "dss-reference/1.0.0": the declared product name (DSS-Reference) in another case.',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['User-Agent'] = headers['User-Agent']!.toLowerCase())),
  },
  {
    name: 'delivery-user-agent-comment',
    breaks: [],
    description: 'User-Agent written as "DSS-Reference/rel2021.05.25 (+https://example.com/dss-reference)": a release label that is no version number, then a comment (RFC 9110 §10.1.5).',
    apply: ({ config }) => editHeaders(config.delivery, (headers) => (headers['User-Agent'] = 'DSS-Reference/rel2021.05.25 (+https://example.com/dss-reference)')),
  },
];
