export { buildReference, createReference, type Reference } from './build.ts';
export { startReference, DEFAULT_HOST, type RunningReference } from './start.ts';
export type { ReferenceOptions, ReferenceConfig } from './config.ts';
export { ERROR_KEYS, ApiError, type ErrorKey, type ErrorBody } from './errors.ts';
export { CONNECTION_KINDS, type ConnectionKind } from './connection-kinds.ts';
export { DEFAULT_VERSION, knownVersions, type VersionRules } from './versions.ts';
export { FAULTS, faultNames, faultCatalogue, type Fault, type ReferenceSeams } from './faults.ts';
export { Store } from './store.ts';
export type { Connection, BulkSync, ModelSync, SyncErrorHandling, BulkSyncErrorHandling, SyncExecution } from './store.ts';
