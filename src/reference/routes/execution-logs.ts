import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import type { SignedLogFiles } from '../log-files.ts';
import type { Store } from '../store.ts';

// Extension, in the real service's shape: GET /api/syncs/{id}/executions/{execution_id}/{type}
// answers {data: {expires, urls}}, signed URLs to the run's log files of that type (records,
// errors, warnings, inserts, updates, deletes). The capture log (Spec › Events › Emission 6) is the
// records log here: one entry per delivery, {at, request, response}. The file format of the real
// service is not documented; this one is gzip-compressed JSON lines. Served when the reference
// is started with captureLog 'signed-urls', which also takes the log out of the run's read.

const LOG_TYPES = new Set(['records', 'errors', 'warnings', 'inserts', 'updates', 'deletes']);

type Params = { Params: { id: string; execution_id: string; type: string } };

export function executionLogRoutes(app: FastifyInstance, store: Store, files: SignedLogFiles): void {
  // As the real service: the run's read holds no log of its own (the reference's data.requests).
  app.addHook('preSerialization', async (request, _reply, payload: unknown) => {
    if (request.method !== 'GET' || request.routeOptions.url !== '/api/syncs/:id/executions/:execution_id') return payload;
    const data = (payload as { data?: Record<string, unknown> } | null)?.data;
    if (data && typeof data === 'object') delete data.requests;
    return payload;
  });

  app.get<Params>('/api/syncs/:id/executions/:execution_id/:type', async (request) => {
    const { id, execution_id: runId, type } = request.params;
    const sync = store.getModelSync(id);
    if (!sync) throw new ApiError('not_found', `no model sync with id ${id}`, { id });
    const run = store.getExecution(sync, runId);
    if (!run) throw new ApiError('not_found', `sync ${sync.id} has no run with id ${runId}`, { id: runId });
    if (!LOG_TYPES.has(type)) throw new ApiError('not_found', `no log of type ${type} (types: ${[...LOG_TYPES].join(', ')})`, { type });
    // A sync that does not record requests has no records log: no file at all.
    const entries = type === 'records' ? run.requests : [];
    if (entries === null || entries.length === 0) return { data: { expires: null, urls: [] } };
    const { url, expires } = await files.publish(entries);
    return { data: { expires, urls: [url] } };
  });
}
