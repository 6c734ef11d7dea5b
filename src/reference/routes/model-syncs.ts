import type { FastifyInstance } from 'fastify';
import { connectionKind } from '../connection-kinds.ts';
import { fieldError } from '../errors.ts';
import type { ModelSync, Store } from '../store.ts';
import { requireShape } from '../validation.ts';

interface ModelSyncRequest {
  name: string;
  mode?: string;
  target: { connection_id: string; object: string; configuration?: Record<string, unknown> };
  fields: unknown[];
  sync_all_records?: boolean;
  skip_initial_backfill?: boolean;
  schedule?: Record<string, unknown>;
}

/** Spec › Webhook connection and its advanced sync settings: defaults, under the real service's names. */
export const WEBHOOK_TARGET_DEFAULTS = { batch_size: 100, metadata: null, record_requests: true } as const;

/** The webhook destination object, in the real service's naming. */
export const WEBHOOK_OBJECT = 'http';

/** Not in the spec's endpoint list; the mode a model sync gets when none is asked for (the reference's choice). */
export const DEFAULT_MODEL_SYNC_MODE = 'updateOrCreate';

/**
 * Extension: POST /api/syncs, the real service's shape (model-sync-request.schema.json). It exists
 * so that a suite can make a model sync whose error handling it then sets. Runs come later.
 */
export function modelSyncRoutes(app: FastifyInstance, store: Store): void {
  app.post('/api/syncs', async (request) => {
    requireShape('model-sync-request.schema.json', request.body);
    const body = request.body as ModelSyncRequest;
    const connection = store.getConnection(body.target.connection_id);
    if (!connection) throw fieldError('/target/connection_id', `names no connection (${body.target.connection_id})`);

    const target: ModelSync['target'] = { ...body.target };
    if (connectionKind(connection.type)?.specKind === 'webhook') {
      if (body.target.object !== WEBHOOK_OBJECT) throw fieldError('/target/object', `must be "${WEBHOOK_OBJECT}" for a webhook connection`);
      target.configuration = { ...WEBHOOK_TARGET_DEFAULTS, ...body.target.configuration };
    }
    const sync = store.addModelSync({
      name: body.name,
      mode: body.mode ?? DEFAULT_MODEL_SYNC_MODE,
      target,
      fields: body.fields,
      sync_all_records: body.sync_all_records ?? false,
      skip_initial_backfill: body.skip_initial_backfill ?? false,
      schedule: body.schedule ?? { frequency: 'manual' },
    });
    return { data: modelSyncAnswer(sync) };
  });
}

function modelSyncAnswer(sync: ModelSync): Record<string, unknown> {
  return structuredClone({
    id: sync.id,
    name: sync.name,
    mode: sync.mode,
    target: sync.target,
    fields: sync.fields,
    sync_all_records: sync.sync_all_records,
    skip_initial_backfill: sync.skip_initial_backfill,
    schedule: sync.schedule,
  });
}
