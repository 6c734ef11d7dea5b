// WH-013 judged on records as delivered: the hash is "of the record's field key/value pairs", so
// what decides is the pairs the receiver got, not the source rows behind them (a target that
// delivers a wrong value, WH-012's fault, must still hash what it delivered consistently).

export interface DeliveredRecord {
  hash?: unknown;
  fields?: Record<string, unknown>;
}

/** A record's pairs as one string: sorted by name, each value as JSON, so 1 and "1" stay apart. */
export function pairsKey(fields: Record<string, unknown> = {}): string {
  return JSON.stringify(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The one field in which two records' pairs differ; undefined when they are equal, differ in more, or name other fields. */
export function onlyDifference(a: Record<string, unknown> = {}, b: Record<string, unknown> = {}): string | undefined {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length || names.some((n) => !Object.hasOwn(b, n))) return undefined;
  const differing = names.filter((n) => JSON.stringify(a[n]) !== JSON.stringify(b[n]));
  return differing.length === 1 ? differing[0] : undefined;
}

const shown = (v: unknown) => JSON.stringify(v ?? null);
const short = (hash: unknown) => (typeof hash === 'string' ? `${hash.slice(0, 12)}…` : shown(hash));

export interface PairJudgement {
  /** One line per offence, naming the field and the two values. */
  problems: string[];
  /** Fields for which two records equal but for that field were compared. */
  judged: Set<string>;
}

/**
 * Among records of one run: records with equal pairs must share a hash, and two records equal but
 * for one field must not (that field's two values are different values, JSON type included).
 */
export function judgePairs(records: readonly DeliveredRecord[]): PairJudgement {
  const problems: string[] = [];
  const judged = new Set<string>();
  const byPairs = new Map<string, DeliveredRecord>();
  const distinct: DeliveredRecord[] = [];
  for (const r of records) {
    const key = pairsKey(r.fields);
    const twin = byPairs.get(key);
    if (!twin) {
      byPairs.set(key, r);
      distinct.push(r);
    } else if (twin.hash !== r.hash) {
      problems.push(`two records with the same field pairs ${key} got other hashes (${short(twin.hash)}, ${short(r.hash)})`);
    }
  }
  for (const [i, a] of distinct.entries()) {
    for (const b of distinct.slice(i + 1)) {
      const field = onlyDifference(a.fields, b.fields);
      if (field === undefined) continue;
      judged.add(field);
      if (a.hash === b.hash) problems.push(`records equal but for ${field} (${shown(a.fields?.[field])} and ${shown(b.fields?.[field])}) share the hash ${short(a.hash)}`);
    }
  }
  return { problems, judged };
}

/**
 * One row's record in two runs: other pairs need another hash, the same pairs the same hash.
 * `changes` describes what differs, e.g. `score 1 → "1"`.
 */
export function judgeRedelivery(id: string, before: DeliveredRecord, after: DeliveredRecord): string | undefined {
  const same = pairsKey(before.fields) === pairsKey(after.fields);
  if (!same && before.hash === after.hash) {
    const names = [...new Set([...Object.keys(before.fields ?? {}), ...Object.keys(after.fields ?? {})])];
    const changes = names.filter((n) => shown(before.fields?.[n]) !== shown(after.fields?.[n])).map((n) => `${n} ${shown(before.fields?.[n])} → ${shown(after.fields?.[n])}`);
    return `record ${id}: ${changes.join(', ')} between runs, but its hash stayed ${short(after.hash)}`;
  }
  if (same && before.hash !== after.hash) return `record ${id}: the same field pairs in a later run got another hash (${short(before.hash)}, then ${short(after.hash)})`;
  return undefined;
}
