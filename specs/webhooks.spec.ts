import { afterAll, type TestContext } from 'vitest';
import { need, profile, settings, Unjudgeable, Unmet, UnsupportedOperation } from '../src/suite/context.ts';
import { validate } from '../src/schemas.ts';
import { CAPTURE_CASE, captureProblem, endsSeen, FAILING_4XX, FAILING_5XX, failingCases, failingScenarios, laterRunTimestampProblems, readFailingRuns, recoveringRead, SLOW_PLAN, timestampProblems, type SyncMode } from '../src/suite/webhook-answers.ts';
import { deliveredIds, each, fail, given, headerProblem, json, records } from '../src/suite/webhook-judging.ts';
import { rereadProblems } from '../src/suite/webhook-rereads.ts';
import { begin, rereadWithLog, scenario, scenariosSetUp, walkedBatches, writeDeliveryLog, type Scenario, type ScenarioPlan } from '../src/suite/webhook-fixtures.ts';
import { afterFailure, afterFailureStatus, owed } from '../src/suite/webhook-after-failure.ts';
import { values } from '../src/generators/input-space.ts';
import { nameProblem, namesWalked, NAME_CARRIERS } from '../src/suite/webhook-names.ts';
import { walked } from '../src/suite/input-space-record.ts';
import { TransportError } from '../src/client/http-client.ts';
import type { Delivery } from '../src/receiver/index.ts';
import { productProblem } from '../src/suite/user-agent.ts';
import { closeSourceDb } from '../src/suite/webhook-source.ts';
import { describeChanges, fieldChanges, fieldValueClasses, MAIN_EDITS, PAIR_FIELDS, PAIR_ROWS } from '../src/suite/webhook-data.ts';
import { judgePairs, judgeRedelivery, type DeliveredRecord } from '../src/suite/webhook-hash.ts';
import { check, note } from '../src/suite/check.ts';
import { BATCH_1, BATCH_150, batchSizeOf, everyScenario, firstRunsLost, LONG_SOURCE, LONG_SOURCE_DEFAULT, MAIN_FIELDS, MAIN_REVERTS, optionalScenario, rowChange, sourceRowsClass, walkedConnections, walkedRowChanges, walkedSizes } from '../src/suite/webhook-breadth.ts';

// Spec › Events (sync.records deliveries), Webhook connection and its advanced sync settings,
// Authentication 5. Deliveries are judged as the capturing receiver got them, byte for byte.

afterAll(writeDeliveryLog);
// The scenarios' tables go when the last webhook check has run (the runner drops them again at the end).
afterAll(closeSourceDb);

/**
 * Written to a sync's error-handling settings before its third run (preceded-by: a settings
 * write): a target that rebuilds a sync's job on such a write (a first run again, a reset mode)
 * shows on the run after it.
 */
const SETTINGS_WRITE = { notify_on_record_errors: true };

/**
 * Values that look like a number and a boolean stay strings; a key in mixed case and a non-ASCII
 * value stay as given; 24 pairs, past the caps a vendor might put on the list (5, 10, 16, 20) (WH-014).
 */
const METADATA = { team: 'dssc', purpose: 'conformance', shard: '1', live: 'true', 'Data-Owner': 'Zoë Ünïcode', ...Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`pair-${String(i + 6).padStart(2, '0')}`, `value ${i + 6}`])) };

/**
 * 250 generated and the edge rows, default batch size, metadata set, MAIN_FIELDS; run 2 after
 * MAIN_EDITS and 3 added rows, run 3 after MAIN_REVERTS (rows changed back).
 */
const MAIN_PLAN: ScenarioPlan = { rows: 250, edgeRows: true, fields: MAIN_FIELDS, sync: { metadata: METADATA }, later: [{ edits: MAIN_EDITS, add: 3 }, { edits: MAIN_REVERTS, errorHandling: SETTINGS_WRITE }] };
const main = () => scenario('main', MAIN_PLAN);
/**
 * Its webhook connection's URL carries a query, which each delivery must keep (WH-001), and its
 * receiver answers 200 with the text OK, not JSON: the run must go on after each (WH-015, WH-016).
 */
const SMALL_PLAN: ScenarioPlan = { rows: 50, sync: { batchSize: 7 }, urlQuery: 'source=dssc&batch=7', answerBody: 'text' };
const small = () => scenario('batch-7', SMALL_PLAN);
/** The long source in batches of 500, or at the default size where the target refuses 500 (a refusal is not judged). */
const longSource = () =>
  scenario('long-source', LONG_SOURCE).catch((error: unknown) => {
    if (error instanceof TransportError || error instanceof UnsupportedOperation) throw error;
    return scenario('long-source-default', LONG_SOURCE_DEFAULT);
  });
/**
 * Every delivery of every sync: main, each batch size (1, 7, the default, and 150 unless the
 * target refuses a size that large; the long source's 500, or the default where it is refused), each mode, and every sync set up before (failing receivers' included). A header or a body wrong on one path
 * only (a batch of one record, a small body, the last batch) shows on some of them.
 */
const every = (t: TestContext) => need(t, 'syncs of every batch size and mode', () => everyScenario([main, small, () => scenario('batch-1', BATCH_1), fullSync, skipBackfill], [() => scenario('batch-150', BATCH_150), longSource]));

/**
 * The first runs of the breadth scenarios (every() but batch 150, which reads main's source after
 * main's runs), each started before any is waited for: they go on side by side on the target while
 * the requests keep one order (begin, webhook-fixtures.ts). A setup that fails is met again, as
 * begin remembers it, by the check that needs the scenario.
 */
async function startEvery(): Promise<void> {
  const plans: Array<[string, ScenarioPlan]> = [['main', MAIN_PLAN], ['batch-7', SMALL_PLAN], ['batch-1', BATCH_1], ['full-sync', FULL_SYNC_PLAN], ['skip-backfill', SKIP_BACKFILL_PLAN], ['long-source', LONG_SOURCE]];
  for (const [label, plan] of plans) await begin(label, plan).catch(() => undefined);
}

check('WH-001 a delivery is an HTTP POST to the webhook connection\'s URL', async (t) => {
  await startEvery();
  await given(t, main);
  const all = await every(t);
  for (const s of all) walked('sync.records delivery', { 'webhook-url': s.url === undefined ? 'plain' : 'with query' });
  each(all, (d, s) => {
    const url = new URL(s.url ?? s.channel.url);
    // A tunnel (--receiver-public-url) may drop a prefix of the path: what must arrive is the
    // receiver's own part of it, from its channel segment on, with nothing after it.
    const own = url.pathname.slice(url.pathname.lastIndexOf('/c/'));
    if (d.method !== 'POST') return `method ${d.method}`;
    const q = d.path.indexOf('?');
    const [path, search] = q === -1 ? [d.path, ''] : [d.path.slice(0, q), d.path.slice(q)];
    return path.endsWith(own) && search === url.search ? undefined : `sent to ${JSON.stringify(d.path)}, but the webhook connection's URL is ${url.pathname}${url.search}`;
  });
});

check('WH-002 the delivery body is a gzip stream', async (t) => {
  await given(t, main);
  each(await every(t), (d) => (!d.gzip ? 'the body does not start with the gzip magic bytes' : d.violations.find((v) => /gzip|inflated/.test(v))));
});

check('WH-003 Content-Type is application/json', async (t) => {
  await given(t, main);
  each(await every(t), (d) => headerProblem(d, 'content-type', true));
});

check('WH-004 Accept-Encoding includes gzip', async (t) => {
  await given(t, main);
  each(await every(t), (d) => headerProblem(d, 'accept-encoding', true));
});

check('WH-005 Content-Length is present and equals the body bytes received', async (t) => {
  await given(t, main);
  each(await every(t), (d) => {
    const header = d.headers['content-length'];
    if (header === undefined) return 'no Content-Length header';
    // A length that lies shows on the connection: bytes left after the body, or a body cut short.
    const lie = d.violations.find((v) => /Content-Length/.test(v));
    if (lie) return `Content-Length ${header}: ${lie}`;
    return Number(header) === d.bodyBytes ? undefined : `Content-Length ${header}, ${d.bodyBytes} bytes received`;
  });
});

check('WH-006 Service-Signature-Timestamp is an ISO 8601 UTC timestamp', async (t) => {
  await given(t, main);
  each(await every(t), (d) => headerProblem(d, 'service-signature-timestamp'));
});

check('WH-007 Service-Signature-Timestamp is fresh at arrival, not ahead of it, never goes backwards in a run, and is not older than its run', async (t) => {
  const s = await given(t, main);
  // The slow receiver answers the first batch after 1.5 s: the second is created that much later.
  const slow = await need(t, 'a sync delivering to a receiver that answers slowly', () => scenario('slow-receiver', SLOW_PLAN));
  const { timestampToleranceS, clockSkewS } = settings();
  for (const [label, sc] of [['main', s], ['slow-receiver', slow]] as const) {
    for (const [i, run] of sc.runs.entries()) {
      const bad = timestampProblems(run, timestampToleranceS, clockSkewS);
      if (bad.length > 0) fail(`${label} run ${i + 1}: ${bad.length} of ${run.deliveries.length} deliveries: ${bad[0]!.problem}`, bad.map((x) => x.d));
    }
    const stale = laterRunTimestampProblems(sc.runs);
    if (stale.length > 0) fail(`${label}: ${stale.length} deliveries of later runs: ${stale[0]!.problem}`, stale.map((x) => x.d));
  }
});

check('WH-008 Authorization is Bearer <the secret returned at creation>, the same on every delivery', async (t) => {
  await given(t, main);
  each(await every(t), (d, s) => {
    const auth = d.headers.authorization;
    if (auth === undefined) return 'no Authorization header';
    // RFC 9110 §11.1: the scheme name is case-insensitive; §11.4: one or more spaces before the credential.
    const credential = /^bearer +(.*)$/i.exec(auth)?.[1];
    return credential === s.secret ? undefined : 'Authorization is not Bearer followed by the secret returned when the webhook connection was created';
  });
});

check('WH-023 Host names the receiver: the host and port of the URL the target was given', async (t) => {
  await given(t, main);
  each(await every(t), (d, s) => {
    const url = new URL(s.channel.url);
    const defaultPort = url.protocol === 'https:' ? '443' : '80';
    // url.host leaves out a default port, so both spellings of the same receiver are accepted.
    const accepted = new Set([url.host.toLowerCase(), `${url.hostname}:${url.port || defaultPort}`.toLowerCase()]);
    const host = d.headers.host;
    if (host === undefined) return 'no Host header';
    return accepted.has(host.toLowerCase()) ? undefined : `Host ${JSON.stringify(host)}, but the target was given ${url.host}`;
  });
});

check('WH-009 User-Agent is a service name followed by a release label', async (t) => {
  await given(t, main);
  const declared = profile().webhooks?.productName;
  await note(t, declared === undefined
    ? 'the profile declares no product name (webhooks.productName): any product and release label is accepted, so an HTTP library\'s name would pass for the service\'s'
    : `the User-Agent's first product is compared with the declared product name ${declared} (case-insensitive)`);
  each(await every(t), (d) => headerProblem(d, 'user-agent') ?? (declared === undefined ? undefined : productProblem(d.headers['user-agent']!, declared)));
});

check('WH-010 the body is JSON of the delivery shape with event sync.records', async (t) => {
  await given(t, main);
  each(await every(t), (d) => {
    if (d.aborted) return undefined; // the body never arrived whole: WH-005 judges the transfer.
    const body = json(d);
    if (body === undefined) return `the body is not JSON${d.violations.length ? ` (${d.violations.join(', ')})` : ''}`;
    const errors = validate('webhook-delivery-body.schema.json', body);
    return errors.length === 0 ? undefined : `the body does not match the delivery shape: ${errors.slice(0, 3).join('; ')}`;
  });
});

check('WH-012 each record holds exactly the selected fields, under their target names, with the source values', async (t) => {
  const s = await given(t, main);
  const names = MAIN_FIELDS.map((f) => f.target).sort();
  // Each delivery is compared with the rows as they were when its run started.
  const rowsOf = new Map(s.runs.flatMap((r) => r.deliveries.map((d) => [d, r.rows] as const)));
  const compared = new Set<string>();
  each(s, (d) => {
    const rows = rowsOf.get(d)!;
    for (const r of records(d)) {
      const keys = Object.keys(r.fields ?? {}).sort();
      if (JSON.stringify(keys) !== JSON.stringify(names)) return `a record has fields ${JSON.stringify(keys)}, selected are ${JSON.stringify(names)}`;
      const row = rows.get(String(r.fields?.id));
      if (!row) return `a record with id ${JSON.stringify(r.fields?.id)} that the source does not have`;
      for (const f of MAIN_FIELDS) if (r.fields?.[f.target] !== row[f.source]) return `record ${String(row.id)}: ${f.target} is ${shown(r.fields?.[f.target])}, the source has ${shown(row[f.source])}`;
      for (const f of MAIN_FIELDS) for (const c of fieldValueClasses(row[f.source])) compared.add(c);
    }
    return undefined;
  });
  for (const c of compared) walked('sync.records delivery', { 'field-value': c });
});

/** A value for a message: a long string by its length, its start and its end. */
const shown = (v: unknown) => (typeof v === 'string' && v.length > 80 ? `a string of ${v.length} characters (${JSON.stringify(v.slice(0, 20))}…${JSON.stringify(v.slice(-20))})` : JSON.stringify(v));

const hashPairs = () => scenario('hash-pairs', { rows: 0, source: PAIR_ROWS, fields: PAIR_FIELDS });
/** The same pairs selected in reverse order, by a second sync on main's own webhook connection (a connection two syncs share: WH-011). */
const hashOrder = () => scenario('hash-order', { rows: 0, sourceOf: 'main', connectionOf: 'main', fields: [...MAIN_FIELDS].reverse() });

check('WH-013 hash is determined by the field pairs: same pairs same hash in any order, other values other hashes', async (t) => {
  const s = await given(t, main);
  const problems: string[] = [];
  // Records equal but for one field, each field in turn, JSON types included: a sync that leaves
  // the key out, over rows built in pairs (records of rows that differ in id never are).
  const pairs = await need(t, 'a sync selecting every field but the key, over rows built in pairs', hashPairs);
  const paired = judgePairs(pairs.runs[0]!.deliveries.flatMap(records));
  problems.push(...paired.problems);
  const unjudged = PAIR_FIELDS.map((f) => f.target).filter((name) => !paired.judged.has(name));
  if (paired.problems.length === 0 && unjudged.length > 0) {
    throw new Unjudgeable(`the hash-pairs sync delivered no two records equal but for ${unjudged.join(', ')} (its records: WH-012, WH-016)`);
  }
  // Main: every record of its first run has other pairs (ids differ), so another hash; a row
  // delivered again must change hash with its pairs (MAIN_EDITS change each field), and only then.
  const first = new Map<string, DeliveredRecord>();
  for (const d of s.runs[0]!.deliveries) for (const r of records(d)) first.set(String(r.fields?.id), r);
  problems.push(...judgePairs([...first.values()]).problems);
  const firstHashes = new Map([...first.values()].map((r) => [r.hash, r]));
  if (firstHashes.size < first.size) problems.push(`main run 1: ${first.size - firstHashes.size} records with other field pairs share a hash`);
  const latest = new Map(first);
  for (const d of s.runs.slice(1).flatMap((r) => r.deliveries)) {
    for (const r of records(d)) {
      const id = String(r.fields?.id);
      const before = latest.get(id);
      const problem = before && judgeRedelivery(id, before, r);
      if (problem) problems.push(problem);
      latest.set(id, r);
    }
  }
  // The same pairs selected in reverse order: each record with the pairs main last delivered for its row gets that hash.
  const reversed = await need(t, 'a second sync over the same source with the fields in reverse order', hashOrder);
  for (const r of reversed.runs[0]!.deliveries.flatMap(records)) {
    const id = String(r.fields?.id);
    const mine = latest.get(id);
    for (const p of mine ? judgePairs([mine, r]).problems : []) problems.push(`record ${id}, the fields selected in reverse order: ${p}`);
  }
  if (problems.length > 0) fail(`${problems.length} hash problems: ${problems.slice(0, 4).join('; ')}`);
});

check('WH-014 object.metadata holds exactly the sync\'s Metadata pairs', async (t) => {
  const s = await given(t, main);
  each(s, (d) => {
    const o = (json(d) as { object?: { metadata?: unknown } } | undefined)?.object;
    if (!o) return undefined; // WH-010 judges the shape.
    const m = o.metadata;
    return JSON.stringify(m) === JSON.stringify(METADATA) || JSON.stringify(sortKeys(m)) === JSON.stringify(sortKeys(METADATA)) ? undefined : `object.metadata is ${JSON.stringify(m)}, the sync's Metadata is ${JSON.stringify(METADATA)}`;
  });
});

function sortKeys(v: unknown): unknown {
  return v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v;
}

check('WH-015 a delivery holds at most the batch size: 100 by default, the sync\'s setting when set', async (t) => {
  await given(t, main);
  const all = await every(t);
  walkedSizes(all);
  each(all, (d, s) => (records(d).length <= batchSizeOf(s) ? undefined : `${records(d).length} records with batch size ${batchSizeOf(s)}${s.settings.batchSize === undefined ? ' (the default)' : ''}`));
  // Batching must be used, not skipped: 50 rows need at least 8 deliveries, 3 rows by one at least 3. (Counting records is WH-016's.)
  // Their receivers answer 200 with other bodies than main's (text, none): the answer is 200 all the same.
  for (const [s, rows, least] of [[await small(), 50, 8], [await scenario('batch-1', BATCH_1), 3, 3]] as const) {
    if (s.runs[0]!.deliveries.length < least) fail(`${rows} rows with batch size ${batchSizeOf(s)} came in ${s.runs[0]!.deliveries.length} deliveries${s.answerBody ? ` (the receiver answered 200 with ${s.answerBody === 'text' ? 'the text OK' : 'no body'}; the run ended ${JSON.stringify(s.runs[0]!.outcome.status)})` : ''}`, s.runs[0]!.deliveries);
    walked('sync.records delivery', { 'success-answer': s.answerBody ?? 'json' });
  }
  walked('sync.records delivery', { 'success-answer': 'json' });
});

check('WH-016 within a run every row arrives exactly once: none lost, none duplicated', async (t) => {
  const s = await given(t, main);
  const small_ = await need(t, 'a sync with batch size 7', small);
  // A source past the common page sizes (left out only when neither its batch size nor the default is taken).
  let refused: string | undefined;
  const long = await optionalScenario(longSource, (why) => (refused = why));
  if (refused !== undefined) await note(t, `the long source (${LONG_SOURCE.rows} rows) was left out: ${refused}`);
  else if (long?.settings.batchSize === undefined) await note(t, `the target refused batch size ${LONG_SOURCE.sync!.batchSize}: the long source (${LONG_SOURCE.rows} rows) came at the default size`);
  // The first run of a sync delivers every row (Spec › What the service does 3), so what it must hold is known.
  for (const [label, sc] of [['main', s], ['batch-7', small_], ...(long ? [['long-source', long] as const] : [])] as const) {
    const sourceRows = sourceRowsClass(sc.runs[0]!.rows.size);
    if (sourceRows) walked('sync.records delivery', { 'source-rows': sourceRows });
    const ids = deliveredIds(sc.runs[0]!.deliveries);
    const seen = new Set(ids);
    const lost = [...sc.runs[0]!.rows.keys()].filter((id) => !seen.has(id));
    if (ids.length > seen.size || lost.length > 0) {
      fail(`${label} run 1: ${lost.length} rows lost (${lost.slice(0, 5).join(', ')}), ${ids.length - seen.size} records duplicated`, sc.runs[0]!.deliveries);
    }
  }
  // No duplicate in any run of any mode: differential, full sync (each later run carries every row
  // again) and skip backfill. What a later run must hold is WH-017..019's rule, judged there.
  const full = await need(t, 'a sync with full sync on', fullSync);
  const skip = await need(t, 'a sync with skip backfill', skipBackfill);
  for (const [label, sc] of [['main', s], ['full-sync', full], ['skip-backfill', skip]] as const) {
    for (const [i, r] of sc.runs.entries()) {
      const ids = deliveredIds(r.deliveries);
      if (ids.length > new Set(ids).size) fail(`${label} run ${i + 1}: ${ids.length - new Set(ids).size} records duplicated`, r.deliveries);
    }
  }
});

/**
 * Full sync in batches of 10: runs 1 and 2 (no change) in one batch, run 3 after 22 added rows in
 * three (a setting honoured once is not enough, and a run of one batch and of several differ).
 */
const FULL_SYNC_PLAN: ScenarioPlan = { rows: 8, sync: { syncAllRecords: true, batchSize: 10 }, later: [{}, { add: 22, errorHandling: SETTINGS_WRITE }] };
const fullSync = () => scenario('full-sync', FULL_SYNC_PLAN);
/**
 * Skip backfill in batches of 2 over 31 rows (not a multiple of the size: a baseline kept per full
 * batch misses the last row): run 1 sends nothing, run 2 after 2 added rows one full batch, run 3 after 7 four.
 */
const SKIP_BACKFILL_PLAN: ScenarioPlan = { rows: 31, sync: { skipInitialBackfill: true, batchSize: 2 }, later: [{ add: 2 }, { add: 7, errorHandling: SETTINGS_WRITE }] };
const skipBackfill = () => scenario('skip-backfill', SKIP_BACKFILL_PLAN);

/** A scenario's runs read again (webhook-rereads.ts): a finished run must read as it ended. */
async function endsLast(label: string, s: Scenario, mode: SyncMode): Promise<void> {
  const changed = await rereadProblems(label, s, mode);
  if (changed.length > 0) fail(`a finished run read again reads otherwise: ${changed.join('; ')}`);
}

check('WH-017 differential: the first run delivers every row, a later run only new or changed rows', async (t) => {
  const s = await given(t, main);
  const first = new Set(deliveredIds(s.runs[0]!.deliveries));
  const missing = [...s.runs[0]!.rows.keys()].filter((id) => !first.has(id));
  if (missing.length > 0) fail(`the first run did not deliver ${missing.length} of ${s.runs[0]!.rows.size} rows (${missing.slice(0, 5).join(', ')})`, s.runs[0]!.deliveries);
  // Every other sync's first run too, a second sync on main's connection and the long source among them.
  await need(t, 'a second sync on the main sync\'s webhook connection', hashOrder);
  await optionalScenario(longSource);
  const lostElsewhere = firstRunsLost();
  if (lostElsewhere.length > 0) fail(`a first run that completed did not deliver every row: ${lostElsewhere.join('; ')}`);
  walkedBatches('differential', s);
  // A row is changed when a selected column's value differs, JSON type included (1 and "1").
  for (const [i, run] of s.runs.entries()) {
    if (i === 0) continue;
    const before = s.runs[i - 1]!.rows;
    const expected = new Map<string, string>();
    const earlier = s.runs.slice(0, i).map((r) => r.rows);
    const changes: string[] = [];
    for (const [id, row] of run.rows) {
      const old = before.get(id);
      const change = rowChange(id, row, earlier);
      changes.push(change);
      if (!old) expected.set(id, 'new');
      else if (fieldChanges(old, row).length > 0) expected.set(id, `${change === 'changed back' ? 'changed back: ' : ''}${describeChanges(fieldChanges(old, row))}`);
    }
    walkedRowChanges(changes);
    const delivered = new Set(deliveredIds(run.deliveries));
    const lost = [...expected].filter(([id]) => !delivered.has(id)).map(([id, why]) => `${id} (${why})`);
    const unchanged = [...delivered].filter((id) => !expected.has(id));
    if (lost.length > 0 || unchanged.length > 0) {
      fail(`run ${i + 1}, after ${expected.size} new or changed rows: ${lost.length} of them not delivered${lost.length ? ` (${lost.slice(0, 4).join('; ')})` : ''}, ${unchanged.length} unchanged rows delivered${unchanged.length ? ` (${unchanged.slice(0, 5).join(', ')})` : ''}`, run.deliveries);
    }
  }
  await endsLast('main', s, 'differential');
});

check('WH-018 with full sync on, every run delivers every row', async (t) => {
  const s = await given(t, fullSync);
  walkedBatches('full sync', s);
  // The first run delivers every row in any mode; full sync shows in the runs after it.
  for (const [i, r] of s.runs.entries()) {
    if (i === 0) continue;
    const delivered = new Set(deliveredIds(r.deliveries));
    const missing = [...r.rows.keys()].filter((id) => !delivered.has(id));
    if (missing.length > 0) fail(`run ${i + 1} with full sync delivered ${r.rows.size - missing.length} of ${r.rows.size} rows (missing ${missing.slice(0, 5).join(', ')})`, r.deliveries);
  }
  await endsLast('full-sync', s, 'full sync');
});

check('WH-019 with skip backfill on, the first run delivers no existing row, a later run only differences', async (t) => {
  const s = await need(t, 'a sync with skip backfill', skipBackfill);
  const first = deliveredIds(s.runs[0]!.deliveries);
  if (first.length > 0) fail(`the first run delivered ${first.length} pre-existing rows`, s.runs[0]!.deliveries);
  walkedBatches('skip backfill', s);
  // Nothing changes but rows added: each later run delivers exactly the rows added before it.
  for (const [i, run] of s.runs.entries()) {
    if (i === 0) continue;
    const added = [...run.rows.keys()].filter((id) => !s.runs[i - 1]!.rows.has(id));
    const delivered = [...new Set(deliveredIds(run.deliveries))];
    const lost = added.filter((id) => !delivered.includes(id));
    const extra = delivered.filter((id) => !added.includes(id));
    if (lost.length > 0 || extra.length > 0) fail(`after ${added.length} new rows run ${i + 1} delivered ${delivered.length} records: ${lost.length} new rows missing${lost.length ? ` (${lost.slice(0, 4).join(', ')})` : ''}, ${extra.length} others${extra.length ? ` (${extra.slice(0, 4).join(', ')})` : ''}`, run.deliveries);
  }
  await endsLast('skip-backfill', s, 'skip backfill');
});

/** Every failing case of one requirement, its runs read right away, again later and after another write (webhook-answers.ts). */
async function answersFailRun(t: TestContext, id: string, statuses: readonly number[]): Promise<void> {
  const results = await need(t, 'syncs delivering to receivers that fail', () => failingScenarios(failingCases(statuses)));
  if (results[0]!.run.deliveries.length === 0) fail(`the first run (${results[0]!.run.outcome.status}) delivered nothing to the receiver`);
  const judged = await readFailingRuns(id, results);
  // One more case: the receiver refuses one batch and answers 200 to the others (4xx: the first, 5xx: the middle).
  judged.push(await recoveringRead(id, statuses[1]!, statuses[0]! < 500 ? 'first' : 'middle'));
  const bad = judged.filter((j) => j.problem);
  if (bad.length > 0) fail(`${bad.length} of ${judged.filter((j) => j.judged).length} reads: ${bad.slice(0, 4).map((j) => j.problem).join('; ')}`, [...new Set(bad.map((j) => j.r))].flatMap((r) => r.run.deliveries.slice(-1)));
  if (!judged.some((j) => j.judged)) throw new Unjudgeable(`the receiver never got to answer ${statuses.join(', ')}: no run made a delivery`);
  const first = judged.filter((j) => j.observation === 'right away');
  await note(t, `runs ended ${endsSeen(first.map((j) => ({ c: j.r.c, ...(j.seen ? { seen: j.seen } : {}) })))}; ${judged.filter((j) => j.observation === 'again later').length} read again later, the first also after another run of its sync`);
}

// Each status on the middle batch, and one each on the first, on the last and on a run of one
// batch: a failure counts wherever in the run it comes.
check(`WH-020 a 4xx answer (${FAILING_4XX.join(', ')}) to any batch makes the run recorded as failed`, (t) => answersFailRun(t, 'WH-020', FAILING_4XX));

check(`WH-021 a 5xx answer (${FAILING_5XX.join(', ')}) to any batch makes the run recorded as failed`, (t) => answersFailRun(t, 'WH-021', FAILING_5XX));

check('WH-024 the run after a failed run delivers what the failed run left: the rows it never sent, the refused batch with auto retry on, every row under full sync', async (t) => {
  const problems: string[] = [];
  const evidence: Delivery[] = [];
  let judged = 0;
  for (const mode of values<SyncMode>('sync-mode')) {
    const a = await need(t, `a ${mode} sync with auto_retry_record_errors on whose run the receiver failed`, () => afterFailure(mode));
    // The failing answer never given (everything in one batch): nothing was left behind by a refusal.
    if (!a.failed.deliveries.some((d) => d.response.status === afterFailureStatus(mode))) continue;
    judged++;
    const due = owed(a);
    const delivered = new Set(deliveredIds(a.next.deliveries));
    const lost = [...due].filter(([id]) => !delivered.has(id));
    if (lost.length > 0) {
      problems.push(`${mode}: the run after the failed run delivered ${due.size - lost.length} of the ${due.size} rows it owed (${lost.slice(0, 3).map(([id, why]) => `${id}: ${why}`).join('; ')})`);
      evidence.push(...a.next.deliveries, ...a.failed.deliveries);
    }
    if (a.autoRetryAfter === false) problems.push(`${mode}: auto_retry_record_errors, written true before the first run, answers false after the runs (PUT {})`);
  }
  if (problems.length > 0) fail(`${problems.length} of the ${judged} modes judged: ${problems.join('; ')}`, evidence);
  if (judged === 0) throw new Unjudgeable('no run of the after-failure syncs got the failing answer: the target sent each run in one batch');
});

/** Capture off, and a second run after 2 added rows: a setting honoured on the first run only is not enough. */
const captureOff = () => scenario('capture-off', { rows: 5, sync: { recordRequests: false }, later: [{ add: 2 }] });

check('WH-022 with capture on (default) each request and its response are logged, one entry per request; with capture off none is', async (t) => {
  const on = await given(t, main);
  const unread = on.runs.find((r) => r.outcome.captured === null);
  if (unread) throw new Unmet(unread.captureProblem ? `the capture log could not be read: ${unread.captureProblem}` : 'the capture log is not observable: the adapter returns captured: null');
  // A failing receiver: the failing answer must be logged as it was given.
  const [failing] = await need(t, `a sync delivering to a receiver that answers ${CAPTURE_CASE.status} from its second batch`, () => failingScenarios([CAPTURE_CASE]));
  const runs = [...on.runs.map((r, i) => [`main run ${i + 1}`, r] as const), [`${CAPTURE_CASE.status} from batch 2`, failing!.run] as const];
  const unreadRun = runs.find(([, r]) => r.outcome.captured === null)?.[1];
  if (unreadRun) throw new Unmet(`the capture log could not be read: ${unreadRun.captureProblem ?? 'the adapter returns captured: null'}`);
  for (const [label, run] of runs) {
    const problem = captureProblem(label, run);
    if (problem) fail(`capture is on by default, but ${problem}`, run.deliveries);
  }
  // "Logged in the sync history": main's first run's log, read again after its later runs, is still the whole log.
  if (on.runs.length > 1) {
    const first = on.runs[0]!;
    const again = await rereadWithLog(on, first);
    if (again.outcome.captured !== null) {
      walked('sync.records delivery', { 'sync-mode': 'differential', 'failing-batch': 'none', observation: 'after another write' });
      const problem = captureProblem(`main run 1 read again after its ${on.runs.length - 1} later runs`, { ...first, outcome: again.outcome });
      if (problem) fail(`capture is on by default, but ${problem}`, first.deliveries);
    }
  }
  const off = await given(t, captureOff);
  for (const [i, run] of off.runs.entries()) {
    const offLog = run.outcome.captured;
    if (offLog === null && run.captureProblem) throw new Unmet(`the capture log could not be read: ${run.captureProblem}`);
    if (offLog && offLog.length > 0) fail(`capture is off, but run ${i + 1} of the sync logs ${offLog.length} exchanges in its history`, run.deliveries);
  }
  // Capture only keeps a log ('Keeps a log of each request and response'): turned off, the sync
  // delivers as before, and a run its receiver answered 200 throughout does not fail (Events ›
  // Emission 2-3: 200 is success, only a 4xx or 5xx makes the sync appear failed).
  for (const [i, run] of off.runs.entries()) {
    if (run.outcome.failed) fail(`capture is off, and run ${i + 1} ended ${JSON.stringify(run.outcome.status)} (a word the profile maps to failed) although the receiver answered 200 to its ${run.deliveries.length} deliveries${run.outcome.errors?.length ? `: ${run.outcome.errors[0]}` : ''}`, run.deliveries);
  }
});

/** The scenarios whose sync names carry the string-length classes (webhook-names.ts). */
const NAMED: Record<(typeof NAME_CARRIERS)[number], () => Promise<Scenario>> = {
  main,
  'full-sync': fullSync,
  'skip-backfill': skipBackfill,
  'capture-off': captureOff,
  'hash-pairs': hashPairs,
  'hash-order': hashOrder,
  'answer-413-middle-of-3-size-default': async () => (await failingScenarios([CAPTURE_CASE]))[0]!.s,
};

// Last, so that it judges every scenario the run set up: names of every length class (their
// carriers are set up here when no other check did), and the usual names of all the others.
check('WH-011 object.id and object.name are the sync\'s id and configured name', async (t) => {
  await given(t, main);
  const missing: string[] = [];
  for (const label of NAME_CARRIERS) {
    await NAMED[label]().catch((error: unknown) => {
      if (error instanceof TransportError) throw error;
      missing.push(`${label} (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    });
  }
  const all = [...scenariosSetUp()];
  const labelOf = new Map(all.map(([label, sc]) => [sc, label]));
  each(all.map(([, sc]) => sc), (d, sc) => {
    const o = (json(d) as { object?: { id?: unknown; name?: unknown } } | undefined)?.object;
    if (!o) return undefined; // WH-010 judges the shape.
    if (o.id !== sc.sync.id) return `${labelOf.get(sc)}: object.id ${JSON.stringify(o.id)}, the sync is ${JSON.stringify(sc.sync.id)}`;
    const problem = nameProblem(o.name, sc.settings.name);
    return problem && `${labelOf.get(sc)}: ${problem}`;
  });
  walkedConnections(all.map(([, sc]) => sc));
  const walkedNames = namesWalked(all, missing);
  for (const c of walkedNames.classes) walked('sync.records delivery', { 'string-length': c });
  await note(t, walkedNames.note);
});
