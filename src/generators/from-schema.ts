import fc from 'fast-check';
import type { Faker } from '@faker-js/faker';
// The English locale's entry, not the package's: that one loads every locale (~0.2 s of CPU in each
// run's worker); its instance carries the class and the definitions (en over base) built below.
import { faker as english } from '@faker-js/faker/locale/en';
import { schemas, SCHEMA_BASE, type JsonSchema } from '../schemas.ts';

// A converter for the subset of JSON Schema 2020-12 that schemas/ uses. Libraries that do this
// (json-schema-fast-check 0.0.x) are unmaintained and do not know 2020-12, so this stays small
// and is tested against the schemas it serves (every generated value validates).

/** The fast-check random stream of the value being generated: the one source faker draws from. */
let stream: fc.Random | undefined;

/**
 * faker whose randomness is fast-check's: nothing to seed per value (reseeding faker's Mersenne
 * Twister for every value cost most of a second of CPU on a deep run), and a value still depends
 * only on the check's seed and its place in the run, so one --seed reproduces every request.
 */
const FakerClass = english.constructor as typeof Faker;
const streamed = new FakerClass({
  locale: english.rawDefinitions,
  randomizer: {
    // 53 random bits from two draws, as faker's own randomizer gives.
    next: () => {
      if (!stream) throw new Error('generator: faker drawn outside a fakerValue');
      return (stream.nextInt(0, 2 ** 26 - 1) * 2 ** 27 + stream.nextInt(0, 2 ** 27 - 1)) / 2 ** 53;
    },
    // Seeded already: the stream is the property's, seeded once by fast-check.
    seed: () => undefined,
  },
});

/** A value made by faker from the random stream fast-check hands the arbitrary. Not shrunk: a smaller fake is no simpler. */
class FakerArbitrary<T> extends fc.Arbitrary<T> {
  private readonly make: (f: Faker) => T;
  constructor(make: (f: Faker) => T) {
    super();
    this.make = make;
  }
  generate(mrng: fc.Random): fc.Value<T> {
    stream = mrng;
    try {
      return new fc.Value(this.make(streamed), undefined);
    } finally {
      stream = undefined;
    }
  }
  canShrinkWithoutContext(_value: unknown): _value is T {
    return false;
  }
  shrink(): fc.Stream<fc.Value<T>> {
    return fc.Stream.nil();
  }
}

export function fakerValue<T>(make: (f: Faker) => T): fc.Arbitrary<T> {
  return new FakerArbitrary(make);
}

/**
 * Host names under the names RFC 6761 reserves: a target that really connects to a generated
 * database host or URL (as the real service validates a connection) never reaches anyone's host.
 */
const reservedHost = (f: Faker) => `${f.internet.domainWord()}.${f.helpers.arrayElement(['test', 'invalid', 'example', 'example.com'])}`;

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  email: () => fakerValue((f) => f.internet.email({ provider: 'example.com' }).toLowerCase()),
  'email-address': () => FORMATS.email!(),
  'web-url': () => FORMATS.uri!(),
  uri: () => fakerValue((f) => `https://${reservedHost(f)}${f.helpers.arrayElement(['', '/', `/${f.internet.domainWord()}`])}`),
  hostname: () => fakerValue(reservedHost),
  'date-time': () => fakerValue((f) => f.date.recent().toISOString()),
};

/** Resolves a $ref against the schema set; refs are either "#/..." (local) or "file.schema.json#/...". */
export function resolveRef(ref: string, base: JsonSchema): { schema: JsonSchema; root: JsonSchema } {
  const [file, fragment = ''] = ref.split('#');
  const root = file ? schemas[file.replace(SCHEMA_BASE, '')] : base;
  if (!root) throw new Error(`unresolvable $ref ${ref}`);
  let node: unknown = root;
  for (const part of fragment.split('/').filter(Boolean)) node = (node as Record<string, unknown>)[part];
  if (!node || typeof node !== 'object') throw new Error(`unresolvable $ref ${ref}`);
  return { schema: node as JsonSchema, root };
}

/** Flattens $ref and allOf into one object schema, as far as the subset needs. */
export function flatten(schema: JsonSchema, root: JsonSchema): { schema: JsonSchema; root: JsonSchema } {
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, root);
    return flatten(target.schema, target.root);
  }
  const parts = schema.allOf as JsonSchema[] | undefined;
  if (!parts) return { schema, root };
  let merged: JsonSchema = { ...schema, allOf: undefined };
  for (const part of parts) {
    const flat = flatten(part, root).schema;
    merged = {
      ...flat,
      ...merged,
      properties: { ...(flat.properties as object), ...(merged.properties as object) },
      required: [...((flat.required as string[]) ?? []), ...((merged.required as string[]) ?? [])],
    };
  }
  return { schema: merged, root };
}

function types(schema: JsonSchema): string[] {
  if (schema.const !== undefined || schema.enum !== undefined) return [];
  const t = schema.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === 'string' ? [t] : [];
}

export interface GenerateOptions {
  /** Generate optional properties too (default: each optional property is present or absent). */
  allOptional?: boolean;
  /** Exclude null from nullable types, e.g. to build a value that changes state. */
  noNull?: boolean;
}

/** A fast-check arbitrary of values valid against the schema (or a "file#/pointer" reference). */
export function arbitraryFor(ref: string | JsonSchema, options: GenerateOptions = {}): fc.Arbitrary<unknown> {
  const start = typeof ref === 'string' ? resolveRef(ref.includes('#') ? ref : `${ref}#`, {}) : { schema: ref, root: ref };
  return build(start.schema, start.root, options);
}

function build(input: JsonSchema, base: JsonSchema, options: GenerateOptions): fc.Arbitrary<unknown> {
  const { schema, root } = flatten(input, base);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = types(schema)
    .filter((t) => !(options.noNull && t === 'null'))
    .map((t) => buildType(t, schema, root, options));
  if (alternatives.length === 0) return fc.constant({});
  return alternatives.length === 1 ? alternatives[0]! : fc.oneof(...alternatives);
}

function buildType(type: string, schema: JsonSchema, root: JsonSchema, options: GenerateOptions): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: (schema.minimum as number) ?? 0, max: (schema.maximum as number) ?? 100_000 });
    case 'string':
      return stringArbitrary(schema);
    case 'array': {
      const items = schema.items ? build(schema.items as JsonSchema, root, options) : fc.string();
      const constraints = { minLength: (schema.minItems as number) ?? 0, maxLength: Math.min((schema.maxItems as number) ?? 5, 5) };
      // Unique items: a list whose order or duplicates a target normalises would otherwise be ambiguous.
      return fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) });
    }
    case 'object':
      return objectArbitrary(schema, root, options);
    default:
      throw new Error(`generator: unsupported type ${type}`);
  }
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return fc.constantFrom(...(schema.examples as string[]));
  const format = schema.format as string | undefined;
  if (format) {
    const make = FORMATS[format];
    if (!make) throw new Error(`generator: unsupported format ${format}`);
    return make();
  }
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern as string));
  // Words, not arbitrary unicode: values land in names and reports that people read.
  return fakerValue((f) => f.lorem.word({ length: { min: Math.max((schema.minLength as number) ?? 1, 1), max: 12 } }));
}

function objectArbitrary(schema: JsonSchema, root: JsonSchema, options: GenerateOptions): fc.Arbitrary<Record<string, unknown>> {
  if (schema.maxProperties === 0) return fc.constant({});
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[]) ?? []);
  const model = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, build(v, root, options)]));
  const requiredKeys = options.allOptional ? Object.keys(model) : Object.keys(model).filter((k) => required.has(k));
  return fc.record(model, { requiredKeys });
}
