import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, fieldError } from '../errors.ts';
import { isObject } from '../validation.ts';
import { beforeRoute, editErrorBody, isRoute, refuseSuccess, ROUTES, type Fault } from './fault.ts';

const hasSchemas = (body: unknown): boolean => isObject(body) && Object.hasOwn(body, 'schemas');

export const bulkSyncFaults: Fault[] = [
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
