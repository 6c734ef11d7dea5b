/** What differs between API versions, as far as the reference serves them (Spec › Versioning). */
export interface VersionRules {
  /** Schema file that validates POST /api/bulk/syncs under this version. */
  bulkSyncSchema: string;
  /** How this version spells the bulk sync destination settings object. */
  destinationField: DestinationField;
}

export type DestinationField = 'destination_configuration' | 'dest_configuration';

export const VERSION_HEADER = 'x-service-version';

/** Spec › Versioning 2: labelled the default. Also the reference's answer when the header is omitted. */
export const DEFAULT_VERSION = '2025-09-18';

export const RENAMED: VersionRules = {
  bulkSyncSchema: 'bulk-sync-request-2023-04-25.schema.json',
  destinationField: 'destination_configuration',
};

export const BEFORE_RENAME: VersionRules = {
  bulkSyncSchema: 'bulk-sync-request-2022-12-12.schema.json',
  destinationField: 'dest_configuration',
};

/**
 * The known versions, newest first (Spec › Versioning 2). 2021-05-23 uses dest_configuration:
 * the spec shows the rename happening in 2023-04-25 and no other difference, so an older version
 * keeps the older spelling (interpretation, README.md › Interpretations).
 */
export function knownVersions(): Map<string, VersionRules> {
  return new Map([
    ['2025-09-18', RENAMED],
    ['2024-02-08', RENAMED],
    ['2023-04-25', RENAMED],
    ['2022-12-12', BEFORE_RENAME],
    ['2021-05-23', BEFORE_RENAME],
  ]);
}

export function otherSpelling(field: DestinationField): DestinationField {
  return field === 'destination_configuration' ? 'dest_configuration' : 'destination_configuration';
}
