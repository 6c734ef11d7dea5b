import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import type { Runs } from '../runs.ts';
import type { ModelSync, Store, SyncExecution } from '../store.ts';

type SyncParams = { Params: { id: string } };
type ExecutionParams = { Params: { id: string; execution_id: string } };

function existingSync(store: Store, id: string): ModelSync {
  const sync = store.getModelSync(id);
  if (!sync) throw new ApiError('not_found', `no model sync with id ${id}`, { id });
  return sync;
}

/**
 * Extension: runs of a model sync (the spec lists 'running ... syncs' among the operations it does
 * not show). POST starts a run and answers at once; GET reads how it is going or how it ended.
 */
export function executionRoutes(app: FastifyInstance, store: Store, runs: Runs): void {
  app.post<SyncParams>('/api/syncs/:id/executions', async (request) => {
    const run = runs.start(existingSync(store, request.params.id));
    return { data: { id: run.id, status: run.status } };
  });

  app.get<ExecutionParams>('/api/syncs/:id/executions/:execution_id', async (request) => {
    const sync = existingSync(store, request.params.id);
    const run = store.getExecution(sync, request.params.execution_id);
    if (!run) throw new ApiError('not_found', `sync ${sync.id} has no run with id ${request.params.execution_id}`, { id: request.params.execution_id });
    return { data: executionAnswer(run) };
  });
}

function executionAnswer(run: SyncExecution): Record<string, unknown> {
  return {
    id: run.id,
    sync_id: run.syncId,
    status: run.status,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    records_delivered: run.recordsDelivered,
    batches_delivered: run.batchesDelivered,
    error: run.error,
    requests: run.requests && structuredClone(run.requests),
  };
}
