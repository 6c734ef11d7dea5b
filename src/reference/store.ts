import { randomUUID } from 'node:crypto';

export interface Connection {
  id: string;
  name: string;
  type: string;
  /** As sent, secrets included (a later delivery needs them); responses strip them. */
  configuration: Record<string, unknown>;
  redirectUrl: string | null;
  /** Epoch ms at which the source schemas count as cached; Infinity means never. */
  schemasReadyAt: number;
  /** How many more bulk syncs on it must be answered "No schemas found" before time alone ends the stage (ReferenceOptions.holdSchemaStage). */
  noSchemasOwed: number;
  sourceObjects: readonly string[];
  /** 'pending' while a real database is being discovered (discovery.ts); 'failed' with statusError when it could not be. */
  status: ConnectionStatus;
  /** One line saying why the connection failed, never a secret; null unless failed. */
  statusError: string | null;
}

export type ConnectionStatus = 'pending' | 'healthy' | 'failed';

/** Extension (POST /api/models, the real service's shape): a source over a table of a postgresql connection. */
export interface Model {
  id: string;
  name: string;
  connectionId: string;
  /** As sent; `table` normalized to "schema.table". */
  configuration: Record<string, unknown>;
  schema: string;
  table: string;
  /** The row key column. */
  identifier: string;
  /** The table's columns when the model was made, in their order. */
  fields: Array<{ name: string; type: string }>;
  /** Other top-level fields of the request, echoed as sent. */
  extra: Record<string, unknown>;
}

export interface BulkSyncErrorHandling {
  ingestion_failure_threshold: number | null;
  subscribers: string[];
}

export interface BulkSync {
  id: string;
  name: string;
  sourceConnectionId: string;
  destinationConnectionId: string;
  mode: string;
  schedule: Record<string, unknown>;
  schemas: string[];
  /** Version-independent: the spelling is chosen when answering. */
  destinationSettings: Record<string, unknown> | null;
  errorHandling: BulkSyncErrorHandling;
}

export interface SyncErrorHandling {
  auto_retry_record_errors: boolean;
  notify_on_record_errors: boolean;
  subscribers: string[];
  warning_notifications: boolean;
}

/** A value of a test-control source row: those rows are flat (test-control endpoints, README.md). */
export type Scalar = string | number | boolean | null;
/** A value of a row read from a model's table may also be a jsonb value (array or object). */
export type Value = Scalar | Value[] | { [name: string]: Value };
export type Row = Record<string, Value>;
/** The value of a row's key column; 1 and "1" are different keys. */
export type RowKey = string | number;

/**
 * A table of rows the suite writes through the test-control endpoints (not service API), keyed
 * by its `key` column. Rows keep the order in which their key was first written.
 */
export interface Source {
  id: string;
  name: string;
  key: string;
  rows: Map<RowKey, Row>;
}

/** One selected field of a model sync: the source column and the name it is delivered under. */
export interface FieldSelection {
  /** The source column; null for a field without a source, which delivers `value`. */
  field: string | null;
  target: string;
  value?: Value;
}

/** Spec › Events › Emission 6: one entry of a run's sync history log. */
export interface CaptureEntry {
  at: string;
  request: { method: string; url: string; headers: Record<string, string>; body_bytes: number };
  response: { status: number; body: string } | { error: string };
}

/**
 * A run's states, the real service's names (UtilExecutionStatus). A run goes created -> queued ->
 * running -> completed | failed; canceling -> canceled when it is canceled, interrupted when the
 * reference stops under it.
 */
export type ExecutionStatus = 'created' | 'queued' | 'running' | 'canceling' | 'completed' | 'failed' | 'canceled' | 'interrupted';

/** The states a run does not leave: a sync may start another run once its last one is in one of them. */
export const END_STATES: readonly ExecutionStatus[] = ['completed', 'failed', 'canceled', 'interrupted'];

export const isEnded = (run: SyncExecution): boolean => END_STATES.includes(run.status);

/** The real service's record counts of a run (see README › Runs for what each counts here). */
export interface ExecutionCounts {
  total: number;
  insert: number;
  update: number;
  upserts: number;
  delete: number;
  error: number;
  warnings: number;
}

/** One run of a model sync (extension: POST /api/syncs/{id}/executions). */
export interface SyncExecution {
  id: string;
  syncId: string;
  /** 1 for the sync's first run: what skip_initial_backfill looks at. */
  ordinal: number;
  /** 'test' when started with {test: true}; a test run otherwise runs as any other. */
  type: 'manual' | 'test';
  /** Started with {resync: true}: this run sends every record, as sync_all_records does. */
  resync: boolean;
  status: ExecutionStatus;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  updatedAt: string;
  counts: ExecutionCounts;
  /** Why the run failed (or was interrupted): the real service's errors[], strings. */
  errors: string[];
  batchesDelivered: number;
  /** The capture log (Spec › Events › Emission 6); null when the sync does not record requests. */
  requests: CaptureEntry[] | null;
}

export interface ModelSync {
  id: string;
  name: string;
  mode: string;
  target: { connection_id: string; object?: string; configuration?: Record<string, unknown> };
  fields: unknown[];
  /** The source every field names (fields[].source.model_id), or null when none is named. */
  sourceId: string | null;
  /** fields[] as column -> delivered name, in the order given. */
  selection: FieldSelection[];
  sync_all_records: boolean;
  skip_initial_backfill: boolean;
  schedule: Record<string, unknown>;
  /** The real service's record matching, as sent (absent when not sent); no run reads it. */
  identity?: Record<string, unknown>;
  /** The real service's switch for scheduled runs; true unless sent false. */
  active: boolean;
  errorHandling: SyncErrorHandling;
  /** Runs, oldest first. */
  executions: SyncExecution[];
  /** Row key to the hash last delivered for it: what makes later runs differential (Spec › What the service does 3). */
  deliveredHashes: Map<RowKey, string>;
}

export const DEFAULT_SYNC_ERROR_HANDLING: Readonly<SyncErrorHandling> = Object.freeze({
  auto_retry_record_errors: false,
  notify_on_record_errors: false,
  subscribers: [],
  warning_notifications: false,
});

export const DEFAULT_BULK_ERROR_HANDLING: Readonly<BulkSyncErrorHandling> = Object.freeze({
  ingestion_failure_threshold: null,
  subscribers: [],
});

export function copySyncErrorHandling(e: Readonly<SyncErrorHandling>): SyncErrorHandling {
  return { ...e, subscribers: [...e.subscribers] };
}

export function copyBulkErrorHandling(e: Readonly<BulkSyncErrorHandling>): BulkSyncErrorHandling {
  return { ...e, subscribers: [...e.subscribers] };
}

/**
 * The reference's whole state, in memory. Readers of error handling get copies, so that nothing
 * done to a response (by a route or a fault) can change the state. Faults may wrap these methods
 * on the instance (faults.ts).
 */
export class Store {
  readonly connections = new Map<string, Connection>();
  readonly bulkSyncs = new Map<string, BulkSync>();
  readonly modelSyncs = new Map<string, ModelSync>();
  readonly sources = new Map<string, Source>();
  readonly models = new Map<string, Model>();

  addConnection(input: Omit<Connection, 'id'>): Connection {
    const connection: Connection = { id: randomUUID(), ...input };
    this.connections.set(connection.id, connection);
    return connection;
  }

  getConnection(id: string): Connection | undefined {
    return this.connections.get(id);
  }

  addBulkSync(input: Omit<BulkSync, 'id' | 'errorHandling'>): BulkSync {
    const sync: BulkSync = { id: randomUUID(), ...input, errorHandling: copyBulkErrorHandling(DEFAULT_BULK_ERROR_HANDLING) };
    this.bulkSyncs.set(sync.id, sync);
    return sync;
  }

  bulkErrorHandling(id: string): BulkSyncErrorHandling | undefined {
    const sync = this.bulkSyncs.get(id);
    return sync && copyBulkErrorHandling(sync.errorHandling);
  }

  updateBulkErrorHandling(id: string, patch: Partial<BulkSyncErrorHandling>): BulkSyncErrorHandling | undefined {
    const sync = this.bulkSyncs.get(id);
    if (!sync) return undefined;
    sync.errorHandling = copyBulkErrorHandling({ ...sync.errorHandling, ...patch });
    return copyBulkErrorHandling(sync.errorHandling);
  }

  addModelSync(input: Omit<ModelSync, 'id' | 'errorHandling' | 'executions' | 'deliveredHashes'>): ModelSync {
    const sync: ModelSync = {
      id: randomUUID(),
      ...input,
      errorHandling: copySyncErrorHandling(DEFAULT_SYNC_ERROR_HANDLING),
      executions: [],
      deliveredHashes: new Map(),
    };
    this.modelSyncs.set(sync.id, sync);
    return sync;
  }

  getModelSync(id: string): ModelSync | undefined {
    return this.modelSyncs.get(id);
  }

  syncErrorHandling(id: string): SyncErrorHandling | undefined {
    const sync = this.modelSyncs.get(id);
    return sync && copySyncErrorHandling(sync.errorHandling);
  }

  updateSyncErrorHandling(id: string, patch: Partial<SyncErrorHandling>): SyncErrorHandling | undefined {
    const sync = this.modelSyncs.get(id);
    if (!sync) return undefined;
    sync.errorHandling = copySyncErrorHandling({ ...sync.errorHandling, ...patch });
    return copySyncErrorHandling(sync.errorHandling);
  }

  addModel(input: Omit<Model, 'id'>): Model {
    const model: Model = { id: randomUUID(), ...input };
    this.models.set(model.id, model);
    return model;
  }

  getModel(id: string): Model | undefined {
    return this.models.get(id);
  }

  addSource(name: string, key: string): Source {
    const source: Source = { id: randomUUID(), name, key, rows: new Map() };
    this.sources.set(source.id, source);
    return source;
  }

  getSource(id: string): Source | undefined {
    return this.sources.get(id);
  }

  /** Inserts or replaces rows by their key (already checked to be a string or a number). */
  writeRows(source: Source, rows: readonly Row[]): void {
    for (const row of rows) source.rows.set(row[source.key] as RowKey, { ...row });
  }

  /** Records a new run of a sync, in the created state. */
  addExecution(sync: ModelSync, requests: CaptureEntry[] | null, options: { type: SyncExecution['type']; resync: boolean }): SyncExecution {
    const now = new Date().toISOString();
    const execution: SyncExecution = {
      id: randomUUID(),
      syncId: sync.id,
      ordinal: sync.executions.length + 1,
      type: options.type,
      resync: options.resync,
      status: 'created',
      createdAt: now,
      startedAt: null,
      completedAt: null,
      updatedAt: now,
      counts: { total: 0, insert: 0, update: 0, upserts: 0, delete: 0, error: 0, warnings: 0 },
      errors: [],
      batchesDelivered: 0,
      requests,
    };
    sync.executions.push(execution);
    return execution;
  }

  getExecution(sync: ModelSync, id: string): SyncExecution | undefined {
    return sync.executions.find((execution) => execution.id === id);
  }
}
