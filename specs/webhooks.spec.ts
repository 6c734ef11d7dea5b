import { afterAll, type TestContext } from 'vitest';
import { describeDelivery, type Delivery } from '../src/receiver/index.ts';
import { validate } from '../src/schemas.ts';
import { need, redactor, settings } from '../src/suite/context.ts';
import { CheckFailure } from '../src/suite/expect.ts';
import { FIELDS, scenario, writeDeliveryLog, type Scenario } from '../src/suite/webhook-fixtures.ts';
import { check } from '../src/suite/check.ts';

// Spec › Events (sync.records deliveries), Webhook connection and its advanced sync settings,
// Authentication 5. Deliveries are judged as the capturing receiver got them, byte for byte.

afterAll(writeDeliveryLog);

const METADATA = { team: 'dssc', purpose: 'conformance' };

/** 250 rows, default batch size, metadata set; run 2 after 5 changed and 3 added rows. */
const main = () => scenario('main', { rows: 250, edgeRows: true, sync: { metadata: METADATA }, later: [{ change: 5, add: 3 }] });

function fail(message: string, deliveries: Delivery[] = []): never {
  const shown = deliveries.slice(0, 2).map((d) => describeDelivery(d, (s) => redactor().text(s)));
  throw new CheckFailure(redactor().text([message, ...shown].join('\n\n')));
}

async function given(t: TestContext, get: () => Promise<Scenario>): Promise<Scenario> {
  const s = await need(t, 'a model sync delivering to the capturing receiver', get);
  if (s.runs[0]!.deliveries.length === 0) fail(`the first run (${s.runs[0]!.outcome.status}) delivered nothing to the receiver`);
  return s;
}

/** Checks every delivery of a scenario; the message lists the first offenders. */
function each(s: Scenario, problem: (d: Delivery) => string | undefined): void {
  const all = s.runs.flatMap((r) => r.deliveries);
  const bad = all.map((d) => ({ d, p: problem(d) })).filter((x) => x.p);
  if (bad.length > 0) fail(`${bad.length} of ${all.length} deliveries: ${bad[0]!.p}`, bad.map((x) => x.d));
}

/**
 * A header judged by its property in webhook-delivery-headers.schema.json. Media types and content
 * codings are case-insensitive (RFC 9110), so those values are compared in lower case.
 */
function headerProblem(d: Delivery, name: string, caseInsensitive = false): string | undefined {
  const raw = d.headers[name];
  const value = caseInsensitive && raw !== undefined ? raw.toLowerCase() : raw;
  const errors = validate(`webhook-delivery-headers.schema.json#/properties/${name}`, value);
  return errors.length === 0 ? undefined : `${name} ${JSON.stringify(raw ?? null)}${raw === undefined ? ' (absent)' : ''}`;
}

const records = (d: Delivery): Array<{ hash?: unknown; fields?: Record<string, unknown> }> =>
  ((d.json as { object?: { records?: unknown } } | undefined)?.object?.records as never) ?? [];
const deliveredIds = (ds: Delivery[]) => ds.flatMap((d) => records(d).map((r) => String(r.fields?.id)));

check('WH-001 a delivery is an HTTP POST to the webhook connection\'s URL', async (t) => {
  const s = await given(t, main);
  each(s, (d) => (d.method !== 'POST' ? `method ${d.method}` : undefined));
});

check('WH-002 the delivery body is a gzip stream', async (t) => {
  const s = await given(t, main);
  each(s, (d) => (!d.gzip ? 'the body does not start with the gzip magic bytes' : d.violations.find((v) => /gzip|inflated/.test(v))));
});

check('WH-003 Content-Type is application/json', async (t) => {
  const s = await given(t, main);
  each(s, (d) => headerProblem(d, 'content-type', true));
});

check('WH-004 Accept-Encoding includes gzip', async (t) => {
  const s = await given(t, main);
  each(s, (d) => headerProblem(d, 'accept-encoding', true));
});

check('WH-005 Content-Length is present and equals the body bytes received', async (t) => {
  const s = await given(t, main);
  each(s, (d) => {
    const header = d.headers['content-length'];
    if (header === undefined) return 'no Content-Length header';
    return Number(header) === d.bodyBytes ? undefined : `Content-Length ${header}, ${d.bodyBytes} bytes received`;
  });
});

check('WH-006 Service-Signature-Timestamp is an ISO 8601 UTC timestamp', async (t) => {
  const s = await given(t, main);
  each(s, (d) => headerProblem(d, 'service-signature-timestamp'));
});

check('WH-007 Service-Signature-Timestamp is within the freshness tolerance of arrival', async (t) => {
  const s = await given(t, main);
  const tolerance = settings().timestampToleranceS;
  each(s, (d) => {
    const sent = Date.parse(d.headers['service-signature-timestamp'] ?? '');
    if (Number.isNaN(sent)) return undefined; // WH-006 judges the format.
    const skew = (Date.parse(d.receivedAt) - sent) / 1000;
    return Math.abs(skew) <= tolerance ? undefined : `timestamp ${Math.round(skew)} s ${skew > 0 ? 'before' : 'after'} arrival (tolerance ${tolerance} s)`;
  });
});

check('WH-008 Authorization is Bearer <the secret returned at creation>, the same on every delivery', async (t) => {
  const s = await given(t, main);
  each(s, (d) => {
    const auth = d.headers.authorization;
    if (auth === undefined) return 'no Authorization header';
    // RFC 9110 §11.1: the scheme name is case-insensitive; §11.4: one or more spaces before the credential.
    const credential = /^bearer +(.*)$/i.exec(auth)?.[1];
    return credential === s.secret ? undefined : 'Authorization is not Bearer followed by the secret returned when the webhook connection was created';
  });
});

check('WH-023 Host names the receiver: the host and port of the URL the target was given', async (t) => {
  const s = await given(t, main);
  const url = new URL(s.channel.url);
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  // url.host leaves out a default port, so both spellings of the same receiver are accepted.
  const accepted = new Set([url.host.toLowerCase(), `${url.hostname}:${url.port || defaultPort}`.toLowerCase()]);
  each(s, (d) => {
    const host = d.headers.host;
    if (host === undefined) return 'no Host header';
    return accepted.has(host.toLowerCase()) ? undefined : `Host ${JSON.stringify(host)}, but the target was given ${url.host}`;
  });
});

check('WH-009 User-Agent is a service name followed by a release label', async (t) => {
  const s = await given(t, main);
  each(s, (d) => headerProblem(d, 'user-agent'));
});

check('WH-010 the body is JSON of the delivery shape with event sync.records', async (t) => {
  const s = await given(t, main);
  each(s, (d) => {
    if (d.json === undefined) return `the body is not JSON${d.violations.length ? ` (${d.violations.join(', ')})` : ''}`;
    const errors = validate('webhook-delivery-body.schema.json', d.json);
    return errors.length === 0 ? undefined : `the body does not match the delivery shape: ${errors.slice(0, 3).join('; ')}`;
  });
});

check('WH-011 object.id and object.name are the sync\'s id and configured name', async (t) => {
  const s = await given(t, main);
  each(s, (d) => {
    const o = (d.json as { object?: { id?: unknown; name?: unknown } } | undefined)?.object;
    if (!o) return undefined; // WH-010 judges the shape.
    if (o.id !== s.sync.id) return `object.id ${JSON.stringify(o.id)}, the sync is ${JSON.stringify(s.sync.id)}`;
    return o.name === s.settings.name ? undefined : `object.name ${JSON.stringify(o.name)}, the sync is named ${JSON.stringify(s.settings.name)}`;
  });
});

check('WH-012 each record holds exactly the selected fields, under their target names, with the source values', async (t) => {
  const s = await given(t, main);
  const names = FIELDS.map((f) => f.target).sort();
  // Each delivery is compared with the rows as they were when its run started.
  const rowsOf = new Map(s.runs.flatMap((r) => r.deliveries.map((d) => [d, r.rows] as const)));
  each(s, (d) => {
    const rows = rowsOf.get(d)!;
    for (const r of records(d)) {
      const keys = Object.keys(r.fields ?? {}).sort();
      if (JSON.stringify(keys) !== JSON.stringify(names)) return `a record has fields ${JSON.stringify(keys)}, selected are ${JSON.stringify(names)}`;
      const row = rows.get(String(r.fields?.id));
      if (!row) return `a record with id ${JSON.stringify(r.fields?.id)} that the source does not have`;
      for (const f of FIELDS) if (r.fields?.[f.target] !== row[f.source]) return `record ${String(row.id)}: ${f.target} is ${JSON.stringify(r.fields?.[f.target])}, the source has ${JSON.stringify(row[f.source])}`;
    }
    return undefined;
  });
});

check('WH-013 hash is determined by the field pairs: same pairs same hash in any order, other values other hashes', async (t) => {
  const s = await given(t, main);
  const reversed = await need(t, 'a second sync over the same source with the fields in reverse order', () =>
    scenario('hash-order', { rows: 0, sourceOf: 'main', fields: [...FIELDS].reverse() }));
  const firstHashes = new Map<string, unknown>();
  for (const d of s.runs[0]!.deliveries) for (const r of records(d)) firstHashes.set(String(r.fields?.id), r.hash);
  const all = [...firstHashes.values()];
  if (new Set(all).size !== all.length) fail(`${all.length - new Set(all).size} records with different field values share a hash`, s.runs[0]!.deliveries);
  // Rows whose values changed between run 1 and run 2 must change hash; unchanged ones may be resent.
  const before = s.runs[0]!.rows;
  for (const d of s.runs[1]?.deliveries ?? []) {
    for (const r of records(d)) {
      const id = String(r.fields?.id);
      const old = before.get(id);
      const changed = old !== undefined && FIELDS.some((f) => old[f.source] !== r.fields?.[f.target]);
      if (changed && firstHashes.get(id) === r.hash) fail(`record ${id} changed but its hash did not`, [d]);
    }
  }
  // The reverse-order sync saw the source after main's changes; compare the rows neither touched.
  const changed = new Set(deliveredIds(s.runs[1]?.deliveries ?? []));
  for (const d of reversed.runs[0]!.deliveries) {
    for (const r of records(d)) {
      const id = String(r.fields?.id);
      if (changed.has(id) || !firstHashes.has(id)) continue;
      if (firstHashes.get(id) !== r.hash) fail(`record ${id}: the same field pairs selected in another order got another hash`, [d]);
    }
  }
});

check('WH-014 object.metadata holds exactly the sync\'s Metadata pairs', async (t) => {
  const s = await given(t, main);
  each(s, (d) => {
    const o = (d.json as { object?: { metadata?: unknown } } | undefined)?.object;
    if (!o) return undefined; // WH-010 judges the shape.
    const m = o.metadata;
    return JSON.stringify(m) === JSON.stringify(METADATA) || JSON.stringify(sortKeys(m)) === JSON.stringify(sortKeys(METADATA)) ? undefined : `object.metadata is ${JSON.stringify(m)}, the sync's Metadata is ${JSON.stringify(METADATA)}`;
  });
});

function sortKeys(v: unknown): unknown {
  return v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v;
}

check('WH-015 a delivery holds at most the batch size: 100 by default, the sync\'s setting when set', async (t) => {
  const s = await given(t, main);
  each(s, (d) => (records(d).length <= 100 ? undefined : `${records(d).length} records with the default batch size 100`));
  const small = await need(t, 'a sync with batch size 7', () => scenario('batch-7', { rows: 50, sync: { batchSize: 7 } }));
  each(small, (d) => (records(d).length <= 7 ? undefined : `${records(d).length} records with batch size 7`));
  // Batching must be used, not skipped: 50 rows need at least 8 deliveries. (Counting records is WH-016's.)
  if (small.runs[0]!.deliveries.length < 8) fail(`50 rows with batch size 7 came in ${small.runs[0]!.deliveries.length} deliveries`, small.runs[0]!.deliveries);
});

check('WH-016 within a run every row arrives exactly once: none lost, none duplicated', async (t) => {
  const s = await given(t, main);
  const small = await need(t, 'a sync with batch size 7', () => scenario('batch-7', { rows: 50, sync: { batchSize: 7 } }));
  // The first run of a sync delivers every row (Spec › What the service does 3), so what it must hold is known.
  for (const [label, sc] of [['main', s], ['batch-7', small]] as const) {
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

const fullSync = () => scenario('full-sync', { rows: 30, sync: { syncAllRecords: true }, later: [{ change: 0, add: 0 }] });
const skipBackfill = () => scenario('skip-backfill', { rows: 30, sync: { skipInitialBackfill: true }, later: [{ change: 0, add: 4 }] });

check('WH-017 differential: the first run delivers every row, a later run only new or changed rows', async (t) => {
  const s = await given(t, main);
  const first = new Set(deliveredIds(s.runs[0]!.deliveries));
  const original = [...s.rows.keys()].filter((id) => !id.startsWith('n'));
  const missing = original.filter((id) => !first.has(id));
  if (missing.length > 0) fail(`the first run did not deliver ${missing.length} of ${original.length} rows`, s.runs[0]!.deliveries);
  const second = [...new Set(deliveredIds(s.runs[1]!.deliveries))].sort();
  const expected = [...s.rows.keys()].filter((id) => id.startsWith('n')).concat(original.slice(0, 5)).sort();
  if (JSON.stringify(second) !== JSON.stringify(expected)) {
    fail(`after 5 changed and 3 new rows, the second run delivered ${second.length} records (${second.slice(0, 6).join(', ')}…), expected exactly ${expected.length}`, s.runs[1]!.deliveries);
  }
});

check('WH-018 with full sync on, every run delivers every row', async (t) => {
  const s = await given(t, fullSync);
  // The first run delivers every row in any mode; full sync shows in the runs after it.
  for (const [i, r] of s.runs.entries()) {
    if (i === 0) continue;
    const n = new Set(deliveredIds(r.deliveries)).size;
    if (n !== 30) fail(`run ${i + 1} with full sync and no change delivered ${n} of 30 rows`, r.deliveries);
  }
});

check('WH-019 with skip backfill on, the first run delivers no existing row, a later run only differences', async (t) => {
  const s = await need(t, 'a sync with skip backfill', skipBackfill);
  const first = deliveredIds(s.runs[0]!.deliveries);
  if (first.length > 0) fail(`the first run delivered ${first.length} pre-existing rows`, s.runs[0]!.deliveries);
  const second = [...new Set(deliveredIds(s.runs[1]!.deliveries))];
  if (second.length !== 4 || second.some((id) => !id.startsWith('n'))) fail(`after 4 new rows the second run delivered ${second.length} records (${second.slice(0, 5).join(', ')})`, s.runs[1]!.deliveries);
});

async function answerFailsRun(t: TestContext, status: number): Promise<void> {
  const s = await given(t, () => scenario(`answer-${status}`, { rows: 5, script: [status] }));
  const outcome = s.runs[0]!.outcome;
  if (!outcome.failed) fail(`the receiver answered ${status} and the run ended ${JSON.stringify(outcome.status)}`, s.runs[0]!.deliveries);
}

check('WH-020 a 400 answer from the receiver makes the run appear as failed', (t) => answerFailsRun(t, 400));

check('WH-021 a 503 answer from the receiver makes the run appear as failed', (t) => answerFailsRun(t, 503));

check('WH-022 with capture on (default) each request and response is logged; with capture off none is', async (t) => {
  const on = await given(t, main);
  const log = on.runs[0]!.outcome.captured;
  const sent = on.runs[0]!.deliveries.length;
  if (!log || log.length < sent) fail(`capture is on by default, but the run's history logs ${log ? log.length : 'no'} exchanges for ${sent} deliveries`);
  const off = await given(t, () => scenario('capture-off', { rows: 5, sync: { recordRequests: false } }));
  const offLog = off.runs[0]!.outcome.captured;
  if (offLog && offLog.length > 0) fail(`capture is off, but the run's history logs ${offLog.length} exchanges`);
});
