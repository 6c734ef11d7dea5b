import type { FastifyInstance } from 'fastify';
import { connectionKind } from '../connection-kinds.ts';
import { fieldError } from '../errors.ts';
import type { FieldSelection, ModelSync, Store } from '../store.ts';
import { requireShape } from '../validation.ts';

interface ModelSyncRequest {
  name: string;
  mode?: string;
  target: { connection_id: string; object?: string; configuration?: Record<string, unknown> };
  fields: Array<{ source?: { model_id?: string; field: string }; target: string; override_value?: string }>;
  sync_all_records?: boolean;
  skip_initial_backfill?: boolean;
  schedule?: Record<string, unknown>;
  identity?: Record<string, unknown>;
  active?: boolean;
}

/** Spec › Webhook connection and its advanced sync settings: defaults, under the real service's names. */
export const WEBHOOK_TARGET_DEFAULTS = { batch_size: 100, metadata: null, record_requests: true } as const;

/** The webhook destination object, in the real service's naming. */
export const WEBHOOK_OBJECT = 'http';

/** Not in the spec's endpoint list; the mode a model sync gets when none is asked for (the reference's choice). */
export const DEFAULT_MODEL_SYNC_MODE = 'updateOrCreate';

/**
 * Extension: POST /api/syncs, the real service's shape (model-sync-request.schema.json). It exists
 * so that a suite can make a model sync whose error handling it then sets, and one that delivers
 * a source's rows to a webhook (routes/executions.ts runs it).
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
    const sourceId = namedSource(store, body.fields);
    const selection = fieldSelection(body.fields);
    const sync = store.addModelSync({
      name: body.name,
      mode: body.mode ?? DEFAULT_MODEL_SYNC_MODE,
      target,
      fields: body.fields,
      sourceId,
      selection,
      sync_all_records: body.sync_all_records ?? false,
      skip_initial_backfill: body.skip_initial_backfill ?? false,
      schedule: body.schedule ?? { frequency: 'manual' },
      // The real service's; stored and echoed, they change nothing in a run (README › Model syncs).
      ...(body.identity !== undefined && { identity: body.identity }),
      active: body.active ?? true,
    });
    return { data: modelSyncAnswer(sync) };
  });
}

/**
 * A field reads its source unless it has none (optional, as in the real service) or has an
 * override_value ("if provided, 'source' is ignored", the real service's client says).
 */
const readsSource = (f: ModelSyncRequest['fields'][number]) => f.source !== undefined && f.override_value === undefined;

/**
 * The source the fields read (fields[].source.model_id: a model of POST /api/models, or a source
 * of POST /_reference/sources): one per sync, so every field that reads a source names the same
 * one, or none does (such a sync cannot run). A model's fields must be columns of its table.
 */
function namedSource(store: Store, fields: ModelSyncRequest['fields']): string | null {
  const first = fields.find((f) => readsSource(f))?.source?.model_id;
  for (const [i, field] of fields.entries()) {
    const source = field.source;
    if (!readsSource(field) || source === undefined) continue;
    const model = source.model_id === undefined ? undefined : store.getModel(source.model_id);
    if (source.model_id !== undefined && !model && !store.getSource(source.model_id)) throw fieldError(`/fields/${i}/source/model_id`, `names no model or source (${source.model_id})`);
    if (source.model_id !== first) throw fieldError(`/fields/${i}/source/model_id`, 'must name the same source as the first field with a source: a sync reads one source');
    if (model && !model.fields.some((column) => column.name === source.field)) {
      throw fieldError(`/fields/${i}/source/field`, `is not a field of model ${model.id} (its fields: ${model.fields.map((f) => f.name).join(', ')})`);
    }
  }
  return first ?? null;
}

/**
 * Column -> delivered name; a field that reads no source delivers its override_value (the real
 * service's fixed value), null when it has none. Two fields delivered under one name would make
 * a record ambiguous.
 */
function fieldSelection(fields: ModelSyncRequest['fields']): FieldSelection[] {
  const seen = new Set<string>();
  return fields.map((f, i) => {
    const { target } = f;
    if (seen.has(target)) throw fieldError(`/fields/${i}/target`, `repeats the target name ${JSON.stringify(target)}: each field is delivered under its own name`);
    seen.add(target);
    return readsSource(f) && f.source ? { field: f.source.field, target } : { field: null, target, value: f.override_value ?? null };
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
    active: sync.active,
    ...(sync.identity !== undefined && { identity: sync.identity }),
  });
}
