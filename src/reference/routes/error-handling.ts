import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import type { BulkSyncErrorHandling, Store, SyncErrorHandling } from '../store.ts';
import { requireShape } from '../validation.ts';

type IdParams = { Params: { id: string } };

const SYNC_FIELDS = ['auto_retry_record_errors', 'notify_on_record_errors', 'subscribers', 'warning_notifications'] as const;
const BULK_FIELDS = ['ingestion_failure_threshold', 'subscribers'] as const;

/**
 * The fields of an update that change something. Omitted fields stay unchanged (Spec › PUT
 * Rules 1), and so do null ones: the spec makes every field nullable without saying what null
 * does, and a decoder into optional pointers (the usual server side) cannot tell null from absent
 * (interpretation, README.md). Fields outside the schema are ignored.
 */
function patchOf<T>(body: unknown, fields: readonly (keyof T & string)[]): Partial<T> {
  const source = body as Record<string, unknown>;
  const patch: Record<string, unknown> = {};
  for (const field of fields) {
    const value = source[field];
    if (value !== undefined && value !== null) patch[field] = Array.isArray(value) ? [...value] : value;
  }
  return patch as Partial<T>;
}

function unknownId(what: string, id: string): ApiError {
  return new ApiError('not_found', `no ${what} with id ${id}`, { id });
}

/**
 * Spec › GET /api/bulk/syncs/{id}/error-handling and PUT /api/syncs/{id}/error-handling, plus two
 * extensions the spec does not show: PUT for bulk syncs and GET for model syncs. A PUT checks its
 * body before its id, as POST /api/bulk/syncs checks shape before the connections it names.
 */
export function errorHandlingRoutes(app: FastifyInstance, store: Store): void {
  app.get<IdParams>('/api/bulk/syncs/:id/error-handling', async (request) => {
    const settings = store.bulkErrorHandling(request.params.id);
    if (!settings) throw unknownId('bulk sync', request.params.id);
    return { data: settings };
  });

  app.put<IdParams>('/api/bulk/syncs/:id/error-handling', async (request) => {
    requireShape('bulk-sync-error-handling.schema.json#/$defs/update', request.body);
    const settings = store.updateBulkErrorHandling(request.params.id, patchOf<BulkSyncErrorHandling>(request.body, BULK_FIELDS));
    if (!settings) throw unknownId('bulk sync', request.params.id);
    return { data: settings };
  });

  app.get<IdParams>('/api/syncs/:id/error-handling', async (request) => {
    const settings = store.syncErrorHandling(request.params.id);
    if (!settings) throw unknownId('model sync', request.params.id);
    return { data: settings };
  });

  app.put<IdParams>('/api/syncs/:id/error-handling', async (request) => {
    requireShape('sync-error-handling-update.schema.json', request.body);
    const settings = store.updateSyncErrorHandling(request.params.id, patchOf<SyncErrorHandling>(request.body, SYNC_FIELDS));
    if (!settings) throw unknownId('model sync', request.params.id);
    return { data: settings };
  });
}
