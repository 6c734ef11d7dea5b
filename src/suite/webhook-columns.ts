import type { JsonType, SourceColumn } from '../adapters/types.ts';
import { EDGE_ROWS, MAIN_EDITS, PAIR_ROWS } from './webhook-data.ts';

// The columns a webhook scenario's source has, with every JSON type the suite writes into each:
// an adapter over a database needs them to create the table (createSource's third argument).

/** The generated rows' columns (generateRows) and their types; id is the key. */
const GENERATED: ReadonlyArray<[string, JsonType]> = [
  ['id', 'string'],
  ['email', 'string'],
  ['name', 'string'],
  ['score', 'integer'],
  ['active', 'boolean'],
  ['note', 'string'],
];

const ORDER: readonly JsonType[] = ['string', 'integer', 'number', 'boolean', 'null'];

export function jsonType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as 'string' | 'boolean';
}

/**
 * The generated types, plus the type of every value of the enumerated rows and edits (the
 * computed edits keep their column's type: a changed string, score + 1, a negated flag).
 */
export const SOURCE_COLUMNS: readonly SourceColumn[] = (() => {
  const types = new Map(GENERATED.map(([name, type]) => [name, new Set<JsonType>([type])]));
  const add = (column: string, value: unknown) => types.get(column)?.add(jsonType(value));
  for (const row of [...EDGE_ROWS, ...PAIR_ROWS]) for (const [column, value] of Object.entries(row)) add(column, value);
  for (const edit of MAIN_EDITS) if (typeof edit.to !== 'function') add(edit.column, edit.to);
  return GENERATED.map(([name]) => ({ name, types: ORDER.filter((t) => types.get(name)!.has(t)), ...(name === 'id' ? { key: true } : {}) }));
})();
