import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { schemasDir } from '../../src/paths.ts';
import { profileSchemaPath } from '../../src/profile/profile.ts';
import { describeErrors, validator } from '../../src/schemas.ts';

// A run compiles the kit's schemas without checking them against the JSON Schema meta-schema
// (src/schemas.ts, src/profile/profile.ts): here is where a malformed one is caught.

const files = [...readdirSync(schemasDir).filter((f) => f.endsWith('.schema.json')).map((f) => join(schemasDir, f)), profileSchemaPath];

test.each(files)('%s is a valid JSON Schema 2020-12 document', (file) => {
  const ajv = new Ajv2020({ strict: true });
  const schema = JSON.parse(readFileSync(file, 'utf8')) as object;
  expect(ajv.validateSchema(schema), describeErrors(ajv.errors).join('\n')).toBe(true);
});

test.each(readdirSync(schemasDir).filter((f) => f.endsWith('.schema.json')))('%s compiles under the kit\'s strict options', (file) => {
  expect(() => validator(file)).not.toThrow();
});
