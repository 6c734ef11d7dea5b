import { describe, expect, test } from 'vitest';
import type { Row } from '../../src/adapters/types.ts';
import { applyEdits, EDGE_ROWS, FIELDS, fieldChanges, MAIN_EDITS, PAIR_FIELDS, PAIR_ROWS } from '../../src/suite/webhook-data.ts';
import { judgePairs, judgeRedelivery, onlyDifference, pairsKey } from '../../src/suite/webhook-hash.ts';

// The enumerated webhook data covers what the checks promise to catch, whatever the seed.

const typeOnly = (a: unknown, b: unknown) => a !== b && String(a) === String(b);

describe('MAIN_EDITS', () => {
  const generated: Row[] = ['r000000', 'r000001', 'r000002', 'r000003'].map((id) => ({ id, email: `${id}@example.com`, name: id, score: 5, active: true }));
  const before = new Map([...generated, ...EDGE_ROWS].map((r) => [String(r.id), r]));
  const after = applyEdits(before, MAIN_EDITS);
  const changes = after.map((r) => fieldChanges(before.get(String(r.id))!, r));

  test('change one selected column of one row each', () => {
    expect(after).toHaveLength(MAIN_EDITS.length);
    for (const c of changes) expect(c).toHaveLength(1);
  });

  test('change every selected column but the key: to another value, to and from null, "" and null, and in JSON type only', () => {
    for (const { target } of FIELDS.filter((f) => f.source !== 'id')) {
      const mine = changes.flat().filter((c) => c.target === target);
      expect(mine.length, target).toBeGreaterThanOrEqual(3);
      expect(mine.some((c) => (c.from === null) !== (c.to === null)), `${target}: a null change`).toBe(true);
    }
    const all = changes.flat();
    expect(all.some((c) => c.from === 1 && c.to === '1')).toBe(true);
    expect(all.some((c) => c.from === true && c.to === 'true')).toBe(true);
    expect(all.some((c) => c.from === '' && c.to === null)).toBe(true);
    expect(all.some((c) => c.from === null && c.to === '')).toBe(true);
    expect(all.some((c) => c.from === false && c.to === null)).toBe(true);
    expect(all.filter((c) => typeOnly(c.from, c.to)).map((c) => c.target).sort()).toEqual(['active', 'active', 'full_name', 'score']);
  });
});

describe('PAIR_ROWS', () => {
  const records = PAIR_ROWS.map((r) => ({ fields: Object.fromEntries(PAIR_FIELDS.map((f) => [f.target, r[f.source]])) }));

  test('hold, for every field the hash-pairs sync selects, records equal but for it, type-only differences included', () => {
    const pairs = new Map<string, Array<[unknown, unknown]>>();
    for (const [i, a] of records.entries()) {
      for (const b of records.slice(i + 1)) {
        const field = onlyDifference(a.fields, b.fields);
        if (field) pairs.set(field, [...(pairs.get(field) ?? []), [a.fields[field], b.fields[field]]]);
      }
    }
    expect([...pairs.keys()].sort()).toEqual(PAIR_FIELDS.map((f) => f.target).sort());
    for (const [field, values] of pairs) expect(values.some(([a, b]) => typeOnly(a, b)), field).toBe(true);
    const all = [...pairs.values()].flat();
    for (const [x, y] of [[1, '1'], [true, 'true'], [null, ''], [false, null]]) {
      expect(all.some(([a, b]) => (a === x && b === y) || (a === y && b === x)), `${String(x)} and ${JSON.stringify(y)}`).toBe(true);
    }
  });

  test('hold two records with equal pairs', () => {
    expect(new Set(records.map((r) => pairsKey(r.fields))).size).toBe(records.length - 1);
  });
});

describe('the hash judgements', () => {
  test('name the field two records equal but for it share a hash on', () => {
    const { problems, judged } = judgePairs([{ hash: 'h', fields: { a: 1, b: 'x' } }, { hash: 'h', fields: { a: '1', b: 'x' } }, { hash: 'k', fields: { a: 2, b: 'y' } }]);
    expect(problems).toEqual(['records equal but for a (1 and "1") share the hash h…']);
    expect([...judged]).toEqual(['a']);
  });

  test('want one hash for equal pairs in any key order', () => {
    expect(judgePairs([{ hash: 'h', fields: { a: 1, b: 2 } }, { hash: 'h', fields: { b: 2, a: 1 } }]).problems).toEqual([]);
    expect(judgePairs([{ hash: 'h', fields: { a: 1, b: 2 } }, { hash: 'k', fields: { b: 2, a: 1 } }]).problems).toHaveLength(1);
  });

  test('judge a redelivered row by its pairs', () => {
    expect(judgeRedelivery('e04', { hash: 'h', fields: { id: 'e04', score: 1 } }, { hash: 'h', fields: { id: 'e04', score: '1' } })).toBe('record e04: score 1 → "1" between runs, but its hash stayed h…');
    expect(judgeRedelivery('e04', { hash: 'h', fields: { id: 'e04', score: 1 } }, { hash: 'k', fields: { id: 'e04', score: 1 } })).toMatch(/same field pairs/);
    expect(judgeRedelivery('e04', { hash: 'h', fields: { score: 1 } }, { hash: 'h', fields: { score: 1 } })).toBeUndefined();
  });
});
