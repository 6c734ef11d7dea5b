import { inputSpace, isImpossible, type DimensionValue, type InputSpace } from '../generators/input-space.ts';
import type { Observation } from './input-space-classify.ts';

// How much of input-space.json a run walked: per operation, each dimension's values and each
// listed pair of values, counted from what the run recorded (its requests, classified, and the
// checks' walked() records). One item is one value, or one value pair; the figure is items covered
// over items in the model.

/** Dimensions the request log shows (src/report/input-space-classify.ts); the others only walked() records. */
const FROM_REQUESTS = new Set(['version', 'credential', 'kind', 'destination-kind', 'connection-field', 'bulk-sync-field', 'error-handling-field', 'field-shape', 'list-length', 'string-length', 'unknown-id', 'content-type']);
/** What no request of the suite's client shows: a delivery (it comes from the target), a list read back. */
const WALKED_ONLY: Record<string, string[] | 'all'> = { 'sync.records delivery': 'all', 'GET /api/bulk/syncs/{id}/error-handling': ['list-length'] };
const walkedOnly = (operation: string, dimension: string) => WALKED_ONLY[operation] === 'all' || (WALKED_ONLY[operation] ?? []).includes(dimension);

export interface DimensionCoverage {
  dimension: string;
  covered: number;
  total: number;
  missing: DimensionValue[];
  /** Why a missing value is missing: what would have shown it. */
  reason?: string;
}

export interface PairCoverage {
  pair: [string, string];
  covered: number;
  total: number;
  /** Missing pairs, grouped by the first dimension's value. */
  missing: Array<{ value: DimensionValue; with: DimensionValue[] }>;
}

export interface OperationCoverage {
  operation: string;
  covered: number;
  total: number;
  percent: number;
  dimensions: DimensionCoverage[];
  pairs: PairCoverage[];
}

export interface InputSpaceCoverage {
  covered: number;
  total: number;
  percent: number;
  operations: OperationCoverage[];
}

const key = (v: DimensionValue | undefined) => (v === undefined ? undefined : String(v));
const percent = (covered: number, total: number) => (total === 0 ? 100 : Math.floor((1000 * covered) / total) / 10);

export function inputSpaceCoverage(observations: readonly Observation[], model: InputSpace = inputSpace()): InputSpaceCoverage {
  const operations = Object.entries(model.operations).map(([operation, op]): OperationCoverage => {
    const seen = observations.filter((o) => o.operation === operation);
    const dimensions = op.dimensions.map((dimension): DimensionCoverage => {
      const values = model.dimensions[dimension]?.values ?? [];
      const sent = new Set(seen.map((o) => key(o.values[dimension])));
      const missing = values.filter((v) => !sent.has(key(v)));
      const byRequest = FROM_REQUESTS.has(dimension) && !walkedOnly(operation, dimension);
      return {
        dimension,
        covered: values.length - missing.length,
        total: values.length,
        missing,
        ...(missing.length > 0 ? { reason: byRequest ? 'no request sent it' : 'no check recorded it (walked())' } : {}),
      };
    });
    const pairs = op.pairs.map(([a, b]): PairCoverage => {
      const [va, vb] = [model.dimensions[a]?.values ?? [], model.dimensions[b]?.values ?? []];
      const sent = new Set(seen.filter((o) => a in o.values && b in o.values).map((o) => `${key(o.values[a])}\u0000${key(o.values[b])}`));
      // Combinations that cannot be sent (input-space.json's 'impossible') are not counted.
      const possible = (x: DimensionValue, y: DimensionValue) => !isImpossible(op.impossible ?? [], { [a]: x, [b]: y });
      const total = va.reduce<number>((n, x) => n + vb.filter((y) => possible(x, y)).length, 0);
      const missing = va.map((x) => ({ value: x, with: vb.filter((y) => possible(x, y) && !sent.has(`${key(x)}\u0000${key(y)}`)) })).filter((m) => m.with.length > 0);
      const gaps = missing.reduce((n, m) => n + m.with.length, 0);
      return { pair: [a, b], covered: total - gaps, total, missing };
    });
    const covered = [...dimensions, ...pairs].reduce((n, d) => n + d.covered, 0);
    const total = [...dimensions, ...pairs].reduce((n, d) => n + d.total, 0);
    return { operation, covered, total, percent: percent(covered, total), dimensions, pairs };
  });
  const covered = operations.reduce((n, o) => n + o.covered, 0);
  const total = operations.reduce((n, o) => n + o.total, 0);
  return { covered, total, percent: percent(covered, total), operations };
}

const show = (v: DimensionValue) => String(v);

/** The coverage as text: a line per operation, a line per dimension and per pair, every gap named. */
export function renderInputSpaceCoverage(c: InputSpaceCoverage): string {
  const lines: string[] = [];
  for (const op of c.operations) {
    lines.push(`${op.operation}: ${op.percent}% (${op.covered}/${op.total})`);
    for (const d of op.dimensions) {
      lines.push(`  ${d.dimension.padEnd(22)} ${String(d.covered).padStart(3)}/${d.total}${d.missing.length ? `  missing (${d.reason}): ${d.missing.map(show).join(', ')}` : ''}`);
    }
    for (const p of op.pairs) {
      const gaps = p.missing.map((m) => `${show(m.value)} × ${m.with.map(show).join(' | ')}`).join('; ');
      lines.push(`  ${`${p.pair[0]} × ${p.pair[1]}`.padEnd(22)} ${String(p.covered).padStart(3)}/${p.total}${gaps ? `  missing: ${gaps}` : ''}`);
    }
  }
  lines.push('', `input space: ${c.percent}% (${c.covered}/${c.total} values and value pairs of schemas/input-space.json)`);
  return lines.join('\n') + '\n';
}
