import { describe, expect, test } from 'vitest';
import { allPairs, operationCases, type Combination } from '../../src/generators/all-pairs.ts';
import { inputSpace, modelProblems, values, type DimensionValue, type InputSpace } from '../../src/generators/input-space.ts';

function missing(dimensions: Record<string, readonly DimensionValue[]>, pairs: ReadonlyArray<readonly [string, string]>, rows: Combination[]): string[] {
  const out: string[] = [];
  for (const [d, vs] of Object.entries(dimensions)) for (const v of vs) if (!rows.some((r) => r[d] === v)) out.push(`${d}=${v}`);
  for (const [a, b] of pairs) for (const va of dimensions[a]!) for (const vb of dimensions[b]!) if (!rows.some((r) => r[a] === va && r[b] === vb)) out.push(`${a}=${va} & ${b}=${vb}`);
  return out;
}

describe('all-pairs', () => {
  const three = { a: [1, 2, 3], b: ['x', 'y', 'z'], c: [true, false].map(String), d: ['p'] };

  test('every value and every pair of every dimension when no pairs are named', () => {
    const rows = allPairs(three);
    const pairs = [['a', 'b'], ['a', 'c'], ['a', 'd'], ['b', 'c'], ['b', 'd'], ['c', 'd']] as const;
    expect(missing(three, pairs, rows)).toEqual([]);
    // 3 × 3 is the least any covering list can be; greedy stays close.
    expect(rows.length).toBeGreaterThanOrEqual(9);
    expect(rows.length).toBeLessThanOrEqual(11);
  });

  test('only the named pairs: disjoint pairs cost the larger product, not the full one', () => {
    const dims = { version: values('version'), kind: values('kind'), field: values('connection-field'), shape: values('field-shape') };
    const pairs = [['version', 'kind'], ['field', 'shape']] as const;
    const rows = allPairs(dims, pairs);
    expect(missing(dims, pairs, rows)).toEqual([]);
    expect(rows.length).toBe(values('connection-field').length * values('field-shape').length);
    // The other pairs are spread, not all on the first value.
    expect(new Set(rows.map((r) => r.version)).size).toBe(values('version').length);
  });

  test('deterministic: the same list every time, whatever the seed of the run', () => {
    const dims = { x: [0, 1, 2, 11, 101], y: ['a', 'b', 'c', 'd'], z: ['u', 'v'] };
    expect(allPairs(dims)).toEqual(allPairs(dims));
    expect(JSON.stringify(operationCases('PUT /api/syncs/{id}/error-handling', ['version', 'unknown-id']))).toBe(JSON.stringify(operationCases('PUT /api/syncs/{id}/error-handling', ['version', 'unknown-id'])));
  });

  test('every value at least once when nothing is paired', () => {
    const dims = { a: [1, 2, 3, 4, 5], b: ['x'], c: ['p', 'q'] };
    const rows = allPairs(dims, []);
    expect(missing(dims, [], rows)).toEqual([]);
    expect(rows.length).toBe(5);
  });

  test('a pair naming an unknown dimension, or an empty dimension, is an error', () => {
    expect(() => allPairs({ a: [1] }, [['a', 'b']])).toThrow(/names a dimension that is not given/);
    expect(() => allPairs({ a: [] })).toThrow(/no values/);
    expect(() => operationCases('POST /api/connections', ['sync-mode'])).toThrow(/has no dimension sync-mode/);
  });

  test("an operation's cases cover its pairs among the dimensions walked", () => {
    const op = 'POST /api/connections';
    const rows = operationCases(op, ['version', 'kind', 'content-type']);
    expect(missing({ version: values('version'), kind: values('kind'), 'content-type': values('content-type') }, [['version', 'kind']], rows)).toEqual([]);
    expect(rows.length).toBe(values('version').length * values('kind').length);
  });
});

describe('input-space.json', () => {
  test('well-formed: every dimension an operation names exists, every pair names dimensions of its operation', () => {
    expect(modelProblems()).toEqual([]);
  });

  test('the problems of a broken model are named', () => {
    const broken: InputSpace = {
      classes: {},
      dimensions: { a: { about: '', values: [1, 1] }, b: { about: '', values: ['<nothing>'] } },
      operations: { 'GET /x': { dimensions: ['a', 'c'], pairs: [['a', 'b']] } },
    };
    expect(modelProblems(broken)).toEqual([
      'dimension a lists a value twice',
      'dimension b: class <nothing> is not described under classes',
      'GET /x: no dimension c',
      'GET /x: pair [a, b] names b, not a dimension of the operation',
    ]);
  });

  test('the spec’s five versions, and connection kind × every field of that kind', () => {
    expect(values('version').filter((v) => v !== '<absent>')).toEqual(['2025-09-18', '2024-02-08', '2023-04-25', '2022-12-12', '2021-05-23']);
    const fields = values<string>('connection-field');
    // The webhook kind's configuration fields are not shown: it has no field cases.
    for (const kind of values<string>('kind').filter((k) => k !== 'webhook')) for (const f of ['name', 'type', 'configuration', 'redirect_url']) expect(fields).toContain(`${kind} ${f}`);
    expect(fields).toContain('relationalDatabase configuration.port');
    expect(fields.filter((f) => f.startsWith('marketing configuration.'))).toEqual([]);
    expect(Object.keys(inputSpace().operations)).toContain('sync.records delivery');
  });
});

describe('impossible combinations', () => {
  test('never generated, and not required', () => {
    const dims = { field: ['flag', 'list', 'item'], shape: ['absent', 'null', 'boundary'], other: [1, 2] };
    const impossible = [{ field: ['flag'], shape: ['boundary'], why: 'a boolean has no bounds' }, { field: ['item'], shape: ['absent'], why: 'x' }];
    const rows = allPairs(dims, [['field', 'shape']], impossible);
    expect(rows.some((r) => (r.field === 'flag' && r.shape === 'boundary') || (r.field === 'item' && r.shape === 'absent'))).toBe(false);
    expect(rows.length).toBe(7);
    expect(missing(dims, [], rows)).toEqual([]);
  });

  test("the model's impossible entries are kept by operationCases", () => {
    const rows = operationCases('PUT /api/syncs/{id}/error-handling', ['error-handling-field', 'field-shape']);
    expect(rows.some((r) => r['error-handling-field'] === 'warning_notifications' && r['field-shape'] === 'boundary')).toBe(false);
    // 6 fields × 5 shapes, less 3 booleans × boundary, an address absent, the body absent, an address at a boundary.
    expect(rows.length).toBe(6 * 5 - 6);
  });
});
