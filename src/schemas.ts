import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isIsoUtc } from './iso8601.ts';
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

/**
 * A mailbox as RFC 5321 §4.1.2 writes it, in UTF-8 as RFC 6531 allows: a local part (dot-atoms, or
 * a quoted string), @, a domain (a name, dotted or not, or an address literal in brackets).
 */
const EMAIL_ADDRESS = /^(?:[^\s"@()<>,;:\\[\]]+|"(?:[^"\\\r\n]|\\.)*")@(?:[^\s"@()<>,;:\\[\]]+|\[[^\s\]]+\])$/u;
export const isEmailAddress = (text: string): boolean => EMAIL_ADDRESS.test(text);

/**
 * A URL a person can open in a browser: what the URL Standard (WHATWG) parses, with the http or
 * https scheme in any case and an authority (//), and no whitespace or control character (which a
 * parser would strip or encode). Wider than ajv's "uri" (RFC 3986, ASCII only): a path or query
 * in Unicode, or an internationalised host name, is a URL too.
 */
export function isWebUrl(text: string): boolean {
  if (!/^https?:\/\/[^/?#\\]/i.test(text) || /[\s\p{Cc}]/u.test(text)) return false;
  try {
    return new URL(text).host !== '';
  } catch {
    return false;
  }
}

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
    // ISO 8601 as the spec names it (the delivery timestamp), wider than ajv's RFC 3339 date-time.
    ajv.addFormat('iso8601-utc', { type: 'string', validate: isIsoUtc });
    // "E-mail addresses" as a target answers them, wider than ajv's "email" (ASCII, a dot in the domain).
    ajv.addFormat('email-address', { type: 'string', validate: isEmailAddress });
    ajv.addFormat('web-url', { type: 'string', validate: isWebUrl });
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
