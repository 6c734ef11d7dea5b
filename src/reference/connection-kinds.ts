import { schemas } from '../schemas.ts';

/** What the reference knows about one connector kind. */
export interface ConnectionKind {
  /** The kind of the spec (Spec › configuration by kind) this type identifier stands for. */
  specKind: 'crm' | 'marketing' | 'objectStore' | 'relationalDatabase' | 'webhook';
  /** Fragment of connection-request.schema.json that validates the configuration. */
  configurationSchema: string;
  /** OAuth kinds answer creation with auth_url (Spec › Connection response). */
  oauth: boolean;
  /** The source objects its schema cache holds once ready; empty: cannot be a bulk sync source. */
  sourceObjects: readonly string[];
  /** Configuration fields the caller sends that are never answered back (x-secret in the schema). */
  secretFields: readonly string[];
  /** The destination settings a bulk sync into this kind must carry, if any. */
  destinationSettings: DestinationSettingsRule | null;
}

export interface DestinationSettingsRule {
  field: 'format' | 'schema';
  /** Why a value is wrong, or null when it is fine. */
  check: (value: unknown) => string | null;
}

function secretFieldsOf(def: string): string[] {
  const root = schemas['connection-request.schema.json'] as { $defs: Record<string, { properties?: Record<string, { 'x-secret'?: boolean }> }> };
  const properties = root.$defs[def]?.properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property['x-secret'] === true)
    .map(([name]) => name);
}

function kind(specKind: ConnectionKind['specKind'], rest: Omit<ConnectionKind, 'specKind' | 'configurationSchema' | 'secretFields'>): ConnectionKind {
  return {
    specKind,
    configurationSchema: `connection-request.schema.json#/$defs/${specKind}`,
    secretFields: secretFieldsOf(specKind),
    ...rest,
  };
}

/** Type identifiers are not shown by the spec; these are the reference's (and its target profile's). */
export const CONNECTION_KINDS: Readonly<Record<string, ConnectionKind>> = {
  salesforce: kind('crm', { oauth: true, sourceObjects: ['Account', 'Contact', 'Lead', 'Opportunity'], destinationSettings: null }),
  hubspot: kind('marketing', { oauth: true, sourceObjects: ['companies', 'contacts', 'deals'], destinationSettings: null }),
  s3: kind('objectStore', {
    oauth: false,
    sourceObjects: ['events.csv', 'users.csv'],
    // Spec › Bulk sync: format 'Allowed value shown: csv.'
    destinationSettings: { field: 'format', check: (v) => (v === 'csv' ? null : 'must be "csv"') },
  }),
  postgresql: kind('relationalDatabase', {
    oauth: false,
    sourceObjects: ['public.orders', 'public.users'],
    destinationSettings: { field: 'schema', check: (v) => (typeof v === 'string' && v !== '' ? null : 'must be a non-empty string') },
  }),
  webhook: kind('webhook', { oauth: false, sourceObjects: [], destinationSettings: null }),
};

export function connectionKind(type: string): ConnectionKind | undefined {
  return Object.hasOwn(CONNECTION_KINDS, type) ? CONNECTION_KINDS[type] : undefined;
}
