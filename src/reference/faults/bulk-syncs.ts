import type { FastifyInstance, FastifyRequest } from 'fastify';
import { connectionKind } from '../connection-kinds.ts';
import { ApiError, fieldError } from '../errors.ts';
import { isObject } from '../validation.ts';
import { beforeRoute, editErrorBody, isRoute, refuseSuccess, ROUTES, type Fault } from './fault.ts';

const hasSchemas = (body: unknown): boolean => isObject(body) && Object.hasOwn(body, 'schemas');

export const bulkSyncFaults: Fault[] = [
  {
    name: 'non-database-source-never-cached',
    breaks: ['BULK-002'],
    description: 'A bulk sync from a source that is not a relational database (a CRM, a marketing platform) answers "No schemas found" for ever: the schema cache is filled by database discovery only, which such a source never passes.',
    apply: ({ app, store }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const id = isObject(request.body) ? request.body.source_connection_id : undefined;
        const source = typeof id === 'string' ? store.getConnection(id) : undefined;
        const kind = source && connectionKind(source.type)?.specKind;
        if (kind && kind !== 'relationalDatabase') throw new ApiError('schemas_not_cached', `No schemas found for connection ${id}; the schema cache is still being built, try again in a few seconds.`);
      }),
  },
  {
    name: 'bulk-non-object-body-500',
    // ERR-004 too: a request without a body reaches the route with no body object either.
    breaks: ['BULK-005', 'ERR-004'],
    description: 'POST /api/bulk/syncs reads fields of the body before checking that it is an object: a whole body of null, a list or a string, or no body at all, is answered 500 internal_error instead of 4xx.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        if (!isObject(request.body)) throw new TypeError('Cannot convert undefined or null to object');
      }),
  },
  {
    name: 'bulk-charset-case-sensitive',
    breaks: ['BULK-003'],
    description: 'POST /api/bulk/syncs answers a body labelled application/json;charset=UTF-8 415: the charset parameter is compared case-sensitively with "utf-8" (RFC 9110 makes charset names case-insensitive); without a parameter, or with charset=utf-8, it is taken.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const charset = /;\s*charset=([^;\s]+)/.exec(request.headers['content-type'] ?? '')?.[1];
        if (charset !== undefined && charset !== 'utf-8') throw new ApiError('unsupported_media_type', 'bodies must be sent as Content-Type: application/json; charset=utf-8');
      }),
  },
  {
    name: 'bulk-database-destination-refuses-json-charset',
    breaks: ['BULK-003'],
    description: 'POST /api/bulk/syncs answers a bulk sync to a relational database destination (settings holding schema) labelled application/json with a charset parameter 415; an object-store destination takes it.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        const settings = isObject(body) ? (body.destination_configuration ?? body.dest_configuration) : undefined;
        const database = isObject(settings) && Object.hasOwn(settings, 'schema');
        if (database && (request.headers['content-type'] ?? '').trim() !== 'application/json') throw new ApiError('unsupported_media_type', 'bulk syncs into a database must be sent as Content-Type: application/json');
      }),
  },
  {
    name: 'no-schemas-stage-skipped-with-schemas',
    breaks: ['BULK-001'],
    description: 'POST /api/bulk/syncs runs the schema-cache check only without schemas: a request naming schemas on a fresh source is accepted at once.',
    apply: ({ app, store }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        if (!isObject(body) || !Array.isArray(body.schemas) || body.schemas.length === 0 || typeof body.source_connection_id !== 'string') return;
        const source = store.getConnection(body.source_connection_id);
        if (!source) return;
        source.schemasReadyAt = 0;
        source.noSchemasOwed = 0;
      }),
  },
  {
    name: 'no-schemas-stage',
    breaks: ['BULK-001'],
    description: "No schemas_not_cached stage: a new connection's schemas are cached at once, and POST /api/bulk/syncs on a database still being discovered waits for the discovery instead of answering 400.",
    apply: ({ app, store, config }) => {
      config.schemaCacheDelayMs = 0;
      // A discovered database is cached only when its discovery ends: the request waits for it, as a
      // service that discovers on the first request would.
      app.addHook('preValidation', async (request) => {
        if (!isRoute(request, 'POST', ROUTES.bulkSyncs)) return;
        const id = isObject(request.body) ? request.body.source_connection_id : undefined;
        const source = typeof id === 'string' ? store.getConnection(id) : undefined;
        for (let waited = 0; source?.status === 'pending' && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
      });
    },
  },
  {
    name: 'no-schemas-wrong-body',
    breaks: ['BULK-001'],
    description: 'The schemas_not_cached 400 carries metadata {} and a message that does not begin with "No schemas found".',
    apply: ({ app }) =>
      editErrorBody(app, (body) => {
        if (body.key !== 'schemas_not_cached') return;
        body.message = 'Schema cache not ready for this connection; try again in a few seconds.';
        body.metadata = {};
      }),
  },
  {
    name: 'schemas-never-cached',
    breaks: ['BULK-002'],
    description: 'The schema cache never becomes ready: POST /api/bulk/syncs answers schemas_not_cached forever.',
    apply: ({ config }) => {
      config.schemaCacheDelayMs = Number.POSITIVE_INFINITY;
    },
  },
  {
    name: 'bulk-requires-schemas',
    // BULK-002 too: its repeated request has no schemas, so it never reaches a 2xx.
    breaks: ['BULK-002', 'BULK-003'],
    description: 'A bulk sync without schemas that would be created is answered 400 validation_error on /schemas instead (and not kept).',
    apply: ({ app, store }) =>
      refuseSuccess(
        app,
        'POST',
        ROUTES.bulkSyncs,
        (request) => (hasSchemas(request.body) ? undefined : fieldError('/schemas', 'is required')),
        (data) => store.bulkSyncs.delete(String(data.id)),
      ),
  },
  {
    name: 'bulk-rejects-schemas-list',
    breaks: ['BULK-004'],
    description: 'A bulk sync with schemas that would be created is answered 400 validation_error on /schemas instead (and not kept).',
    apply: ({ app, store }) =>
      refuseSuccess(
        app,
        'POST',
        ROUTES.bulkSyncs,
        (request) => (hasSchemas(request.body) ? fieldError('/schemas', 'is not supported') : undefined),
        (data) => store.bulkSyncs.delete(String(data.id)),
      ),
  },
  {
    name: 'bulk-accepts-missing-fields',
    breaks: ['BULK-005'],
    description: 'POST /api/bulk/syncs fills in a missing name, mode or schedule (and so answers 200) instead of answering 400.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        if (!isObject(body)) return;
        body.name ??= 'unnamed bulk sync';
        body.mode ??= 'replicate';
        body.schedule ??= { frequency: 'manual' };
      }),
  },
  {
    name: 'bulk-no-schemas-500',
    // BULK-002 too: its repeated request has no schemas, so it never reaches a 2xx.
    breaks: ['BULK-002', 'BULK-003'],
    description: 'A bulk sync without schemas that would be created fails with 500 internal_error (a null list dereferenced), and is not kept.',
    apply: ({ app, store }) =>
      refuseSuccess(
        app,
        'POST',
        ROUTES.bulkSyncs,
        (request) => (hasSchemas(request.body) ? undefined : new ApiError('internal_error', 'internal error')),
        (data) => store.bulkSyncs.delete(String(data.id)),
      ),
  },
  {
    name: 'bulk-rejects-several-schemas',
    breaks: ['BULK-004'],
    description: 'A bulk sync naming one source object is accepted, one naming two or more is answered 400 on /schemas/1 (and not kept).',
    apply: ({ app, store }) =>
      refuseSuccess(
        app,
        'POST',
        ROUTES.bulkSyncs,
        (request) => (isObject(request.body) && Array.isArray(request.body.schemas) && request.body.schemas.length > 1 ? fieldError('/schemas/1', 'only one object per bulk sync') : undefined),
        (data) => store.bulkSyncs.delete(String(data.id)),
      ),
  },
  {
    name: 'bulk-name-number-coerced',
    breaks: ['BULK-005'],
    description: 'POST /api/bulk/syncs turns a numeric or boolean name into a string (and so accepts it) instead of answering 400.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        if (isObject(body) && (typeof body.name === 'number' || typeof body.name === 'boolean')) body.name = String(body.name);
      }),
  },
  {
    name: 'bulk-name-non-ascii-500',
    breaks: ['BULK-003'],
    description: 'POST /api/bulk/syncs fails with 500 internal_error on a name holding a character outside ASCII (a Latin-1 column that cannot store it); ASCII names of any length are taken.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        if (isObject(body) && typeof body.name === 'string' && /[^\u0000-\u00ff]/.test(body.name)) throw new ApiError('internal_error', 'internal error');
      }),
  },
  {
    name: 'bulk-schemas-capped-at-10',
    breaks: ['BULK-004'],
    description: 'POST /api/bulk/syncs answers a schemas list of more than 10 names 400 validation_error on /schemas/10; lists of up to 10 are taken.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        if (isObject(body) && Array.isArray(body.schemas) && body.schemas.length > 10) throw fieldError('/schemas/10', 'at most 10 objects per bulk sync');
      }),
  },
  {
    name: 'bulk-frequency-defaulted',
    breaks: ['BULK-005'],
    description: 'POST /api/bulk/syncs takes a schedule without frequency, or with frequency null, as a manual schedule instead of answering 400; a schedule missing whole is refused.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const schedule = isObject(request.body) ? request.body.schedule : undefined;
        if (isObject(schedule) && (schedule.frequency === undefined || schedule.frequency === null)) schedule.frequency = 'manual';
      }),
  },
  {
    name: 'bulk-schemas-null-500',
    breaks: ['BULK-006'],
    description: 'POST /api/bulk/syncs fails with 500 internal_error on schemas null (the list is iterated unchecked); an omitted schemas is taken.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        if (isObject(request.body) && request.body.schemas === null) throw new ApiError('internal_error', 'internal error');
      }),
  },
  {
    name: 'bulk-settings-not-object-500',
    breaks: ['BULK-005'],
    description: 'POST /api/bulk/syncs fails with 500 internal_error when the destination settings (either spelling) are a string or a list (their fields are read unchecked).',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        const body = request.body;
        if (!isObject(body)) return;
        for (const key of ['destination_configuration', 'dest_configuration']) if (typeof body[key] === 'string' || Array.isArray(body[key])) throw new ApiError('internal_error', 'internal error');
      }),
  },
  {
    name: 'bulk-schemas-lone-string-500',
    breaks: ['BULK-006'],
    description: 'POST /api/bulk/syncs fails with 500 internal_error on schemas given as one string instead of a list (each character is looked up as an object name); a list, and schemas null, are answered as specified.',
    apply: ({ app }) =>
      beforeRoute(app, 'POST', ROUTES.bulkSyncs, (request) => {
        if (isObject(request.body) && typeof request.body.schemas === 'string') throw new ApiError('internal_error', 'internal error');
      }),
  },
  {
    name: 'no-schemas-repeat-metadata',
    breaks: ['BULK-001'],
    description:
      'The first schemas_not_cached answer on a source is as specified; every later one carries metadata {connection_id, attempt} instead of null (a retry counter kept in the answer).',
    apply: ({ app }) => {
      const answered = new Map<string, number>();
      editStageAnswer(app, (body, request) => {
        const source = isObject(request.body) ? String(request.body.source_connection_id) : '';
        const attempt = (answered.get(source) ?? 0) + 1;
        answered.set(source, attempt);
        if (attempt > 1) body.metadata = { connection_id: source, attempt };
      });
    },
  },
  {
    name: 'no-schemas-body-2022',
    breaks: ['BULK-001'],
    description: 'Under 2022-12-12 only, the schemas_not_cached answer carries status "400" (a string) and metadata {} (the older version\'s error serializer); the other versions answer as specified.',
    apply: ({ app }) =>
      editStageAnswer(app, (body, request) => {
        if (request.serviceVersion !== '2022-12-12') return;
        body.status = '400';
        body.metadata = {};
      }),
  },
];

/** Edits the body of each schemas_not_cached answer of POST /api/bulk/syncs, knowing the request. */
function editStageAnswer(app: FastifyInstance, edit: (body: Record<string, unknown>, request: FastifyRequest) => void): void {
  app.addHook('onSend', async (request, reply, payload: unknown) => {
    if (reply.statusCode !== 400 || !isRoute(request, 'POST', ROUTES.bulkSyncs) || typeof payload !== 'string') return payload;
    const body: unknown = JSON.parse(payload);
    if (!isObject(body) || body.key !== 'schemas_not_cached') return payload;
    edit(body, request);
    return JSON.stringify(body);
  });
}
