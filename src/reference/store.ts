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
  sourceObjects: readonly string[];
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

/** One run of a model sync. Runs are added by a later issue; the shape is the minimum it will need. */
export interface SyncExecution {
  id: string;
  status: string;
  startedAt: string;
  finishedAt: string | null;
}

export interface ModelSync {
  id: string;
  name: string;
  mode: string;
  target: { connection_id: string; object: string; configuration?: Record<string, unknown> };
  fields: unknown[];
  sync_all_records: boolean;
  skip_initial_backfill: boolean;
  schedule: Record<string, unknown>;
  errorHandling: SyncErrorHandling;
  /** Runs, oldest first (filled once runs exist). */
  executions: SyncExecution[];
  /** Row key to the hash last delivered for it: what makes later runs differential (Spec › What the service does 3). */
  deliveredHashes: Map<string, string>;
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
}
