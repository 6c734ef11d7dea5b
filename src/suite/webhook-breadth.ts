import { TransportError } from '../client/http-client.ts';
import { walked } from './input-space-record.ts';
import type { Row } from '../adapters/types.ts';
import { fieldChanges, FIELDS, type RowEdit } from './webhook-data.ts';
import { records } from './webhook-judging.ts';
import { scenariosSetUp, type Scenario, type ScenarioPlan } from './webhook-fixtures.ts';

// The breadth of the webhook checks (issue 18): a target wrong on one path only (a batch of one
// record, a batch size of 1 or above the default, a small body, a second sync on one connection,
// a row changed back) is caught only where that path is walked. The per-delivery checks judge
// every delivery of every sync the run set up, not the main sync's alone.

/** Spec › Webhook settings: 'Webhook batch size … Default 100'. */
const DEFAULT_BATCH_SIZE = 100;

/**
 * The main sync's selection: the key column under a camel-case name too, then FIELDS, so that a
 * target which keys its selection by source column, or changes a target name's case, delivers
 * other fields than selected (WH-012). The key never changes: a change detection blind to one
 * column (WH-017) is not rescued by a copy of that column.
 */
export const MAIN_FIELDS: typeof FIELDS = [{ source: 'id', target: 'recordId' }, ...FIELDS];

/**
 * The main scenario's changes before its third run: rows MAIN_EDITS changed go back to a value run
 * 1 delivered (a value, null, and a JSON type), so a change detection that looks a hash up among
 * every hash ever delivered, not the last one, misses them (WH-017).
 */
export const MAIN_REVERTS: readonly RowEdit[] = [
  { id: 'r000000', column: 'email', to: (v) => String(v).replace(/^changed\./, '') },
  { id: 'e01', column: 'name', to: null },
  { id: 'e03', column: 'active', to: true },
  { id: 'e04', column: 'score', to: 1 },
];

/** One record per batch, and a size above the default (over the main sync's source, 260 and more rows; optional: the maximum is not shown). */
/** Its receiver answers 200 with no body at all (the spec shows none): a sender that parses the answer as JSON fails on it (WH-015). */
export const BATCH_1: ScenarioPlan = { rows: 3, sync: { batchSize: 1 }, answerBody: 'empty' };
export const BATCH_150: ScenarioPlan = { rows: 0, sourceOf: 'main', sync: { batchSize: 150 } };
/**
 * A source past the common page sizes (500, 1000, 1024 rows): a run that reads its source in pages
 * and loses a row at a page's edge, or stops at a page's worth of records, delivers every row of
 * the other sources (264 at most). Batches of 500 keep it to three deliveries; a target that
 * refuses that size (the maximum is not shown) gets LONG_SOURCE_DEFAULT instead.
 */
export const LONG_SOURCE: ScenarioPlan = { rows: 1100, plainRows: true, sync: { batchSize: 500 } };
/** The long source at the default size, where the target refuses 500: its rows still come, in more deliveries. */
export const LONG_SOURCE_DEFAULT: ScenarioPlan = { ...LONG_SOURCE, sync: {} };

/** The source-rows class (input-space.json) of a source of `rows` rows, when it is one. */
export function sourceRowsClass(rows: number): 'small' | 'past-1024' | undefined {
  return rows > 1024 ? 'past-1024' : rows < 500 ? 'small' : undefined;
}

/**
 * The given scenarios, set up in order, and every other scenario set up so far (the failing
 * receivers' included): the syncs a per-delivery check judges. An optional one the target
 * refuses (a batch size above its own maximum, which the spec leaves open) is left out; a
 * transport failure is not a refusal.
 */
export async function everyScenario(getters: ReadonlyArray<() => Promise<Scenario>>, optional: ReadonlyArray<() => Promise<Scenario>> = []): Promise<Scenario[]> {
  const given: Scenario[] = [];
  for (const get of getters) given.push(await get());
  for (const get of optional) {
    const s = await optionalScenario(get);
    if (s) given.push(s);
  }
  return [...new Set([...given, ...scenariosSetUp().values()])];
}

/** An optional scenario, or undefined when the target refused its setup (a transport failure is no refusal). */
export async function optionalScenario(get: () => Promise<Scenario>, refused?: (why: string) => void): Promise<Scenario | undefined> {
  return get().catch((error: unknown) => {
    if (error instanceof TransportError) throw error;
    refused?.(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));
    return undefined;
  });
}

export const batchSizeOf = (s: Scenario): number => s.settings.batchSize ?? DEFAULT_BATCH_SIZE;

/** Records the batch sizes judged (input-space.json › batch-size-limit). */
export function walkedSizes(scenarios: readonly Scenario[]): void {
  for (const s of scenarios) {
    if (s.runs.some((r) => r.deliveries.length > 0)) walked('sync.records delivery', { 'batch-size-limit': s.settings.batchSize ?? '<default>' });
  }
}

/** What happened to a row between two runs: new, changed, changed back to a value an earlier run had, unchanged. */
export function rowChange(id: string, row: Row, earlier: ReadonlyArray<ReadonlyMap<string, Row>>): 'new' | 'changed' | 'changed back' | 'unchanged' {
  const before = earlier.at(-1)?.get(id);
  if (!before) return 'new';
  if (fieldChanges(before, row).length === 0) return 'unchanged';
  return earlier.slice(0, -1).some((rows) => rows.has(id) && fieldChanges(rows.get(id)!, row).length === 0) ? 'changed back' : 'changed';
}

export function walkedRowChanges(changes: Iterable<string>): void {
  for (const change of new Set(changes)) walked('sync.records delivery', { 'sync-mode': 'differential', 'row-change': change });
}

/** Records each judged sync's connection: its own, or one another sync delivers to as well. */
export function walkedConnections(scenarios: readonly Scenario[]): void {
  const users = new Map<string, number>();
  for (const s of scenarios) users.set(s.settings.connectionId, (users.get(s.settings.connectionId) ?? 0) + 1);
  for (const s of scenarios) walked('sync.records delivery', { 'webhook-connection': (users.get(s.settings.connectionId) ?? 0) > 1 ? 'shared' : 'own' });
}

/**
 * Rows the first run of each differential sync set up so far did not deliver (Spec › What the
 * service does 3: 'The first run delivers everything in the source'), by scenario label. Judged
 * only where nothing else explains a row missing: the run completed with no record error, the
 * receiver answered 200 to each of its deliveries, and the key is delivered under `id`. A sync on
 * a connection another sync delivers to is one of them, so a target that keeps its differential
 * state per connection (the second sync's first run then skips what the first one delivered) shows.
 */
export function firstRunsLost(): string[] {
  const lost: string[] = [];
  for (const [label, s] of scenariosSetUp()) {
    const first = s.runs[0];
    if (!first || s.settings.syncAllRecords || s.settings.skipInitialBackfill) continue;
    if (!s.settings.fields.some((f) => f.source === s.settings.key && f.target === 'id')) continue;
    if (first.outcome.failed || (first.outcome.recordErrors ?? 0) > 0 || first.deliveries.some((d) => d.response.status !== 200)) continue;
    const delivered = new Set(first.deliveries.flatMap((d) => records(d).map((r) => String(r.fields?.id))));
    const missing = [...first.rows.keys()].filter((id) => !delivered.has(id));
    if (missing.length > 0) lost.push(`${label}: ${missing.length} of ${first.rows.size} rows (${missing.slice(0, 3).join(', ')})`);
  }
  return lost;
}
