import { copyBulkErrorHandling, DEFAULT_BULK_ERROR_HANDLING, type BulkSyncErrorHandling } from '../store.ts';
import { ApiError } from '../errors.ts';
import { isObject } from '../validation.ts';
import type { FastifyInstance } from 'fastify';
import { beforeRoute, editSuccess, ROUTES, wrapStore, type Fault } from './fault.ts';

// Faults of a bulk sync's error handling beyond the GET's shape: the GET's 404, and the PUT
// extension (EHB-003: its update rules and the GET reading its result; EHB-004: 400 and 404).

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a lenient decoder makes of a wrongly typed threshold: a numeric string is a number, else nothing. */
function coerceThreshold(value: unknown): number | undefined {
  if (typeof value === 'number') return Math.trunc(value);
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Math.trunc(Number(value));
  return undefined;
}

/** Characters an id minted by a service never holds: what a path-parameter check chokes on. */
export const URL_SPECIAL = /[\s%/?#]/;
/** A PUT's answer keeps only the fields its body carried ("all fields are optional in the response"). */
export function editSentOnly(app: FastifyInstance, url: string): void {
  editSuccess(app, 'PUT', url, (data, request) => {
    const sent = isObject(request.body) ? request.body : {};
    for (const field of Object.keys(data)) if (!(field in sent)) delete data[field];
  });
}

/**
 * A GET answers subscribers lists over 10 whole while its sync's settings sit in a one-slot cache
 * (filled by that sync's PUT), and only their first 10 once any other resource has been written
 * (a POST anywhere, a PUT to another path) and evicted it: the store kept 10.
 */
export function listLostAfterOtherWrites(app: FastifyInstance, getUrl: string, putPrefix: string): void {
  let cached: string | undefined;
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    if (request.method === 'PUT' && path.startsWith(putPrefix) && path.endsWith('/error-handling')) cached = path;
    else if (request.method === 'POST' || (request.method === 'PUT' && path !== cached)) cached = undefined;
  });
  editSuccess(app, 'GET', getUrl, (data, request) => {
    const path = request.url.split('?')[0]!;
    if (path !== cached && Array.isArray(data.subscribers)) data.subscribers = data.subscribers.slice(0, 10);
  });
}

export const bulkErrorHandlingFaults: Fault[] = [
  {
    name: 'bulk-error-handling-uuid-unknown-200',
    breaks: ['EHB-002'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers an unknown id shaped like a UUID 200 with the default settings (a lookup that returns a default row for any well-formed id); other unknown ids get 404.',
    apply: ({ app, store }) =>
      beforeRoute(app, 'GET', ROUTES.bulkErrorHandling, (request, reply) => {
        const { id } = request.params as { id: string };
        if (UUID.test(id) && !store.bulkSyncs.has(id)) return reply.send({ data: copyBulkErrorHandling(DEFAULT_BULK_ERROR_HANDLING) });
      }),
  },
  {
    name: 'bulk-error-handling-special-id-500',
    breaks: ['EHB-002'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers an id holding a space, %, /, ? or # (percent-encoded in the path) 500, as if the decoded id broke the lookup; other unknown ids get 404.',
    apply: ({ app }) =>
      beforeRoute(app, 'GET', ROUTES.bulkErrorHandling, (request) => {
        if (URL_SPECIAL.test((request.params as { id: string }).id)) throw new ApiError('internal_error', 'lookup failed');
      }),
  },
  {
    name: 'bulk-put-subscribers-capped-at-10',
    breaks: ['EHB-003'],
    description: 'PUT /api/bulk/syncs/{id}/error-handling (extension) keeps only the first 10 subscribers of a longer list, silently.',
    apply: ({ store }) =>
      wrapStore(store, 'updateBulkErrorHandling', (original) => (id, patch) => original(id, patch.subscribers ? { ...patch, subscribers: patch.subscribers.slice(0, 10) } : patch)),
  },
  {
    name: 'bulk-read-subscribers-first-10',
    breaks: ['EHB-003'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers only the first 10 subscribers (a page of the list); the PUT (extension) answers and stores the whole list.',
    apply: ({ app }) =>
      editSuccess(app, 'GET', ROUTES.bulkErrorHandling, (data) => {
        if (Array.isArray(data.subscribers)) data.subscribers = data.subscribers.slice(0, 10);
      }),
  },
  {
    name: 'bulk-read-subscribers-lost-later',
    breaks: ['EHB-003'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers a list of more than 10 subscribers whole on the first read after the PUT, and only its first 10 on every later read (a cache in front of a store that truncated it): only a read again later shows it.',
    apply: ({ app }) => {
      const reads = new Map<string, number>();
      app.addHook('onRequest', async (request) => {
        // A PUT resets the count of its own sync only: a write to another sync is other activity, which the cache ignores.
        const put = request.method === 'PUT' ? /^\/api\/bulk\/syncs\/([^/?]+)\/error-handling/.exec(request.url) : null;
        if (put) {
          try {
            reads.delete(decodeURIComponent(put[1]!));
          } catch {
            // A malformed escape names no sync (ERR-005's ids): nothing to reset.
          }
        }
      });
      editSuccess(app, 'GET', ROUTES.bulkErrorHandling, (data, request) => {
        const { id } = request.params as { id: string };
        const n = (reads.get(id) ?? 0) + 1;
        reads.set(id, n);
        if (n > 1 && Array.isArray(data.subscribers)) data.subscribers = data.subscribers.slice(0, 10);
      });
    },
  },
  {
    name: 'bulk-read-subscribers-lost-after-other-writes',
    breaks: ['EHB-003'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers a list of more than 10 subscribers whole until another resource is written (a creation, a PUT to another sync), and only its first 10 after that (a one-slot cache in front of a store that truncated it): only a read after other activity shows it.',
    apply: ({ app }) => listLostAfterOtherWrites(app, ROUTES.bulkErrorHandling, '/api/bulk/syncs/'),
  },
  {
    name: 'bulk-put-uuid-unknown-200',
    breaks: ['EHB-004'],
    description: 'PUT /api/bulk/syncs/{id}/error-handling (extension) answers an unknown id shaped like a UUID 200 (an upsert for well-formed ids), with the defaults and the update; other unknown ids get 404.',
    apply: ({ store }) =>
      wrapStore(store, 'updateBulkErrorHandling', (original) => (id, patch) => original(id, patch) ?? (UUID.test(id) ? { ...copyBulkErrorHandling(DEFAULT_BULK_ERROR_HANDLING), ...patch } : undefined)),
  },
  {
    name: 'bulk-error-handling-non-uuid-200',
    // ERR-005's unknown ids of 1,000 and 10,000 characters are not shaped like a UUID: answered 200 too.
    breaks: ['EHB-002', 'ERR-005'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers 404 only for unknown ids shaped like a UUID; any other unknown id gets 200 with data {}.',
    apply: ({ app, store }) =>
      beforeRoute(app, 'GET', ROUTES.bulkErrorHandling, (request, reply) => {
        const { id } = request.params as { id: string };
        if (!UUID.test(id) && !store.bulkSyncs.has(id)) return reply.send({ data: {} });
      }),
  },
  {
    name: 'bulk-put-ignores-threshold',
    breaks: ['EHB-003'],
    description: 'PUT /api/bulk/syncs/{id}/error-handling (extension) answers 200 but never changes ingestion_failure_threshold.',
    apply: ({ store }) =>
      wrapStore(store, 'updateBulkErrorHandling', (original) => (id, patch) => {
        const { ingestion_failure_threshold: _ignored, ...rest } = patch;
        return original(id, rest);
      }),
  },
  {
    name: 'bulk-put-resets-omitted-answering-sent',
    breaks: ['EHB-003'],
    description:
      'PUT /api/bulk/syncs/{id}/error-handling (extension) resets every omitted field to its default, and answers only the fields the body carried (so only GET /api/bulk/syncs/{id}/error-handling shows the reset).',
    apply: ({ app, store }) => {
      wrapStore(store, 'updateBulkErrorHandling', (original) => (id, patch) => original(id, { ...copyBulkErrorHandling(DEFAULT_BULK_ERROR_HANDLING), ...patch }));
      editSentOnly(app, ROUTES.bulkErrorHandling);
    },
  },
  {
    name: 'bulk-put-threshold-zero-dropped',
    breaks: ['EHB-003'],
    description: 'PUT /api/bulk/syncs/{id}/error-handling (extension) takes ingestion_failure_threshold 0 as "not sent" (a truthiness test), leaving the current threshold.',
    apply: ({ store }) =>
      wrapStore(store, 'updateBulkErrorHandling', (original) => (id, patch) => {
        if (patch.ingestion_failure_threshold !== 0) return original(id, patch);
        const { ingestion_failure_threshold: _dropped, ...rest } = patch;
        return original(id, rest);
      }),
  },
  {
    name: 'bulk-read-stale',
    breaks: ['EHB-003'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers the settings as they were before the last PUT (extension) to that sync (a cache refreshed one write late).',
    apply: ({ app, store }) => {
      const previous = new Map<string, BulkSyncErrorHandling>();
      wrapStore(store, 'updateBulkErrorHandling', (original) => (id, patch) => {
        const before = store.bulkErrorHandling(id);
        const after = original(id, patch);
        if (before && after) previous.set(id, before);
        return after;
      });
      beforeRoute(app, 'GET', ROUTES.bulkErrorHandling, (request, reply) => {
        const stale = previous.get((request.params as { id: string }).id);
        if (stale) return reply.send({ data: copyBulkErrorHandling(stale) });
      });
    },
  },
  {
    name: 'bulk-put-accepts-wrong-types',
    breaks: ['EHB-004'],
    description:
      'PUT /api/bulk/syncs/{id}/error-handling (extension) coerces wrongly typed fields ("60" to 60, a lone address to a list of one) or drops them, and answers 200 instead of 400.',
    apply: ({ app }) =>
      beforeRoute(app, 'PUT', ROUTES.bulkErrorHandling, (request) => {
        const body = request.body;
        if (!isObject(body)) return;
        const threshold = body.ingestion_failure_threshold;
        if (threshold !== undefined && threshold !== null) {
          const value = coerceThreshold(threshold);
          if (value === undefined || value < 0) delete body.ingestion_failure_threshold;
          else body.ingestion_failure_threshold = value;
        }
        const subscribers = body.subscribers;
        if (typeof subscribers === 'string') body.subscribers = [subscribers];
        else if (Array.isArray(subscribers)) body.subscribers = subscribers.filter((s) => typeof s === 'string');
        else if (subscribers !== undefined && subscribers !== null) delete body.subscribers;
      }),
  },
  {
    name: 'bulk-put-threshold-fraction',
    breaks: ['EHB-004'],
    description: 'PUT /api/bulk/syncs/{id}/error-handling (extension) takes a fractional ingestion_failure_threshold (1.5) and truncates it, instead of answering 400 (a number check where an integer is owed).',
    apply: ({ app }) =>
      beforeRoute(app, 'PUT', ROUTES.bulkErrorHandling, (request) => {
        const body = request.body;
        if (isObject(body) && typeof body.ingestion_failure_threshold === 'number' && !Number.isInteger(body.ingestion_failure_threshold)) {
          body.ingestion_failure_threshold = Math.trunc(body.ingestion_failure_threshold);
        }
      }),
  },
  {
    name: 'bulk-put-unknown-id-200',
    breaks: ['EHB-004'],
    description: 'PUT /api/bulk/syncs/{id}/error-handling (extension) answers an unknown id 200 (defaults with the update applied) instead of 404.',
    apply: ({ store }) =>
      wrapStore(store, 'updateBulkErrorHandling', (original) => (id, patch) => original(id, patch) ?? { ...copyBulkErrorHandling(DEFAULT_BULK_ERROR_HANDLING), ...patch }),
  },
];
