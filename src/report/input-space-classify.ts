import type { DimensionValue } from '../generators/input-space.ts';
import { schemas, type JsonSchema } from '../schemas.ts';
import type { LoggedRequest } from './request-log.ts';

// The request-level dimensions of input-space.json, read back from requests.json: one small
// classifier per dimension (version and credential from the logged headers, the unknown id's shape
// from the path, list and string lengths from the body, the kind from the body's type, the field
// shape by comparing each field with its schema). `coverage --input-space` counts what they find.

/** One thing a request showed: an operation of input-space.json and the values it took together. */
export interface Observation {
  operation: string;
  values: Record<string, DimensionValue>;
}

export interface ClassifyContext {
  /** The profile's connection type identifiers by kind (kinds.<kind>.type), when known. */
  kindTypes?: Record<string, string>;
}

/** requests.json writes the 8-character run id as <run>: lengths are counted with the run id's length. */
const RUN_ID_LENGTH = 8;

const ABSENT = Symbol('absent');
type Field = unknown | typeof ABSENT;

const OPERATIONS: Array<[string, RegExp]> = [
  ['POST /api/connections', /^POST \/api\/connections$/],
  ['POST /api/bulk/syncs', /^POST \/api\/bulk\/syncs$/],
  ['GET /api/bulk/syncs/{id}/error-handling', /^GET \/api\/bulk\/syncs\/([^/]+)\/error-handling$/],
  ['PUT /api/syncs/{id}/error-handling', /^PUT \/api\/syncs\/([^/]+)\/error-handling$/],
];

export function classifyRequests(requests: readonly LoggedRequest[], context: ClassifyContext = {}): Observation[] {
  return requests.flatMap((r) => classifyRequest(r, context));
}

export function classifyRequest(request: LoggedRequest, context: ClassifyContext = {}): Observation[] {
  const path = request.path.split('?')[0]!;
  const found = OPERATIONS.map(([op, re]) => [op, re.exec(`${request.method} ${path}`)] as const).find(([, m]) => m);
  if (!found) return [];
  const [operation, match] = found;
  const base: Record<string, DimensionValue> = {};
  if (request.version !== undefined) base.version = request.version;
  if (request.credential !== undefined) base.credential = request.credential;
  if (request.contentType !== undefined) base['content-type'] = request.contentType;
  const id = match![1];
  if (id !== undefined) {
    const shape = unknownIdShape(id);
    if (shape) base['unknown-id'] = shape;
  }
  let body: unknown = ABSENT;
  if (request.body !== undefined) {
    try {
      // requests.json writes the source database's port (an integer) as "<source-db-port>".
      body = JSON.parse(request.body.split('"<source-db-port>"').join('5432')) as unknown;
    } catch {
      // Not JSON: no field to classify.
    }
  }
  const record = body !== ABSENT && isObject(body) ? body : undefined;
  // The one list a body holds goes with every other value of the request (field-shape × list-length).
  const list = listLength(operation, record);
  if (list !== undefined) base['list-length'] = list;
  const out: Observation[] = [{ operation, values: base }];
  const extra = (values: Record<string, DimensionValue>) => out.push({ operation, values: { ...base, ...values } });
  // A subscriber is an e-mail address, whose lengths are their own dimension (address-length).
  for (const s of freeStrings(operation, record)) extra({ [operation === 'PUT /api/syncs/{id}/error-handling' ? 'address-length' : 'string-length']: s });
  if (operation === 'POST /api/connections' && body !== ABSENT) connectionShapes(body, context, base, extra);
  if (operation === 'POST /api/bulk/syncs' && body !== ABSENT) bulkShapes(body, request.version, base, extra);
  if (operation === 'PUT /api/syncs/{id}/error-handling') {
    // A PUT without a body: the body itself absent.
    if (request.body === undefined) extra({ 'error-handling-field': '(body)', 'field-shape': 'absent' });
    else if (body !== ABSENT) updateShapes(body, extra);
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const withRunId = (s: string) => s.split('<run>').join('r'.repeat(RUN_ID_LENGTH));

/** The shape of an id in a path that the target did not assign (an assigned one is `<idN>`). */
export function unknownIdShape(segment: string): DimensionValue | undefined {
  if (/^<id\d+>$/.test(segment)) return undefined;
  let id = withRunId(segment);
  try {
    id = decodeURIComponent(id);
  } catch {
    return '<url-special-unknown>';
  }
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return '<uuid-unknown>';
  if (/[ %/?#]/.test(id)) return '<url-special-unknown>';
  if (id.length >= 200) return '<long-unknown>';
  return '<opaque-unknown>';
}

/** The length class of a free string: an exact length of the model, or non-ASCII. */
export function stringLength(s: string): DimensionValue | undefined {
  if (s.includes('[REDACTED]')) return undefined;
  const text = withRunId(s);
  if (/[^\u0000-\u007f]/.test(text)) return '<non-ascii>';
  return [...text].length;
}

function freeStrings(operation: string, body: Record<string, unknown> | undefined): DimensionValue[] {
  if (!body) return [];
  const strings: unknown[] = [];
  if (operation === 'POST /api/connections' || operation === 'POST /api/bulk/syncs') strings.push(body.name);
  if (operation === 'PUT /api/syncs/{id}/error-handling' && Array.isArray(body.subscribers)) strings.push(...(body.subscribers as unknown[]));
  return strings.filter((s): s is string => typeof s === 'string').map(stringLength).filter((v): v is DimensionValue => v !== undefined);
}

function listLength(operation: string, body: Record<string, unknown> | undefined): number | undefined {
  const list = operation === 'POST /api/bulk/syncs' ? body?.schemas : operation === 'PUT /api/syncs/{id}/error-handling' ? body?.subscribers : undefined;
  return Array.isArray(list) ? list.length : undefined;
}

// ---- field shapes -------------------------------------------------------------------------------

interface Shape {
  field: string;
  shape: string;
  /** The value breaks its schema (a departure); a request with two departures shows no single field's shape. */
  departs: boolean;
}

function types(schema: JsonSchema): string[] {
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** A wrong type that reads like the right one: "5432" or 1.5 for an integer, "true" or 1 for a boolean, a number for a string, a lone string for a list, [] for an object. */
function looksAlike(v: unknown, allowed: string[]): boolean {
  const t = jsonType(v);
  if ((allowed.includes('integer') || allowed.includes('number')) && (t === 'number' || (t === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v as string)))) return true;
  if (allowed.includes('boolean') && ((t === 'string' && /^(true|false|0|1)$/i.test(v as string)) || v === 0 || v === 1)) return true;
  if (allowed.includes('string') && (t === 'integer' || t === 'number' || t === 'boolean')) return true;
  if (allowed.includes('array') && t === 'string') return true;
  if (allowed.includes('object') && (t === 'array' || (t === 'string' && (v as string).trim().startsWith('{')))) return true;
  return false;
}

/** The shape of one field's value against its schema, if it has one worth naming. */
export function fieldShape(value: Field, schema: JsonSchema, required: boolean): { shape: string; departs: boolean } | undefined {
  if (value === ABSENT) return { shape: 'absent', departs: required };
  const allowed = types(schema);
  if (value === null) return { shape: 'null', departs: !allowed.includes('null') };
  const t = jsonType(value);
  if (allowed.length > 0 && !allowed.includes(t) && !(t === 'integer' && allowed.includes('number'))) return { shape: looksAlike(value, allowed) ? 'look-alike' : 'wrong type', departs: true };
  const n = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  if (typeof value === 'string') {
    const min = n('minLength') ?? 0;
    const max = n('maxLength');
    const pattern = typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value);
    const past = value.length < min || (max !== undefined && value.length > max) || pattern;
    if (past || value.length <= Math.max(1, min) || (max !== undefined && value.length >= max)) return { shape: 'boundary', departs: past };
  } else if (typeof value === 'number') {
    const [lo, hi] = [n('minimum'), n('maximum')];
    const past = (lo !== undefined && value < lo) || (hi !== undefined && value > hi);
    if (past || value === lo || value === hi || value <= 0) return { shape: 'boundary', departs: past };
  } else if (Array.isArray(value)) {
    const max = n('maxItems');
    const past = value.length < (n('minItems') ?? 0) || (max !== undefined && value.length > max);
    if (past || value.length === 0 || value.length === max) return { shape: 'boundary', departs: past };
  } else if (isObject(value)) {
    const size = Object.keys(value).length;
    const max = n('maxProperties');
    const past = max !== undefined && size > max;
    if (past || size === 0) return { shape: 'boundary', departs: past };
  }
  return undefined;
}

function objectFields(prefix: string, value: Record<string, unknown>, schema: JsonSchema): Shape[] {
  const required = (schema.required as string[] | undefined) ?? [];
  const out: Shape[] = [];
  for (const [key, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const s = fieldShape(key in value ? value[key] : ABSENT, sub, required.includes(key));
    if (s) out.push({ field: `${prefix}${key}`, ...s });
  }
  return out;
}

/** The shapes a request shows: with one departure, that field's; with none, every valid corner; with more, nothing. */
function emit(shapes: Shape[], fieldDimension: string, extra: (v: Record<string, DimensionValue>) => void, label: (field: string) => string | undefined): void {
  const departures = shapes.filter((s) => s.departs);
  if (departures.length > 1) return;
  for (const s of departures.length === 1 ? departures : shapes) {
    const field = label(s.field);
    if (field !== undefined) extra({ [fieldDimension]: field, 'field-shape': s.shape });
  }
}

const CONNECTION = () => schemas['connection-request.schema.json']!;
const CONFIGURATION_KINDS = ['crm', 'marketing', 'objectStore', 'relationalDatabase'] as const;

/** The kind of a connection body: by its type (the profile's identifiers), else by its configuration's fields. */
export function connectionKind(body: Record<string, unknown>, context: ClassifyContext): string | undefined {
  const byType = Object.entries(context.kindTypes ?? {}).find(([, type]) => type === body.type)?.[0];
  if (byType) return byType;
  const config = body.configuration;
  if (!isObject(config)) return undefined;
  const keys = Object.keys(config);
  const defs = CONNECTION().$defs as Record<string, JsonSchema>;
  if (keys.length === 0) return 'marketing';
  // The kind whose fields the configuration shares most.
  let best: string | undefined;
  let bestCount = 0;
  for (const kind of CONFIGURATION_KINDS) {
    const count = Object.keys((defs[kind]!.properties ?? {}) as object).filter((k) => keys.includes(k)).length;
    if (count > bestCount) [best, bestCount] = [kind, count];
  }
  return best;
}

function connectionShapes(body: unknown, context: ClassifyContext, base: Record<string, DimensionValue>, extra: (v: Record<string, DimensionValue>) => void): void {
  if (!isObject(body)) return;
  const kind = connectionKind(body, context);
  if (kind === undefined) return;
  base.kind = kind;
  const def = (CONNECTION().$defs as Record<string, JsonSchema>)[kind];
  // The configuration object is held to its kind's bounds too (the marketing kind's is empty).
  const properties = { ...(CONNECTION().properties as Record<string, JsonSchema>) };
  if (def) properties.configuration = { ...properties.configuration, ...(def.maxProperties !== undefined ? { maxProperties: def.maxProperties } : {}) };
  const shapes = objectFields('', body, { ...CONNECTION(), properties });
  if (def && isObject(body.configuration)) shapes.push(...objectFields('configuration.', body.configuration, def));
  emit(shapes, 'connection-field', extra, (f) => `${kind} ${f}`);
}

function bulkShapes(body: unknown, version: string | undefined, base: Record<string, DimensionValue>, extra: (v: Record<string, DimensionValue>) => void): void {
  if (!isObject(body)) return;
  const schema = schemas['bulk-sync-request.schema.json']!;
  const settingsKey = version === '2022-12-12' ? 'dest_configuration' : 'destination_configuration';
  const settings = body[settingsKey];
  if (isObject(settings)) {
    if ('format' in settings) base['destination-kind'] = 'objectStore';
    else if ('schema' in settings) base['destination-kind'] = 'relationalDatabase';
  }
  const shapes = objectFields('', body, schema);
  if (isObject(body.schedule)) shapes.push(...objectFields('schedule.', body.schedule, (schema.properties as Record<string, JsonSchema>).schedule!));
  const settingsSchema = (schema.$defs as Record<string, JsonSchema>).destinationSettings!;
  const s = fieldShape(settingsKey in body ? settings : ABSENT, settingsSchema, false);
  if (s) shapes.push({ field: 'destination settings', ...s });
  if (isObject(settings)) shapes.push(...objectFields('destination settings.', settings, settingsSchema));
  emit(shapes, 'bulk-sync-field', extra, (f) => f);
}

function updateShapes(body: unknown, extra: (v: Record<string, DimensionValue>) => void): void {
  const schema = schemas['sync-error-handling-update.schema.json']!;
  const whole = fieldShape(body, { type: 'object' }, true);
  if (!isObject(body)) {
    if (whole) extra({ 'error-handling-field': '(body)', 'field-shape': whole.shape });
    return;
  }
  const shapes = objectFields('', body, schema);
  if (whole) shapes.push({ field: '(body)', ...whole });
  if (Array.isArray(body.subscribers)) {
    const items = (schema.properties as Record<string, JsonSchema>).subscribers!.items as JsonSchema;
    for (const item of body.subscribers as unknown[]) {
      const s = fieldShape(item, items, true);
      if (s) shapes.push({ field: 'subscribers[]', ...s });
    }
  }
  emit(shapes, 'error-handling-field', extra, (f) => f);
}
