import type { JsonSchema } from '../schemas.ts';
import { flatten, resolveRef } from './from-schema.ts';
import { fieldShape } from '../report/input-space-classify.ts';
import { values } from './input-space.ts';

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

/** A valid item of a list of strings (an address where the schema says email), to surround a wrong one with. */
function validItem(items: JsonSchema): string | undefined {
  if (items.type !== 'string') return undefined;
  return items.format === 'email' ? 'dssc-item@example.com' : 'dssc-item';
}

/**
 * Every required property missing; every property given every near miss its type does not allow;
 * every list item given each wrong type, alone and after valid items. `base` is a valid body the cases depart from by one step.
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
      // Alone, and after valid items (in the middle, and last): a check of the first item only,
      // or of all but the last, passes a wrong item anywhere else.
      const ok = validItem(items!);
      for (const wrong of NEAR_MISSES) {
        if (typeAllows(itemTypes, wrong)) continue;
        out.push({ name: `${key} = [${show(wrong)}]`, value: { ...base, [key]: [wrong] } });
        if (ok === undefined) continue;
        out.push({ name: `${key} = [${show(ok)}, ${show(wrong)}, ${show(ok)}]`, value: { ...base, [key]: [ok, wrong, ok] } });
        out.push({ name: `${key} = [${show(ok)}, ${show(wrong)}]`, value: { ...base, [key]: [ok, wrong] } });
      }
    }
  }
  return out;
}

/**
 * The cases of one field of `cases` (named "<field> missing", "<field> = …") that stand for each
 * class of the field-shape dimension once: missing, null, its first wrong type and its first
 * look-alike (as `coverage --input-space` classes them: a rule broken for a look-alike only is seen).
 */
function onePerShape(ref: string, cases: CoverageCase[]): CoverageCase[] {
  const { properties, required } = objectSchema(ref);
  const seen = new Set<string>();
  return cases.filter((c) => {
    const field = c.name.split(' ')[0]!;
    const schema = properties[field];
    const shape = c.name.endsWith(' missing') ? 'absent' : schema ? (fieldShape(c.value[field], schema, required.includes(field))?.shape ?? c.name) : c.name;
    if (seen.has(`${field} ${shape}`)) return false;
    seen.add(`${field} ${shape}`);
    return true;
  });
}

/**
 * CONN-004's coverage phase: kind × every field of that kind. Each kind's configuration fields get
 * every case (a kind whose own validation is lenient is seen); the top-level fields get every case
 * on `full`'s body and one case per shape class on each other kind's (a rule skipped for one kind).
 * Marketing's configuration has no fields: its {} is CONN-003's. `bases` are valid bodies by kind.
 */
export function connectionShapeCases(bases: Partial<Record<string, Record<string, unknown>>>, full: string): CoverageCase[] {
  const out: CoverageCase[] = [];
  for (const [kind, base] of Object.entries(bases)) {
    if (!base) continue;
    const top = negativeCases('connection-request.schema.json', base);
    out.push(...(kind === full ? top : onePerShape('connection-request.schema.json', top)).map((c) => ({ name: `${kind}: ${c.name}`, value: c.value })));
    if (kind === 'marketing') continue;
    const configuration = base.configuration as Record<string, unknown>;
    const inner = negativeCases(`connection-request.schema.json#/$defs/${kind}`, configuration);
    out.push(...inner.map((c) => ({ name: `${kind}: configuration.${c.name}`, value: { ...base, configuration: c.value } })));
  }
  return out;
}

/** A departing value of each field-shape class, by the JSON type the field takes. */
const DEPARTURES: Record<'string' | 'object' | 'array', Record<'null' | 'wrong type' | 'look-alike', unknown>> = {
  string: { null: null, 'wrong type': {}, 'look-alike': 5 },
  object: { null: null, 'wrong type': 'csv', 'look-alike': [] },
  array: { null: null, 'wrong type': {}, 'look-alike': 'x' },
};

/** A copy of `base` with the field at `path` (dot-separated) set to `value`, or removed when `value` is ABSENT_FIELD. */
export const ABSENT_FIELD = Symbol('absent');
function withField(base: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = path as [string, ...string[]];
  const copy = { ...base };
  if (rest.length > 0) copy[head] = withField((base[head] ?? {}) as Record<string, unknown>, rest, value);
  else if (value === ABSENT_FIELD) delete copy[head];
  else copy[head] = value;
  return copy;
}

/**
 * BULK-005's and BULK-006's walk of bulk-sync-field × field-shape beyond the top-level required
 * fields (negativeCases has those). Required (BULK-005): schedule.frequency ('Holds frequency'),
 * the connection ids at their bound (an empty id names no connection), and the destination
 * settings with what they hold, which the kit reads as required for a destination the profile
 * gives settings for (README: destination settings "depends"; VER-004). Optional (BULK-006):
 * schemas. `settingsKey` is the version's spelling; `objectName` a source object (a lone string).
 */
export function bulkShapeCases(base: Record<string, unknown>, settingsKey: string, objectName = 'x'): { required: CoverageCase[]; optional: CoverageCase[] } {
  const shapes = ['null', 'wrong type', 'look-alike'] as const;
  const required: CoverageCase[] = [{ name: 'schedule.frequency absent', value: withField(base, ['schedule', 'frequency'], ABSENT_FIELD) }];
  for (const shape of shapes) required.push({ name: `schedule.frequency ${shape}`, value: withField(base, ['schedule', 'frequency'], DEPARTURES.string[shape]) });
  for (const id of ['source_connection_id', 'destination_connection_id']) required.push({ name: `${id} boundary (empty)`, value: withField(base, [id], '') });
  const settings = base[settingsKey] as Record<string, unknown> | undefined;
  if (settings) {
    for (const shape of shapes) required.push({ name: `destination settings ${shape}`, value: withField(base, [settingsKey], DEPARTURES.object[shape]) });
    required.push({ name: 'destination settings boundary ({})', value: withField(base, [settingsKey], {}) });
    required.push({ name: 'destination settings absent', value: withField(base, [settingsKey], ABSENT_FIELD) });
    for (const field of ['format', 'schema'].filter((f) => f in settings)) {
      for (const shape of shapes) required.push({ name: `destination settings.${field} ${shape}`, value: withField(base, [settingsKey, field], DEPARTURES.string[shape]) });
      if (field === 'schema') required.push({ name: 'destination settings.schema boundary (empty)', value: withField(base, [settingsKey, field], '') });
    }
  }
  const optional: CoverageCase[] = [];
  for (const shape of shapes) optional.push({ name: `schemas ${shape}`, value: withField(base, ['schemas'], shape === 'look-alike' ? objectName : DEPARTURES.array[shape]) });
  return { required, optional };
}

/**
 * The valid edges the schema states: each integer at its minimum and maximum, each plain string
 * (no format: a host or URL of one letter would be looked up) at its minLength. Sent as valid.
 * Without `strings` only the integers: a database's names and credentials reach a real database.
 */
export function boundaryCases(ref: string, base: Record<string, unknown>, strings = true): CoverageCase[] {
  const { properties } = objectSchema(ref);
  const out: CoverageCase[] = [];
  for (const [key, schema] of Object.entries(properties)) {
    const types = allowed(schema) ?? [];
    if (types.includes('integer')) {
      for (const edge of [schema.minimum, schema.maximum]) if (typeof edge === 'number') out.push({ name: `${key} = ${edge}`, value: { ...base, [key]: edge } });
    }
    if (strings && types.includes('string') && schema.format === undefined && typeof schema.minLength === 'number') {
      out.push({ name: `${key} of length ${schema.minLength}`, value: { ...base, [key]: 'x'.repeat(schema.minLength) } });
    }
  }
  return out;
}

/** A value of each `string-form`: lower-case letters with the form's characters, valid for any name field. */
const STRING_FORMS: Readonly<Record<string, string>> = { dotted: 'dssc.form.a1', hyphenated: 'dssc-form-a1', 'with-digits': 'dssc2form01' };

/**
 * One case per value of the `string-form` dimension, with every free string of the configuration
 * (no format, no pattern) written in that form at once: the random phase writes words of letters,
 * so a field that refuses a dot or a hyphen (a bucket name checked against the wrong rules) is
 * reached only here. None when the configuration has no free string.
 */
export function stringFormCases(ref: string, base: Record<string, unknown>): Array<CoverageCase & { form: string }> {
  const { properties } = objectSchema(ref);
  const free = Object.entries(properties)
    .filter(([, schema]) => (allowed(schema) ?? []).includes('string') && schema.format === undefined && schema.pattern === undefined)
    .map(([key]) => key);
  if (free.length === 0) return [];
  return values<string>('string-form').map((form) => {
    const text = STRING_FORMS[form];
    if (text === undefined) throw new Error(`no value is made for the string-form ${form} of input-space.json`);
    return { name: `${free.join(', ')} ${form} (${text})`, value: { ...base, ...Object.fromEntries(free.map((key) => [key, text])) }, form };
  });
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
  const connection = (configuration: Record<string, unknown>) => ({ name: 'n', type: 't', configuration, redirect_url: 'https://example.com' });
  const kinds = {
    crm: connection({ domain: 'https://crm.example.com' }),
    marketing: connection({}),
    objectStore: connection({ cloud_access_key_id: 'a', cloud_secret_access_key: 's', object_store_bucket_region: 'r', object_store_bucket_name: 'b' }),
    relationalDatabase: connection({ hostname: 'h', port: 1, database: 'd', username: 'u', password: 'p' }),
  };
  const bulk = { name: 'n', source_connection_id: 's', destination_connection_id: 'd', mode: 'replicate', schedule: { frequency: 'manual' } };
  const bulkWith = { ...bulk, destination_configuration: { format: 'csv' } };
  const update = { auto_retry_record_errors: true, notify_on_record_errors: true, subscribers: ['a@example.com'], warning_notifications: true };
  const required = new Set(['name', 'source_connection_id', 'destination_connection_id', 'mode', 'schedule']);
  return {
    'CONN-001': (['objectStore', 'relationalDatabase'] as const).flatMap((k) => names(boundaryCases(`connection-request.schema.json#/$defs/${k}`, kinds[k].configuration, k !== 'relationalDatabase')).map((n) => `${k}: configuration.${n}`)),
    'CONN-004': names(connectionShapeCases(kinds, 'relationalDatabase')),
    'BULK-005': [
      ...names(negativeCases('bulk-sync-request-2023-04-25.schema.json', bulk, (k) => required.has(k))),
      ...names(bulkShapeCases(bulkWith, 'destination_configuration').required),
      ...names(bulkShapeCases({ ...bulk, destination_configuration: { schema: 's' } }, 'destination_configuration').required).filter((n) => n.includes('.schema')).map((n) => `relationalDatabase destination: ${n}`),
    ],
    'BULK-006': names(bulkShapeCases(bulkWith, 'destination_configuration').optional),
    'EHS-005': [...names(positiveCases('sync-error-handling-update.schema.json', update)).filter((n) => !n.endsWith('= null') && n !== 'only the required properties'), 'subscribers with one address'],
    'EHS-006': [...names(negativeCases('sync-error-handling-update.schema.json', {})), ...NOT_OBJECTS.map((raw) => `body ${raw}`)],
    'EHB-004': [...names(negativeCases('bulk-sync-error-handling.schema.json#/$defs/update', {})), ...NOT_OBJECTS.map((raw) => `body ${raw}`), ...BULK_VALID_BODIES.map((b) => `unknown id, body ${JSON.stringify(b)}`)],
  };
}
