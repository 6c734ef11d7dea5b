import { schemas } from '../schemas.ts';

/** What the reference knows about one connector kind. */
export interface ConnectionKind {
  /** The kind of the spec (Spec › configuration by kind) this type identifier stands for. */
  specKind: 'crm' | 'marketing' | 'objectStore' | 'relationalDatabase' | 'webhook';
  /** Display name: answers carry the type as {id, name}, as the real service's do (the spec shows no answer). */
  name: string;
  /** Fragment of connection-request.schema.json that validates the configuration. */
  configurationSchema: string;
  /** OAuth kinds answer creation with auth_url (Spec › Connection response). */
  oauth: boolean;
  /** The source objects its schema cache holds once ready; empty: cannot be a bulk sync source. */
  sourceObjects: readonly string[];
  /** Configuration fields the caller sends that are never answered back (x-secret in the schema, and secret extra settings). */
  secretFields: readonly string[];
  /**
   * Settings the spec does not show that the real service takes, accepted beside the schema's
   * (which for the marketing kind allows none): name -> JSON type. Checks never send them.
   */
  extraSettings: Readonly<Record<string, 'boolean' | 'string'>>;
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

type KindFacts = Omit<ConnectionKind, 'specKind' | 'configurationSchema' | 'secretFields' | 'extraSettings'> & {
  extraSettings?: ConnectionKind['extraSettings'];
  extraSecrets?: readonly string[];
};

function kind(specKind: ConnectionKind['specKind'], { extraSettings = {}, extraSecrets = [], ...rest }: KindFacts): ConnectionKind {
  return {
    specKind,
    configurationSchema: `connection-request.schema.json#/$defs/${specKind}`,
    secretFields: [...secretFieldsOf(specKind), ...extraSecrets],
    extraSettings,
    ...rest,
  };
}

/** Type identifiers are not shown by the spec; these are the reference's (and its target profile's). */
export const CONNECTION_KINDS: Readonly<Record<string, ConnectionKind>> = {
  salesforce: kind('crm', { name: 'Salesforce', oauth: true, sourceObjects: ['Account', 'Contact', 'Lead', 'Opportunity'], destinationSettings: null }),
  hubspot: kind('marketing', {
    name: 'HubSpot',
    oauth: true,
    sourceObjects: ['companies', 'contacts', 'deals'],
    destinationSettings: null,
    // The real service's optional settings; the spec's marketing configuration is the empty object.
    extraSettings: { include_static_list_support: 'boolean', use_search_api: 'boolean', client_id: 'string', client_secret: 'string', oauth_refresh_token: 'string' },
    extraSecrets: ['client_secret', 'oauth_refresh_token'],
  }),
  s3: kind('objectStore', {
    name: 'Amazon S3',
    oauth: false,
    sourceObjects: ['events.csv', 'users.csv'],
    // Spec › Bulk sync: format 'Allowed value shown: csv.'
    destinationSettings: { field: 'format', check: (v) => (v === 'csv' ? null : 'must be "csv"') },
  }),
  postgresql: kind('relationalDatabase', {
    name: 'PostgreSQL',
    oauth: false,
    sourceObjects: ['public.orders', 'public.users'],
    destinationSettings: { field: 'schema', check: (v) => (typeof v === 'string' && v !== '' ? null : 'must be a non-empty string') },
  }),
  webhook: kind('webhook', { name: 'Webhook', oauth: false, sourceObjects: [], destinationSettings: null }),
};

export function connectionKind(type: string): ConnectionKind | undefined {
  return Object.hasOwn(CONNECTION_KINDS, type) ? CONNECTION_KINDS[type] : undefined;
}
