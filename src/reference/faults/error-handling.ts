import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, fieldError } from '../errors.ts';
import { copyBulkErrorHandling, copySyncErrorHandling, DEFAULT_BULK_ERROR_HANDLING, DEFAULT_SYNC_ERROR_HANDLING, type SyncErrorHandling } from '../store.ts';
import { isObject } from '../validation.ts';
import { bulkErrorHandlingFaults, editSentOnly, listLostAfterOtherWrites, URL_SPECIAL, UUID } from './error-handling-bulk.ts';
import { beforeRoute, editSuccess, ROUTES, wrapStore, type Fault } from './fault.ts';

const BOOLEAN_FIELDS = ['auto_retry_record_errors', 'notify_on_record_errors', 'warning_notifications'] as const;

/** What a lenient decoder makes of a wrongly typed boolean: a few spellings, else nothing. */
function coerceBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 1) return true;
  if (value === 'false' || value === 0) return false;
  return undefined;
}

const hasAddresses = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0;

/**
 * Whether a PUT to a model sync's error handling carries the same body as the previous PUT to that
 * sync: the trigger of the faults that treat a repeated request differently.
 */
function repeatedBodies(app: FastifyInstance): (request: FastifyRequest) => boolean {
  const last = new Map<string, string>();
  const seen = new WeakMap<object, boolean>();
  beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
    const { id } = request.params as { id: string };
    const key = JSON.stringify(request.body);
    seen.set(request, last.get(id) === key);
    last.set(id, key);
  });
  return (request) => seen.get(request) === true;
}

export const errorHandlingFaults: Fault[] = [
  {
    name: 'threshold-as-string',
    breaks: ['EHB-001'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers ingestion_failure_threshold as a string ("0" for none).',
    apply: ({ app }) =>
      editSuccess(app, 'GET', ROUTES.bulkErrorHandling, (data) => {
        data.ingestion_failure_threshold = String(data.ingestion_failure_threshold ?? 0);
      }),
  },
  {
    name: 'bulk-subscribers-joined',
    breaks: ['EHB-001'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers subscribers as one comma-separated string instead of a list.',
    apply: ({ app }) =>
      editSuccess(app, 'GET', ROUTES.bulkErrorHandling, (data) => {
        data.subscribers = Array.isArray(data.subscribers) ? data.subscribers.join(',') : '';
      }),
  },
  {
    name: 'bulk-error-handling-unknown-200',
    // ERR-005 sends unknown ids of 1,000 and 10,000 characters to this GET: answered 200 too.
    breaks: ['EHB-002', 'ERR-005'],
    description: 'GET /api/bulk/syncs/{id}/error-handling answers an unknown id 200 with the default settings instead of 404.',
    apply: ({ store }) =>
      wrapStore(store, 'bulkErrorHandling', (original) => (id) => original(id) ?? copyBulkErrorHandling(DEFAULT_BULK_ERROR_HANDLING)),
  },
  {
    name: 'put-resets-omitted',
    // EHS-004 and EHS-008 too: {} and an all-null body then reset everything instead of changing nothing.
    breaks: ['EHS-001', 'EHS-004', 'EHS-008'],
    description: 'PUT /api/syncs/{id}/error-handling resets every omitted field to its default instead of leaving it unchanged.',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => original(id, { ...copySyncErrorHandling(DEFAULT_SYNC_ERROR_HANDLING), ...patch })),
  },
  {
    name: 'put-resets-omitted-under-2022-12-12',
    breaks: ['EHS-001', 'EHS-004', 'EHS-008'],
    description: 'Under X-Service-Version 2022-12-12 only, PUT /api/syncs/{id}/error-handling resets every omitted field to its default.',
    apiVersion: '2022-12-12',
    apply: ({ app, store }) => {
      let version = '';
      app.addHook('preHandler', async (request) => {
        version = request.serviceVersion;
      });
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => original(id, version === '2022-12-12' ? { ...copySyncErrorHandling(DEFAULT_SYNC_ERROR_HANDLING), ...patch } : patch));
    },
  },
  {
    name: 'put-resets-omitted-answering-sent',
    // Seen only through the read: the answer reports what was sent, which the reset leaves right.
    breaks: ['EHS-001', 'EHS-004', 'EHS-008'],
    description:
      'PUT /api/syncs/{id}/error-handling resets every omitted field to its default, and answers only the fields the body carried (so the answer never shows the reset; GET /api/syncs/{id}/error-handling does).',
    apply: ({ app, store }) => {
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => original(id, { ...copySyncErrorHandling(DEFAULT_SYNC_ERROR_HANDLING), ...patch }));
      editSentOnly(app, ROUTES.syncErrorHandling);
    },
  },
  {
    name: 'read-subscribers-lost-after-other-writes',
    breaks: ['EHS-011'],
    description: "GET /api/syncs/{id}/error-handling (the profile's read) answers a list of more than 10 subscribers whole until another resource is written (a creation, a PUT to another sync), and only its first 10 after that (a one-slot cache in front of a store that truncated it): only a read after other activity shows it.",
    apply: ({ app }) => listLostAfterOtherWrites(app, ROUTES.syncErrorHandling, '/api/syncs/'),
  },
  {
    name: 'put-merges-subscribers',
    breaks: ['EHS-002', 'EHS-003'],
    description: 'PUT /api/syncs/{id}/error-handling appends the sent subscribers to the current list (deduplicated) instead of replacing it.',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const current = store.syncErrorHandling(id);
        if (!current || patch.subscribers === undefined) return original(id, patch);
        return original(id, { ...patch, subscribers: [...new Set([...current.subscribers, ...patch.subscribers])] });
      }),
  },
  {
    name: 'put-ignores-warning-notifications',
    breaks: ['EHS-009'],
    description: 'PUT /api/syncs/{id}/error-handling answers 200 but never changes warning_notifications.',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const { warning_notifications: _ignored, ...rest } = patch;
        return original(id, rest);
      }),
  },
  {
    name: 'put-flips-resent-boolean',
    // EHS-010 too: the same body sent twice answers the field one way, then the other.
    breaks: ['EHS-009', 'EHS-010'],
    description: 'PUT /api/syncs/{id}/error-handling toggles auto_retry_record_errors when it is sent with the value it already has.',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const current = store.syncErrorHandling(id);
        if (current && typeof patch.auto_retry_record_errors === 'boolean' && patch.auto_retry_record_errors === current.auto_retry_record_errors) {
          return original(id, { ...patch, auto_retry_record_errors: !patch.auto_retry_record_errors });
        }
        return original(id, patch);
      }),
  },
  {
    name: 'put-duplicates-first-subscriber',
    breaks: ['EHS-002'],
    description: 'PUT /api/syncs/{id}/error-handling stores the first sent subscriber twice (the set of addresses is right, the list is not).',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const list = patch.subscribers;
        return original(id, list && list.length > 0 ? { ...patch, subscribers: [list[0]!, ...list] } : patch);
      }),
  },
  {
    name: 'put-ignores-empty-list',
    breaks: ['EHS-003'],
    description: 'PUT /api/syncs/{id}/error-handling with subscribers [] leaves the list as it was instead of emptying it.',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        if (patch.subscribers?.length !== 0) return original(id, patch);
        const { subscribers: _ignored, ...rest } = patch;
        return original(id, rest);
      }),
  },
  {
    name: 'put-rejects-empty-body',
    breaks: ['EHS-004', 'EHS-007'],
    description: 'PUT /api/syncs/{id}/error-handling answers the body {} 400 validation_error.',
    apply: ({ app }) =>
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        if (isObject(request.body) && Object.keys(request.body).length === 0) throw fieldError('', 'must not be empty');
      }),
  },
  {
    name: 'put-response-wrong-types',
    breaks: ['EHS-005'],
    description: 'PUT /api/syncs/{id}/error-handling answers the booleans as strings ("true"/"false").',
    apply: ({ app }) =>
      editSuccess(app, 'PUT', ROUTES.syncErrorHandling, (data) => {
        for (const field of BOOLEAN_FIELDS) {
          if (typeof data[field] === 'boolean') data[field] = String(data[field]);
        }
      }),
  },
  {
    name: 'put-accepts-wrong-types',
    breaks: ['EHS-006'],
    description:
      'PUT /api/syncs/{id}/error-handling coerces wrongly typed fields ("true", 1, a lone subscriber string) or drops them, and answers 200 instead of 400.',
    apply: ({ app }) =>
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const body = request.body;
        if (!isObject(body)) return;
        for (const field of BOOLEAN_FIELDS) {
          if (body[field] === undefined || body[field] === null) continue;
          const value = coerceBoolean(body[field]);
          if (value === undefined) delete body[field];
          else body[field] = value;
        }
        const subscribers = body.subscribers;
        if (typeof subscribers === 'string') body.subscribers = [subscribers];
        else if (Array.isArray(subscribers)) body.subscribers = subscribers.filter((s) => typeof s === 'string');
        else if (subscribers !== undefined && subscribers !== null) delete body.subscribers;
      }),
  },
  {
    name: 'put-unknown-id-200',
    // ERR-005 sends unknown ids of 1,000 and 10,000 characters to this PUT: answered 200 too.
    breaks: ['EHS-007', 'ERR-005'],
    description: 'PUT /api/syncs/{id}/error-handling answers an unknown id 200 (defaults with the update applied) instead of 404.',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => original(id, patch) ?? { ...copySyncErrorHandling(DEFAULT_SYNC_ERROR_HANDLING), ...patch }),
  },
  {
    name: 'put-refuses-json-charset',
    breaks: ['EHS-005'],
    description: 'PUT /api/syncs/{id}/error-handling answers a body labelled Content-Type: application/json; charset=utf-8 415 (a media-type check that compares the whole header with "application/json").',
    apply: ({ app }) =>
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        if ((request.headers['content-type'] ?? '').trim() !== 'application/json') throw new ApiError('unsupported_media_type', 'bodies must be sent as Content-Type: application/json');
      }),
  },
  {
    name: 'put-subscribers-capped-at-10',
    breaks: ['EHS-002'],
    description: 'PUT /api/syncs/{id}/error-handling keeps only the first 10 subscribers of a longer list, silently (answer and stored settings alike).',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => original(id, patch.subscribers ? { ...patch, subscribers: patch.subscribers.slice(0, 10) } : patch)),
  },
  {
    name: 'put-subscribers-capped-at-100',
    breaks: ['EHS-002'],
    description: 'PUT /api/syncs/{id}/error-handling keeps only the first 100 subscribers of a longer list, silently (a limit that should have been a 400, or none).',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => original(id, patch.subscribers ? { ...patch, subscribers: patch.subscribers.slice(0, 100) } : patch)),
  },
  {
    name: 'put-drops-long-addresses',
    breaks: ['EHS-002'],
    description: 'PUT /api/syncs/{id}/error-handling silently drops subscriber addresses longer than 64 characters (the local part\'s limit applied to the whole address).',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => original(id, patch.subscribers ? { ...patch, subscribers: patch.subscribers.filter((s) => s.length <= 64) } : patch)),
  },
  {
    name: 'sync-read-subscribers-first-10',
    breaks: ['EHS-011'],
    description: 'GET /api/syncs/{id}/error-handling (extension) answers only the first 10 subscribers (a page of the list); the PUT answers and stores the whole list.',
    apply: ({ app }) =>
      editSuccess(app, 'GET', ROUTES.syncErrorHandling, (data) => {
        if (Array.isArray(data.subscribers)) data.subscribers = data.subscribers.slice(0, 10);
      }),
  },
  {
    name: 'put-uuid-unknown-500',
    breaks: ['EHS-007'],
    description: 'PUT /api/syncs/{id}/error-handling answers an unknown id shaped like a UUID 500 (the well-formed id reaches the update, which fails on the missing row); other unknown ids get 404.',
    apply: ({ app, store }) =>
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const { id } = request.params as { id: string };
        if (UUID.test(id) && !store.modelSyncs.has(id)) throw new ApiError('internal_error', 'update affected no row');
      }),
  },
  {
    name: 'put-special-id-400',
    breaks: ['EHS-007'],
    description: 'PUT /api/syncs/{id}/error-handling answers an id holding a space, %, /, ? or # (percent-encoded in the path) 400 "malformed id" instead of 404 (unknown id).',
    apply: ({ app }) =>
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        if (URL_SPECIAL.test((request.params as { id: string }).id)) throw fieldError('id', 'is malformed');
      }),
  },
  {
    name: 'put-subscribers-lone-string',
    breaks: ['EHS-006'],
    description: 'PUT /api/syncs/{id}/error-handling takes a lone e-mail string for subscribers as a list of one.',
    apply: ({ app }) =>
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const body = request.body;
        if (isObject(body) && typeof body.subscribers === 'string' && body.subscribers.includes('@')) body.subscribers = [body.subscribers];
      }),
  },
  {
    name: 'put-unknown-id-empty-body-200',
    breaks: ['EHS-007'],
    description: 'PUT /api/syncs/{id}/error-handling with an empty body {} answers an unknown id 200 with the defaults (only bodies that change something look the id up).',
    apply: ({ app, store }) =>
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request, reply) => {
        const { id } = request.params as { id: string };
        if (isObject(request.body) && Object.keys(request.body).length === 0 && !store.modelSyncs.has(id)) {
          return reply.send({ data: copySyncErrorHandling(DEFAULT_SYNC_ERROR_HANDLING) });
        }
      }),
  },
  {
    name: 'put-null-clears',
    breaks: ['EHS-008'],
    description: 'PUT /api/syncs/{id}/error-handling takes null as "clear": a boolean becomes false and subscribers [], instead of unchanged.',
    apply: ({ app }) =>
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const body = request.body;
        if (!isObject(body)) return;
        for (const field of BOOLEAN_FIELDS) if (body[field] === null) body[field] = false;
        if (body.subscribers === null) body.subscribers = [];
      }),
  },
  {
    name: 'put-response-single-subscriber-unwrapped',
    breaks: ['EHS-005'],
    description: 'PUT /api/syncs/{id}/error-handling answers a subscribers list of exactly one address as the bare string (a serializer that unwraps one-item lists).',
    apply: ({ app }) =>
      editSuccess(app, 'PUT', ROUTES.syncErrorHandling, (data) => {
        if (Array.isArray(data.subscribers) && data.subscribers.length === 1) data.subscribers = data.subscribers[0];
      }),
  },
  {
    // Kills store.ts's mutant of the model sync's default subscribers (bench/mutation-triage.json).
    name: 'model-sync-starts-with-placeholder-subscriber',
    breaks: ['EHS-005'],
    description: 'A new model sync starts with subscribers ["nobody"], a placeholder that is not an e-mail address: the first PUT /api/syncs/{id}/error-handling that leaves subscribers out answers it (Rule 1 keeps it); a PUT that sends subscribers replaces it as before.',
    apply: ({ store }) =>
      wrapStore(store, 'addModelSync', (original) => (input) => {
        const sync = original(input);
        sync.errorHandling.subscribers = ['nobody'];
        return sync;
      }),
  },
  {
    name: 'put-repeat-appends-subscribers',
    breaks: ['EHS-010'],
    description: 'PUT /api/syncs/{id}/error-handling, sent the same body as the previous PUT to that sync with a non-empty subscribers list, appends the list to the current one instead of replacing it.',
    apply: ({ app, store }) => {
      const repeated = repeatedBodies(app);
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const { id } = request.params as { id: string };
        const body = request.body;
        const current = store.syncErrorHandling(id);
        if (repeated(request) && current && isObject(body) && hasAddresses(body.subscribers)) body.subscribers = [...current.subscribers, ...body.subscribers];
      });
    },
  },
  {
    name: 'put-repeat-answers-stale',
    breaks: ['EHS-010'],
    description:
      'PUT /api/syncs/{id}/error-handling, sent the same body as the previous PUT to that sync with a non-empty subscribers list, answers the settings from before that previous PUT (a replay cache that kept the wrong snapshot); the stored settings are right.',
    apply: ({ app, store }) => {
      const repeated = repeatedBodies(app);
      const before = new Map<string, SyncErrorHandling>();
      const stale = new WeakMap<object, SyncErrorHandling>();
      beforeRoute(app, 'PUT', ROUTES.syncErrorHandling, (request) => {
        const { id } = request.params as { id: string };
        const current = store.syncErrorHandling(id);
        const snapshot = before.get(id);
        if (repeated(request) && snapshot && isObject(request.body) && hasAddresses(request.body.subscribers)) stale.set(request, snapshot);
        else if (current) before.set(id, current);
      });
      editSuccess(app, 'PUT', ROUTES.syncErrorHandling, (data, request) => {
        const snapshot = stale.get(request);
        if (snapshot) Object.assign(data, copySyncErrorHandling(snapshot));
      });
    },
  },
  {
    name: 'sync-read-stale',
    breaks: ['EHS-011'],
    description: 'GET /api/syncs/{id}/error-handling (extension) answers the settings as they were before the last PUT (a cache refreshed one write late).',
    apply: ({ app, store }) => {
      const previous = new Map<string, SyncErrorHandling>();
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const before = store.syncErrorHandling(id);
        const after = original(id, patch);
        if (before && after) previous.set(id, before);
        return after;
      });
      beforeRoute(app, 'GET', ROUTES.syncErrorHandling, (request, reply) => {
        const stale = previous.get((request.params as { id: string }).id);
        if (stale) return reply.send({ data: copySyncErrorHandling(stale) });
      });
    },
  },
  {
    name: 'notify-false-not-stored',
    breaks: ['EHS-011'],
    description:
      'PUT /api/syncs/{id}/error-handling stores notify_on_record_errors only when it is true (a truthiness test), yet answers the value sent; so GET /api/syncs/{id}/error-handling (extension) still reads true after false was sent.',
    apply: ({ store }) => {
      const answered = new Map<string, boolean>();
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const { notify_on_record_errors: notify, ...rest } = patch;
        const stored = original(id, notify ? patch : rest);
        if (!stored) return stored;
        // The answers stay consistent with each other: only the read shows what was not stored.
        const value = notify ?? answered.get(id) ?? stored.notify_on_record_errors;
        answered.set(id, value);
        return { ...stored, notify_on_record_errors: value };
      });
    },
  },
  ...bulkErrorHandlingFaults,
];
