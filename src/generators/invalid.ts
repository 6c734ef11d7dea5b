import fc from 'fast-check';
import type { JsonSchema } from '../schemas.ts';
import { arbitraryFor, flatten, resolveRef } from './from-schema.ts';

/** A value that breaks exactly one constraint of its schema, and which one. */
export interface Broken {
  value: Record<string, unknown>;
  broken: string;
}

const WRONG_VALUES: Record<string, unknown> = {
  string: 12345,
  integer: 'not-an-integer',
  number: 'not-a-number',
  boolean: 'yes',
  array: 'not-a-list',
  object: 'not-an-object',
  null: 'not-null',
};

function allowedTypes(schema: JsonSchema): string[] {
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

/** A JSON value of a type the schema does not allow; integer 1.5 for integers keeps "number" honest. */
function wrongValueFor(schema: JsonSchema): unknown {
  const allowed = allowedTypes(schema);
  if (allowed.includes('integer') && !allowed.includes('string')) return 'not-an-integer';
  for (const [type, value] of Object.entries(WRONG_VALUES)) {
    const valueType = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? 'integer' : typeof value;
    if (!allowed.includes(type) && !allowed.includes(valueType) && !(valueType === 'integer' && allowed.includes('number'))) return value;
  }
  return { unexpected: true };
}

/**
 * Instances of an object schema with one constraint broken: a required property removed, or one
 * property given a value of a type the schema does not allow. Only type and presence are broken:
 * values the spec leaves open (other modes, formats) are never assumed invalid. A valid base
 * (e.g. the profile's configuration) may be given; otherwise one is generated.
 */
export function brokenArbitrary(ref: string, validArbitrary?: fc.Arbitrary<unknown>): fc.Arbitrary<Broken> {
  const { schema: start, root } = resolveRef(ref.includes('#') ? ref : `${ref}#`, {});
  const { schema } = flatten(start, root);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required as string[]) ?? [];
  const breakers: string[] = [...required.map((k) => `missing:${k}`), ...Object.keys(properties).map((k) => `type:${k}`)];
  if (breakers.length === 0) throw new Error(`no constraint to break in ${ref}`);
  return fc.tuple(validArbitrary ?? arbitraryFor(ref, { allOptional: true }), fc.constantFrom(...breakers)).map(([valid, how]) => {
    const value = { ...(valid as Record<string, unknown>) };
    const [kind, key] = how.split(':') as [string, string];
    if (kind === 'missing') {
      delete value[key];
      return { value, broken: `required property ${key} missing` };
    }
    const wrong = wrongValueFor(flatten(properties[key]!, root).schema);
    value[key] = wrong;
    return { value, broken: `${key} is ${JSON.stringify(wrong)}, a type its schema does not allow` };
  });
}
