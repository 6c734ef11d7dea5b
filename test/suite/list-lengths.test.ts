import { describe, expect, test } from 'vitest';
import { values } from '../../src/generators/input-space.ts';
import { addressOfLength, LONGEST_ADDRESS, subscribersOf } from '../../src/suite/list-lengths.ts';
import { validate } from '../../src/schemas.ts';

// The lists EHS-002/003/011 and EHB-003 send must be what they claim: the walked lengths, distinct
// addresses, each a valid address of the request schema (a list the target may refuse for its
// content would show nothing about a cap).

describe('subscriber lists of the list-length dimension', () => {
  test('each length gives that many distinct addresses, all valid in the PUT body', () => {
    for (const n of values<number>('list-length')) {
      const list = subscribersOf(n, `t${n}`);
      expect(list).toHaveLength(n);
      expect(new Set(list.map((a) => a.toLowerCase())).size).toBe(n);
      expect(validate('sync-error-handling-update.schema.json', { subscribers: list })).toEqual([]);
      expect(validate('bulk-sync-error-handling.schema.json#/$defs/update', { subscribers: list })).toEqual([]);
    }
  });

  test('addresses reach every valid length class, the longest valid address included', () => {
    for (const length of [32, 33, 63, 64, 65, 127, 128, 129, 200, LONGEST_ADDRESS]) {
      const address = addressOfLength(length, 'x1');
      expect(address).toHaveLength(length);
      expect(address.split('@')[0]!.length).toBeLessThanOrEqual(64);
      for (const label of address.split('@')[1]!.split('.')) {
        expect(label.length).toBeGreaterThan(0);
        expect(label.length).toBeLessThanOrEqual(63);
      }
      expect(validate('sync-error-handling-update.schema.json', { subscribers: [address] })).toEqual([]);
    }
    expect(subscribersOf(11, 'c').map((a) => a.length)).toEqual(expect.arrayContaining([32, 33, LONGEST_ADDRESS]));
  });
});
