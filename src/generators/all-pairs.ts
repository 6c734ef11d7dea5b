import { inputSpace, isImpossible, values, type DimensionValue, type Impossible } from './input-space.ts';

// A greedy all-pairs (AETG-style) generator: a short list of combinations that shows every value of
// every dimension at least once and every pair of values of the named dimension pairs. It is
// deterministic (no seed): which known case is tried never depends on the run's randomness.
// Written here rather than taken from npm: the one maintained pairwise package found (covertable)
// covers every pair of every dimension it is given, where the suite needs only the pairs where
// bugs hide (input-space.json's "pairs"), which keeps the default run's request count down.

export type Combination = Record<string, DimensionValue>;

/**
 * Combinations covering every value of every dimension and every value pair of `pairs` (all pairs
 * of dimensions when omitted), none holding an `impossible` combination (input-space.json's
 * entries, which are not to be covered either). A pair naming a dimension that is not given is an error.
 */
export function allPairs(dimensions: Readonly<Record<string, readonly DimensionValue[]>>, pairs?: ReadonlyArray<readonly [string, string]>, impossible: readonly Impossible[] = []): Combination[] {
  const names = Object.keys(dimensions);
  for (const name of names) if (dimensions[name]!.length === 0) throw new Error(`all-pairs: dimension ${name} has no values`);
  const index = new Map(names.map((n, i) => [n, i]));
  const wanted = pairs ?? names.flatMap((a, i) => names.slice(i + 1).map((b) => [a, b] as const));
  const partners: number[][] = names.map(() => []);
  const uncovered = new Set<string>();
  const pairKey = (a: number, va: number, b: number, vb: number) => (a < b ? `${a}=${va}|${b}=${vb}` : `${b}=${vb}|${a}=${va}`);
  for (const [a, b] of wanted) {
    const ia = index.get(a);
    const ib = index.get(b);
    if (ia === undefined || ib === undefined) throw new Error(`all-pairs: the pair [${a}, ${b}] names a dimension that is not given`);
    if (ia === ib || partners[ia]!.includes(ib)) continue;
    partners[ia]!.push(ib);
    partners[ib]!.push(ia);
    dimensions[a]!.forEach((x, va) =>
      dimensions[b]!.forEach((y, vb) => {
        if (!isImpossible(impossible, { [a]: x, [b]: y })) uncovered.add(pairKey(ia, va, ib, vb));
      }),
    );
  }
  // Values alone come last, so that rows are first seeded by the pairs (which cover them anyway).
  names.forEach((n, d) => dimensions[n]!.forEach((_, v) => uncovered.add(`${d}=${v}`)));

  const used = names.map((n) => dimensions[n]!.map(() => 0));
  const rows: Combination[] = [];
  while (uncovered.size > 0) {
    const row: Array<number | undefined> = names.map(() => undefined);
    // The row starts from the first item still uncovered, so every row covers something new.
    for (const part of uncovered.values().next().value!.split('|')) {
      const [d, v] = part.split('=').map(Number) as [number, number];
      row[d] = v;
    }
    for (let d = 0; d < names.length; d++) {
      if (row[d] !== undefined) continue;
      let best = -1;
      let bestGain = -1;
      const assigned = (v: number) => Object.fromEntries(names.flatMap((n, i) => (i === d ? [[n, dimensions[n]![v]!]] : row[i] !== undefined ? [[n, dimensions[n]![row[i]]!]] : [])));
      for (let v = 0; v < dimensions[names[d]!]!.length; v++) {
        if (impossible.length > 0 && isImpossible(impossible, assigned(v))) continue;
        let gain = uncovered.has(`${d}=${v}`) ? 1 : 0;
        for (const p of partners[d]!) if (row[p] !== undefined && uncovered.has(pairKey(d, v, p, row[p]))) gain += 1;
        // Ties go to the value used least so far, then to the first listed: spread, and stable.
        if (gain > bestGain || (gain === bestGain && used[d]![v]! < used[d]![best]!)) {
          best = v;
          bestGain = gain;
        }
      }
      if (best < 0) throw new Error(`all-pairs: no value of ${names[d]} fits the impossible combinations`);
      row[d] = best;
    }
    const chosen = row as number[];
    chosen.forEach((v, d) => {
      used[d]![v]! += 1;
      uncovered.delete(`${d}=${v}`);
      for (const p of partners[d]!) if (p > d) uncovered.delete(pairKey(d, v, p, chosen[p]!));
    });
    rows.push(Object.fromEntries(names.map((n, d) => [n, dimensions[n]![chosen[d]!]!])));
  }
  return rows;
}

/**
 * The combinations a check walks for an operation of input-space.json: the named dimensions'
 * values (from the model), covering the operation's pairs among them.
 */
export function operationCases(operation: string, dimensionNames: readonly string[]): Combination[] {
  const op = inputSpace().operations[operation];
  if (!op) throw new Error(`input-space.json has no operation ${operation}`);
  for (const d of dimensionNames) if (!op.dimensions.includes(d)) throw new Error(`input-space.json: ${operation} has no dimension ${d}`);
  const pairs = op.pairs.filter(([a, b]) => dimensionNames.includes(a) && dimensionNames.includes(b));
  return allPairs(Object.fromEntries(dimensionNames.map((d) => [d, values(d)])), pairs, op.impossible ?? []);
}
