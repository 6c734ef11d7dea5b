import type { JsonSchema } from '../schemas.ts';
import { flatten, resolveRef } from './from-schema.ts';

// The coverage phase: cases enumerated from a request schema and tried on every run, before the
// random phase, so that a lenient field is caught on every seed and not on seven in ten. Like
// Schemathesis' coverage phase, only presence and JSON type are broken: values the spec leaves
// open (formats, lengths, other enum values) are never assumed invalid.

/** One named case: the body, and how it departs from the schema (or which valid corner it shows). */
export interface CoverageCase {
  name: string;
  value: Record<string, unknown>;
}

/**
 * Values that look right but have the wrong type, and plain wrong types: a lenient decoder takes
 * "true" for true, "1" or 1 for true, 1.5 for 1, a lone string for a list, [] or {} for anything.
 */
const NEAR_MISSES: readonly unknown[] = ['true', 'false', '1', '', 'a@x.org', 1, 0, 1.5, true, false, null, [], ['x'], {}];

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function allowed(schema: JsonSchema): string[] | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t as string[];
  return typeof t === 'string' ? [t] : undefined;
}

/** Whether the schema's type keyword lets v through (an integer is a number too). */
function typeAllows(types: string[], v: unknown): boolean {
  const t = jsonType(v);
  return types.includes(t) || (t === 'integer' && types.includes('number'));
}

const show = (v: unknown) => JSON.stringify(v);

function objectSchema(ref: string): { properties: Record<string, JsonSchema>; required: string[]; root: JsonSchema } {
  const { schema: start, root } = resolveRef(ref.includes('#') ? ref : `${ref}#`, {});
  const { schema } = flatten(start, root);
  const properties = Object.fromEntries(Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([k, s]) => [k, flatten(s, root).schema]));
  return { properties, required: (schema.required as string[]) ?? [], root };
}

/**
 * Every required property missing; every property given every near miss its type does not allow;
 * every list item given each wrong type. `base` is a valid body the cases depart from by one step.
 */
export function negativeCases(ref: string, base: Record<string, unknown>, only?: (property: string) => boolean): CoverageCase[] {
  const { properties, required } = objectSchema(ref);
  const keep = only ?? (() => true);
  const out: CoverageCase[] = [];
  for (const key of required.filter(keep)) {
    const value = { ...base };
    delete value[key];
    out.push({ name: `${key} missing`, value });
  }
  for (const [key, schema] of Object.entries(properties).filter(([k]) => keep(k))) {
    const types = allowed(schema);
    if (!types) continue;
    for (const wrong of NEAR_MISSES) {
      if (!typeAllows(types, wrong)) out.push({ name: `${key} = ${show(wrong)}`, value: { ...base, [key]: wrong } });
    }
    const items = schema.items as JsonSchema | undefined;
    const itemTypes = types.includes('array') && items ? allowed(items) : undefined;
    if (itemTypes) {
      for (const wrong of NEAR_MISSES) {
        if (!typeAllows(itemTypes, wrong)) out.push({ name: `${key} = [${show(wrong)}]`, value: { ...base, [key]: [wrong] } });
      }
    }
  }
  return out;
}

/** Every valid shape of a bulk error-handling PUT body: an unknown id is 404 whatever the body says (EHB-004). */
export const BULK_VALID_BODIES: ReadonlyArray<Record<string, unknown>> = [
  {},
  { ingestion_failure_threshold: 0 },
  { ingestion_failure_threshold: 3600 },
  { ingestion_failure_threshold: null },
  { subscribers: [] },
  { subscribers: ['dssc-404@example.com'] },
  { subscribers: null },
  { ingestion_failure_threshold: 60, subscribers: ['a@example.com', 'b@example.com'] },
];

/** Bodies that are not objects at all, as raw JSON text. */
export const NOT_OBJECTS: readonly string[] = ['[]', '[{}]', '"settings"', '42', 'true', 'null'];

/**
 * The valid corners: every optional property absent and present (with `sample`'s value), every
 * nullable one null, every enum value, empty lists.
 */
export function positiveCases(ref: string, sample: Record<string, unknown>): CoverageCase[] {
  const { properties, required } = objectSchema(ref);
  const minimal = Object.fromEntries(required.filter((k) => k in sample).map((k) => [k, sample[k]]));
  const out: CoverageCase[] = [{ name: 'only the required properties', value: minimal }, { name: 'every property', value: { ...sample } }];
  for (const [key, schema] of Object.entries(properties)) {
    const types = allowed(schema) ?? [];
    if (!required.includes(key) && key in sample) out.push({ name: `only ${key}`, value: { ...minimal, [key]: sample[key] } });
    if (types.includes('null')) out.push({ name: `${key} = null`, value: { ...minimal, [key]: null } });
    if (types.includes('array') && (schema.minItems ?? 0) === 0) out.push({ name: `${key} = []`, value: { ...minimal, [key]: [] } });
    for (const option of (schema.enum as unknown[] | undefined) ?? []) out.push({ name: `${key} = ${show(option)}`, value: { ...minimal, [key]: option } });
  }
  return out;
}

/**
 * The coverage phase of each check that has one, by requirement ID: the names of its cases, for
 * `dss-conformance coverage` (the checks build the same cases from the profile's real bodies).
 */
export function coverageCaseNames(): Record<string, string[]> {
  const names = (cases: CoverageCase[]) => cases.map((c) => c.name);
  const connection = { name: 'n', type: 't', configuration: {}, redirect_url: 'https://example.com' };
  const database = { hostname: 'h', port: 1, database: 'd', username: 'u', password: 'p' };
  const bulk = { name: 'n', source_connection_id: 's', destination_connection_id: 'd', mode: 'replicate', schedule: { frequency: 'manual' } };
  const update = { auto_retry_record_errors: true, notify_on_record_errors: true, subscribers: ['a@example.com'], warning_notifications: true };
  const required = new Set(['name', 'source_connection_id', 'destination_connection_id', 'mode', 'schedule']);
  return {
    'CONN-004': [...names(negativeCases('connection-request.schema.json', connection)), ...names(negativeCases('connection-request.schema.json#/$defs/relationalDatabase', database)).map((n) => `configuration.${n}`)],
    'BULK-005': names(negativeCases('bulk-sync-request-2023-04-25.schema.json', bulk, (k) => required.has(k))),
    'EHS-005': [...names(positiveCases('sync-error-handling-update.schema.json', update)).filter((n) => !n.endsWith('= null') && n !== 'only the required properties'), 'subscribers with one address'],
    'EHS-006': [...names(negativeCases('sync-error-handling-update.schema.json', {})), ...NOT_OBJECTS.map((raw) => `body ${raw}`)],
    'EHB-004': [...names(negativeCases('bulk-sync-error-handling.schema.json#/$defs/update', {})), ...NOT_OBJECTS.map((raw) => `body ${raw}`), ...BULK_VALID_BODIES.map((b) => `unknown id, body ${JSON.stringify(b)}`)],
  };
}
