import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { schemasDir } from './paths.ts';

// ajv-formats is CommonJS; under nodenext its default import is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export const SCHEMA_BASE = 'https://dss-conformance.dev/schemas/';

export type JsonSchema = Record<string, unknown>;

/** Every schema in schemas/, by file name (e.g. "error-body.schema.json"). */
export const schemas: Readonly<Record<string, JsonSchema>> = Object.fromEntries(
  readdirSync(schemasDir)
    .filter((f) => f.endsWith('.schema.json'))
    .map((f) => [f, JSON.parse(readFileSync(join(schemasDir, f), 'utf8')) as JsonSchema]),
);

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function instance(): Ajv2020 {
  if (!ajv) {
    // The schemas are the kit's own files, checked against the JSON Schema meta-schema by
    // test/suite/schema-files.test.ts: compiling the meta-schema again in each run's every thread cost
    // ~0.05 s of CPU each time.
    ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, validateSchema: false });
    ajv.addKeyword({ keyword: 'x-secret', schemaType: 'boolean' });
    addFormats(ajv);
    for (const schema of Object.values(schemas)) ajv.addSchema(schema);
  }
  return ajv;
}

/**
 * A validator for a schema file or a fragment of one, e.g. "sync-error-handling.schema.json#/$defs/response".
 * Compiled once per process.
 */
export function validator(ref: string): ValidateFunction {
  let fn = compiled.get(ref);
  if (!fn) {
    const id = ref.startsWith('http') ? ref : SCHEMA_BASE + ref;
    fn = instance().getSchema(id);
    if (!fn) throw new Error(`unknown schema ${ref}`);
    compiled.set(ref, fn);
  }
  return fn;
}

/** Schema errors as short lines, e.g. "/subscribers/0 must match format \"email\"". */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`);
}

export function validate(ref: string, value: unknown): string[] {
  const fn = validator(ref);
  return fn(value) ? [] : describeErrors(fn.errors);
}
