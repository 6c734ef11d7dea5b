import type { FastifyInstance } from 'fastify';
import { ApiError, fieldError } from '../errors.ts';
import type { RunOptions, Runs } from '../runs.ts';
import { isEnded, type ModelSync, type Store, type SyncExecution } from '../store.ts';
import { isObject } from '../validation.ts';
import { runsPage } from './executions-list.ts';

type SyncParams = { Params: { id: string } };
type ExecutionParams = { Params: { id: string; execution_id: string } };

function existingSync(store: Store, id: string): ModelSync {
  const sync = store.getModelSync(id);
  if (!sync) throw new ApiError('not_found', `no model sync with id ${id}`, { id });
  return sync;
}

function existingRun(store: Store, params: ExecutionParams['Params']): SyncExecution {
  const sync = existingSync(store, params.id);
  const run = store.getExecution(sync, params.execution_id);
  if (!run) throw new ApiError('not_found', `sync ${sync.id} has no run with id ${params.execution_id}`, { id: params.execution_id });
  return run;
}

/**
 * The start body, the real service's: {test?, resync?} (identities, which selects records by
 * identity, is taken and ignored). Anything else in it is ignored, as the real service's clients
 * may send more than the reference knows; a known flag of the wrong type is refused.
 */
function runOptions(body: unknown): RunOptions {
  const b = isObject(body) ? body : {};
  for (const flag of ['test', 'resync'] as const) {
    if (b[flag] !== undefined && typeof b[flag] !== 'boolean') throw fieldError(`/${flag}`, 'must be a boolean');
  }
  return { type: b.test === true ? 'test' : 'manual', resync: b.resync === true };
}

/**
 * Extension: runs of a model sync (the spec lists 'running ... syncs' among the operations it does
 * not show), in the real service's shapes. POST starts a run and answers at once; GET reads how it
 * is going or how it ended; cancel asks it to stop.
 */
export function executionRoutes(app: FastifyInstance, store: Store, runs: Runs): void {
  app.post<SyncParams>('/api/syncs/:id/executions', async (request) => {
    const sync = existingSync(store, request.params.id);
    const run = runs.start(sync, runOptions(request.body));
    return { data: { id: run.id, status: run.status, created_at: run.createdAt } };
  });

  app.get<SyncParams & { Querystring: Record<string, unknown> }>('/api/syncs/:id/executions', async (request) => {
    const { page, next } = runsPage(existingSync(store, request.params.id).executions, request.query, isEnded);
    // The list holds no capture log: the real list's entries are the run's summary.
    return { data: page.map((run) => ({ ...executionAnswer(run), requests: undefined })), pagination: next === undefined ? {} : { next_page_token: next } };
  });

  app.get<ExecutionParams>('/api/syncs/:id/executions/:execution_id', async (request) => {
    return { data: executionAnswer(existingRun(store, request.params)) };
  });

  // The real service answers a cancel with a message, not the run: a client reads the run to see it stop.
  app.post<ExecutionParams>('/api/syncs/:id/executions/:execution_id/cancel', async (request) => {
    const run = existingRun(store, request.params);
    const wasEnded = isEnded(run);
    runs.cancel(run);
    return { data: { message: wasEnded ? `run ${run.id} has already ended (${run.status})` : `cancellation of run ${run.id} requested` } };
  });
}

function executionAnswer(run: SyncExecution): Record<string, unknown> {
  return {
    id: run.id,
    sync_id: run.syncId,
    type: run.type,
    status: run.status,
    created_at: run.createdAt,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    updated_at: run.updatedAt,
    counts: { ...run.counts },
    errors: [...run.errors],
    batches_delivered: run.batchesDelivered,
    requests: run.requests && structuredClone(run.requests),
  };
}
