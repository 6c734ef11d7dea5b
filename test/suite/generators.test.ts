import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { arbitraryFor } from '../../src/generators/from-schema.ts';
import { brokenArbitrary } from '../../src/generators/invalid.ts';
import { validate } from '../../src/schemas.ts';

const VALID_REFS = [
  'connection-request.schema.json',
  'connection-request.schema.json#/$defs/crm',
  'connection-request.schema.json#/$defs/marketing',
  'connection-request.schema.json#/$defs/objectStore',
  'connection-request.schema.json#/$defs/relationalDatabase',
  'connection-request.schema.json#/$defs/webhook',
  'bulk-sync-request-2023-04-25.schema.json',
  'bulk-sync-request-2022-12-12.schema.json',
  'sync-error-handling.schema.json',
  'sync-error-handling-update.schema.json',
  'bulk-sync-error-handling.schema.json',
  'bulk-sync-error-handling.schema.json#/$defs/update',
  'error-body.schema.json',
  'webhook-delivery-body.schema.json',
  'model-sync-request.schema.json',
];

describe('schema-derived generators', () => {
  test.each(VALID_REFS)('every value generated from %s validates against it', (ref) => {
    fc.assert(fc.property(arbitraryFor(ref), (v) => {
      expect(validate(ref, v)).toEqual([]);
    }), { numRuns: 200, seed: 1 });
  });

  test.each(VALID_REFS.filter((r) => !r.endsWith('marketing')))('every broken value from %s is invalid against it', (ref) => {
    fc.assert(fc.property(brokenArbitrary(ref), ({ value }) => {
      expect(validate(ref, value)).not.toEqual([]);
    }), { numRuns: 200, seed: 2 });
  });

  test('the same seed gives the same values, faker included', () => {
    const sample = (seed: number) => fc.sample(arbitraryFor('sync-error-handling-update.schema.json'), { numRuns: 20, seed });
    expect(sample(42)).toEqual(sample(42));
    expect(sample(42)).not.toEqual(sample(43));
  });

  test('faker e-mail addresses are realistic and use a reserved domain', () => {
    const lists = fc.sample(arbitraryFor('sync-error-handling-update.schema.json#/properties/subscribers', { noNull: true }), { numRuns: 50, seed: 3 });
    const emails = (lists as string[][]).flat();
    expect(emails.length).toBeGreaterThan(10);
    for (const e of emails) expect(e).toMatch(/^[^@\s]+@example\.com$/);
  });
});
