import type { Row } from '../adapters/types.ts';

// The webhook scenarios' enumerated data: rows a vendor's serializer gets wrong, the changes made
// between runs, and rows built in pairs for the hash. Enumerated, not drawn, so that what the
// checks can catch does not depend on the seed (the generated rows only add breadth).

export type Value = Row[string];

/** The selected fields: source column -> delivered name. `note` is in the source but never selected. */
export const FIELDS = [
  { source: 'id', target: 'id' },
  { source: 'email', target: 'email' },
  { source: 'name', target: 'full_name' },
  { source: 'score', target: 'score' },
  { source: 'active', target: 'active' },
];

/**
 * Rows enumerated, not drawn: nulls, empty strings, unicode and escapes, the largest exact
 * integers, and values that differ from another row's only in JSON type ("1" and 1, "true" and
 * true). Delivered values must equal these exactly, types included (WH-012). e08..e11 exist for
 * MAIN_EDITS.
 */
export const EDGE_ROWS: readonly Row[] = [
  { id: 'e01', email: null, name: null, score: null, active: null, note: null },
  { id: 'e02', email: '', name: '', score: 0, active: false, note: '' },
  { id: 'e03', email: 'zoë.ünïcødé@example.com', name: 'Zoë 山田 🚀 "quoted" \\ back\nslash', score: 9007199254740991, active: true, note: 'x' },
  { id: 'e04', email: 'same@example.com', name: 'Same Name', score: 1, active: true, note: '' },
  { id: 'e05', email: 'same@example.com', name: 'Same Name', score: '1', active: 'true', note: '' },
  { id: 'e06', email: 'UPPER@EXAMPLE.COM', name: '  padded  ', score: -9007199254740991, active: false, note: 'y' },
  { id: 'e07', email: 'num@example.com', name: '0', score: 1.5, active: 'false', note: '' },
  { id: 'e08', email: 'e08@example.com', name: 'Score Later', score: null, active: true, note: null },
  { id: 'e09', email: 'e09@example.com', name: null, score: 3, active: false, note: '' },
  { id: 'e10', email: 'e10@example.com', name: 'Score Dropped', score: 2, active: true, note: 'z' },
  { id: 'e11', email: 'e11@example.com', name: 'Flag Off', score: 4, active: false, note: '' },
  // Past the usual column bounds (VARCHAR(255), 1000, a 64 KiB TEXT), and decimals that a 32-bit
  // float or a fixed scale of 2 would change: a value cut or rounded on the way shows on them.
  { id: 'e12', email: 'e12@example.com', name: text('Long Name ', 256), score: 0.1, active: true, note: '' },
  { id: 'e13', email: 'e13@example.com', name: text('Zoë 山田 Ünïcødé ', 1001), score: 19.99, active: false, note: '' },
  { id: 'e14', email: 'e14@example.com', name: text('a long text value ', 70_000), score: 1234567.891, active: true, note: '' },
];

/** `unit` repeated to exactly `length` UTF-16 units (units without surrogates, so no pair is cut). */
function text(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/**
 * The input-space classes a delivered value belongs to (input-space.json › field-value): what
 * WH-012 records as walked for the values it compared.
 */
export function fieldValueClasses(v: Value | undefined): string[] {
  const out: string[] = [];
  if (v === null) out.push('null');
  if (typeof v === 'string') {
    if (v === '') out.push('empty string');
    if (/[^\x00-\x7f]/.test(v)) out.push('non-ASCII');
    for (const n of [255, 1000, 65_535]) if (v.length > n) out.push(`over ${n} characters`);
  }
  if (typeof v === 'number') {
    if (Math.abs(v) === Number.MAX_SAFE_INTEGER) out.push('largest exact integer');
    if (!Number.isInteger(v)) out.push('decimal');
  }
  return out;
}

/** One column of one row set to another value before a later run (`to` may compute it from the value before). */
export interface RowEdit {
  id: string;
  column: string;
  to: Value | ((before: Value) => Value);
}

/**
 * The main scenario's changes before its second run: one column of one row each, so that a
 * change detection (or a hash) blind to one column, or to JSON types, misses a row it must
 * deliver (WH-017) or keeps a hash it must change (WH-013). Every selected column but the key
 * changes: to another value, between a value and null, between "" and null, and in JSON type only.
 */
export const MAIN_EDITS: readonly RowEdit[] = [
  { id: 'r000000', column: 'email', to: (v) => `changed.${String(v)}` },
  { id: 'r000001', column: 'name', to: (v) => `${String(v)} Changed` },
  { id: 'r000002', column: 'score', to: (v) => Number(v) + 1 },
  { id: 'r000003', column: 'active', to: (v) => !v },
  { id: 'e01', column: 'name', to: 'Named Later' }, // null -> a value
  { id: 'e02', column: 'email', to: null }, // "" -> null
  { id: 'e03', column: 'active', to: 'true' }, // true -> "true"
  { id: 'e04', column: 'score', to: '1' }, // 1 -> "1"
  { id: 'e05', column: 'email', to: null }, // a value -> null
  { id: 'e06', column: 'active', to: null }, // false -> null
  { id: 'e07', column: 'name', to: 0 }, // "0" -> 0
  { id: 'e08', column: 'score', to: 0 }, // null -> 0
  { id: 'e09', column: 'name', to: '' }, // null -> ""
  { id: 'e10', column: 'score', to: null }, // 2 -> null
  { id: 'e11', column: 'active', to: 'false' }, // false -> "false"
];

/** Applies edits to copies of the rows they name; a row edited twice gets both. */
export function applyEdits(rows: ReadonlyMap<string, Row>, edits: readonly RowEdit[]): Row[] {
  const changed = new Map<string, Row>();
  for (const e of edits) {
    const before = changed.get(e.id) ?? rows.get(e.id);
    if (!before) throw new Error(`webhook fixture: an edit names row ${e.id}, which the source does not have`);
    changed.set(e.id, { ...before, [e.column]: typeof e.to === 'function' ? e.to(before[e.column] ?? null) : e.to });
  }
  return [...changed.values()];
}

/** A selected field whose value differs between two versions of a row (values compared with their JSON type). */
export interface FieldChange {
  target: string;
  from: Value | undefined;
  to: Value | undefined;
}

export function fieldChanges(before: Row, after: Row, fields = FIELDS): FieldChange[] {
  return fields.filter((f) => before[f.source] !== after[f.source]).map((f) => ({ target: f.target, from: before[f.source], to: after[f.source] }));
}

/** `score 1 → "1"`, for messages. */
export function describeChanges(changes: readonly FieldChange[]): string {
  return changes.map((c) => `${c.target} ${JSON.stringify(c.from ?? null)} → ${JSON.stringify(c.to ?? null)}`).join(', ');
}

/**
 * The hash-pairs sync selects every field but the key: its records differ only in what the rows
 * vary, so two of them can be equal but for one field (rows that differ in `id` never are).
 */
export const PAIR_FIELDS = FIELDS.filter((f) => f.source !== 'id');

const PAIR_BASE: Row = { email: 'pair@example.com', name: 'Pair Base', score: 1, active: true };

/**
 * Per selected column, values that must hash apart when the rest of the record is equal: other
 * values, null and "", and values that differ only in JSON type. The first is the base row's.
 */
export const PAIR_VARIANTS: Readonly<Record<string, readonly Value[]>> = {
  email: ['pair@example.com', 'PAIR@example.com', 'other@example.com', '', null, '0', 0],
  name: ['Pair Base', 'pair base', '', null, 'null', '0', 0],
  score: [1, '1', 0, '0', -1, 1.5, null, '', true, false],
  active: [true, 'true', false, 'false', null, '', 1, 0],
};

/**
 * The base row twice (equal pairs: the same hash) and, per column, one row per other value of
 * PAIR_VARIANTS: every two rows of one column's list are equal but for that column.
 */
export const PAIR_ROWS: readonly Row[] = [
  { id: 'p-base', ...PAIR_BASE },
  { id: 'p-base-twin', ...PAIR_BASE },
  ...Object.entries(PAIR_VARIANTS).flatMap(([column, values]) => values.slice(1).map((v, i) => ({ id: `p-${column}-${i + 1}`, ...PAIR_BASE, [column]: v }))),
];
