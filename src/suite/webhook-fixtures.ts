import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { loadAdapter } from '../adapters/load.ts';
import { TransportError } from '../client/http-client.ts';
import { pollSettings } from '../adapters/options.ts';
import type { Row, RunOutcome, TargetAdapter, WebhookSyncSettings } from '../adapters/types.ts';
import { fakerValue } from '../generators/from-schema.ts';
import { values, type DimensionValue } from '../generators/input-space.ts';
import { startReceiver, type Channel, type Delivery, type Receiver, type ScriptedResponse, type SuccessBody } from '../receiver/index.ts';
import { checkSeed } from '../runner/settings.ts';
import { perRun } from '../run-state.ts';
import { api, learnId, once, redactor, resourceName, settings, Unjudgeable, Unmet, UnsupportedOperation } from './context.ts';
import { applyEdits, EDGE_ROWS, FIELDS, type RowEdit } from './webhook-data.ts';
import { openSource, unmet, type FedSource } from './webhook-source.ts';
import { announceDelivery, waitingFor } from './progress.ts';
import { classedName, nameClass } from './webhook-names.ts';
import { walked } from './input-space-record.ts';

// The webhook checks share a few scenarios (a sync, its source rows, its runs and what the receiver
// got), each set up once per run: a scenario is evidence that several requirements judge.

/** How long one run is waited for: the profile's adapter.poll.timeoutMs (default 10 min, as a real service's runs can queue). */
export function runTimeoutMs(): number {
  return pollSettings(settings().profile).timeoutMs;
}

export function receiver(): Promise<Receiver> {
  return once('receiver', async () => {
    const r = settings().receiver;
    try {
      return await startReceiver({ host: r.host, port: r.port, ...(r.publicUrl ? { publicUrl: r.publicUrl } : {}), keepInflated: false, onDelivery: (d) => announceDelivery(deliveryRecord(d)) });
    } catch (error) {
      throw new Unmet(`the capturing receiver could not listen on ${r.host}:${r.port} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  });
}

export function adapter(): Promise<TargetAdapter> {
  return once('adapter', async () => {
    const s = settings();
    return loadAdapter(s.adapterPath, {
      baseUrl: s.baseUrl,
      apiKey: s.apiKey,
      runId: s.runId,
      timeoutMs: s.timeoutMs,
      options: s.adapterOptions ?? {},
      poll: pollSettings(s.profile),
      request: async (method, path, body) => {
        const res = await api().send({ method, path, ...(body !== undefined ? { body } : {}) });
        // Ids the adapter gets back are the target's: learn them so the request log stays comparable.
        const id = (res.json as { data?: { id?: unknown } } | undefined)?.data?.id;
        if (typeof id === 'string') learnId(id);
        return { status: res.status, json: res.json, headers: res.headers };
      },
    }, s.profile.adapter?.declarative);
  });
}

/** Source rows from fast-check with faker values, seeded by the run seed and the scenario. */
export function generateRows(label: string, count: number, offset = 0): Row[] {
  if (count === 0) return [];
  const row = fc.record({
    email: fakerValue((f) => f.internet.email({ provider: 'example.com' }).toLowerCase()),
    name: fakerValue((f) => f.person.fullName()),
    score: fc.integer({ min: -1000, max: 1_000_000 }),
    active: fc.boolean(),
    note: fakerValue((f) => f.lorem.sentence()),
  });
  const values = fc.sample(row, { numRuns: count, seed: checkSeed(settings().seed, `rows-${label}-${offset}`) });
  return values.map((v, i) => ({ id: `r${String(offset + i).padStart(6, '0')}`, ...v }));
}

export interface RunEvidence {
  /** The target's id of the run, to read its outcome again. */
  runId: string;
  outcome: RunOutcome;
  deliveries: Delivery[];
  /** The source rows as they were when the run started (later steps change them). */
  rows: Map<string, Row>;
  /** Why the run's capture log could not be read (readCaptureLog threw). */
  captureProblem?: string;
  /** Epoch ms just before the suite asked for the run: none of its requests can have been created earlier (WH-007). */
  askedAt?: number;
}

export interface Scenario {
  sync: { id: string; name: string };
  secret: string;
  channel: Channel;
  /** The URL its webhook connection was given, when it is not the channel's own (a query added: ScenarioPlan.urlQuery). */
  url?: string;
  /** How the receiver wrote its 2xx answers, when not as a JSON object (ScenarioPlan.answerBody). */
  answerBody?: SuccessBody;
  settings: WebhookSyncSettings;
  rows: Map<string, Row>;
  runs: RunEvidence[];
  /** The string-length class of the sync's name (webhook-names.ts), when it carries one. */
  nameClass?: DimensionValue;
  /** Why the target refused the classed name: the sync was created under the run's usual name instead. */
  nameRefused?: string;
}

export interface ScenarioPlan {
  rows: number;
  sync?: Partial<WebhookSyncSettings>;
  /** Receiver answers for this scenario's deliveries, in order of arrival (a status, or one after a delay). */
  script?: ScriptedResponse[];
  /** The answer to every delivery after the script (default 200). */
  then?: number;
  /** Instead of a script: refuse the batch after `after` answered ones with `status`, and any later request carrying one of its records (a retry); answer 200 to the rest. */
  refuseOnce?: { status: number; after: number };
  /** Rows from a source written once under this name and shared by every scenario naming it. */
  sharedSource?: string;
  /** Before each run after the first: columns of rows to change (webhook-data.ts), how many rows to add, and a write to the sync's error-handling settings. */
  later?: Array<{ edits?: readonly RowEdit[]; add?: number; errorHandling?: Record<string, unknown> }>;
  /** The sync's error-handling settings, written (Spec › PUT /api/syncs/{id}/error-handling) before its first run. */
  errorHandling?: Record<string, unknown>;
  fields?: typeof FIELDS;
  /** Enumerated rows after the generated ones. */
  source?: readonly Row[];
  /** Reuse another scenario's source (for hash comparisons). */
  sourceOf?: string;
  /** Deliver to another scenario's webhook connection (a connection two syncs share); its runs must be over. */
  connectionOf?: string;
  /** Add EDGE_ROWS after the generated rows: values a vendor's serializer gets wrong. */
  edgeRows?: boolean;
  /** A query string (without '?') on the URL the webhook connection is given: a URL is more than its host and path. */
  urlQuery?: string;
  /** How the receiver writes its 2xx answers to this scenario (default a small JSON object): the spec shows no body. */
  answerBody?: SuccessBody;
}

const scenarios = new Map<string, Scenario>();

/** Every scenario set up so far in this run, by label. */
export function scenariosSetUp(): ReadonlyMap<string, Scenario> {
  return scenarios;
}
/** Each source by its id, for the later writes of the scenarios over it. */
const sources = new Map<string, FedSource>();

/**
 * Sets a scenario up and starts its first run without waiting for it: runs started one after
 * another go on side by side, while the requests the suite sends stay in one order (so one seed
 * gives one request log). scenario() with the same label waits for the run.
 */
export function begin(label: string, plan: ScenarioPlan): Promise<{ s: Scenario; ad: TargetAdapter; first: StartedRun }> {
  return once(`begin:${label}`, async () => {
    const [rec, ad] = await Promise.all([receiver(), adapter()]);
    // A sync on another scenario's connection delivers on that scenario's channel, once its runs are done.
    const host = plan.connectionOf === undefined ? undefined : await scenario(plan.connectionOf, { rows: 0 });
    const channel = host?.channel ?? rec.channel(label);
    if (!host) channelLabels.set(channel.id, label);
    if (plan.script || plan.then !== undefined) channel.script(plan.script ?? [], plan.then);
    if (plan.refuseOnce) channel.answerBy(refusingOnce(plan.refuseOnce));
    if (plan.answerBody !== undefined) channel.answerWith(plan.answerBody);
    const url = host ? host.url : plan.urlQuery === undefined ? undefined : `${channel.url}?${plan.urlQuery}`;
    const connection = host ? { id: host.settings.connectionId, secret: host.secret } : await ad.createWebhookConnection(resourceName(`webhook-${label}`), url ?? channel.url).catch(unmet('create a webhook connection'));
    redactor().add(connection.secret);
    let sourceId: string;
    let rows: Map<string, Row>;
    if (plan.sourceOf) {
      const base = await scenario(plan.sourceOf, { rows: 0 });
      sourceId = base.settings.sourceId;
      rows = base.rows;
    } else if (plan.sharedSource) {
      ({ sourceId, rows } = await sharedSource(ad, plan.sharedSource, plan.rows));
    } else {
      rows = new Map([...generateRows(label, plan.rows), ...(plan.source ?? []), ...(plan.edgeRows ? EDGE_ROWS : [])].map((r) => [String(r.id), r]));
      const source = await openSource(ad, label, [...rows.values()]);
      sourceId = source.sourceId;
      sources.set(sourceId, source);
    }
    const usual = resourceName(`sync-${label}`);
    const c = nameClass(label);
    let syncSettings: WebhookSyncSettings = { name: c === undefined ? usual : classedName(usual, c), connectionId: connection.id, sourceId, key: 'id', fields: plan.fields ?? FIELDS, ...plan.sync };
    let nameRefused: string | undefined;
    // The spec sets no limit on a name: a target that refuses one of a class is not failed for it,
    // and its scenario still serves the other checks under the usual name (WH-011 says so).
    const sync = await ad.createModelSync(syncSettings).catch((error: unknown) => {
      if (c === undefined || error instanceof TransportError || (error as Error)?.name === 'Unsupported') return unmet('create a model sync with a webhook destination')(error);
      nameRefused = error instanceof Error ? error.message.split('\n')[0]! : String(error);
      syncSettings = { ...syncSettings, name: usual };
      return ad.createModelSync(syncSettings).catch(unmet('create a model sync with a webhook destination'));
    });
    const s: Scenario = { sync, secret: connection.secret, channel, ...(url !== undefined ? { url } : {}), ...(plan.answerBody !== undefined ? { answerBody: plan.answerBody } : {}), settings: syncSettings, rows, runs: [], ...(c !== undefined ? { nameClass: c } : {}), ...(nameRefused !== undefined ? { nameRefused } : {}) };
    scenarios.set(label, s);
    if (plan.errorHandling) await writeErrorHandling(s, plan.errorHandling, true);
    return { s, ad, first: await startRun(ad, s) };
  });
}

/**
 * The receiver that refuses one batch and recovers: the batch after `after` answered ones is
 * refused, and so is every later request carrying one of its records (a target that retries sees
 * the refusal again, Retry behaviour being not shown); every other batch is answered 200.
 */
function refusingOnce({ status, after }: { status: number; after: number }): (d: Delivery) => number {
  let batches = 0;
  const refused = new Set<string>();
  return (d) => {
    const records = (d.json as { object?: { records?: Array<{ fields?: { id?: unknown } }> } } | undefined)?.object?.records;
    const ids = Array.isArray(records) ? records.map((r) => String(r?.fields?.id)) : [];
    if (ids.some((id) => refused.has(id))) return status;
    batches++;
    if (batches !== after + 1) return 200;
    for (const id of ids) refused.add(id);
    return status;
  };
}

/** Rows shared by scenarios that differ only in the receiver's answers (written once). */
function sharedSource(ad: TargetAdapter, name: string, count: number): Promise<{ sourceId: string; rows: Map<string, Row> }> {
  return once(`source:${name}`, async () => {
    const rows = new Map(generateRows(name, count).map((r) => [String(r.id), r]));
    const source = await openSource(ad, name, [...rows.values()]);
    sources.set(source.sourceId, source);
    return { sourceId: source.sourceId, rows };
  });
}

export function scenario(label: string, plan: ScenarioPlan): Promise<Scenario> {
  return once(`scenario:${label}`, async () => {
    const { s, ad, first } = await begin(label, plan);
    const { rows } = s;
    const sourceId = s.settings.sourceId;
    s.runs.push(await first.finish());
    walked('sync.records delivery', { 'preceded-by': 'nothing' });
    for (const [i, step] of (plan.later ?? []).entries()) {
      const changed = applyEdits(rows, step.edits ?? []);
      const added: Row[] = generateRows(label, step.add ?? 0, 100_000 * (i + 1)).map((r) => ({ ...r, id: `n${i}-${String(r.id)}` }));
      for (const r of [...changed, ...added]) rows.set(String(r.id), r);
      if (changed.length + added.length > 0) await sources.get(sourceId)!.write([...changed, ...added]);
      if (step.errorHandling) await writeErrorHandling(s, step.errorHandling, false);
      s.runs.push(await run(ad, s));
      walked('sync.records delivery', { 'preceded-by': step.errorHandling ? 'a settings write' : 'a completed run' });
    }
    return s;
  });
}

/**
 * Writes a scenario's sync's error-handling settings with the spec's PUT. Its answer is the
 * error-handling checks' to judge; here it matters only when the scenario needs the setting
 * (`needed`: a run is judged by it), and a refusal then leaves the scenario unmet.
 */
export async function writeErrorHandling(s: Scenario, body: Record<string, unknown>, needed: boolean): Promise<void> {
  const res = await api().put(`/api/syncs/${encodeURIComponent(s.sync.id)}/error-handling`, body);
  if (needed && (res.status < 200 || res.status >= 300)) throw new Unmet(`the sync's error-handling settings ${JSON.stringify(body)} could not be written (PUT answered ${res.status})`);
}

export interface StartedRun {
  /** Waits for the run to end: its outcome and the deliveries it made. */
  finish(): Promise<RunEvidence>;
}

async function startRun(ad: TargetAdapter, s: Scenario): Promise<StartedRun> {
  const before = s.channel.deliveries().length;
  const rows = new Map(s.rows);
  const askedAt = Date.now();
  const started = await ad.startRun(s.sync.id).catch(unmet('start a run'));
  return {
    finish: async () => {
      const timeoutMs = runTimeoutMs();
      const ended = await waitingFor(`the target's sync run ${started.id} to end`, timeoutMs, () => ad.waitForRun(s.sync.id, started.id, timeoutMs)).catch(unmet('wait for the run to end'));
      const { outcome, captureProblem } = await withCaptureLog(ad, s.sync.id, started.id, ended);
      return { runId: started.id, outcome, deliveries: s.channel.deliveries().slice(before), rows, askedAt, ...(captureProblem ? { captureProblem } : {}) };
    },
  };
}

/**
 * The run's capture log, when the outcome holds none and the adapter reads it apart
 * (readCaptureLog). A log that cannot be read leaves it unobserved, with the reason: WH-022 is
 * then not judged, and nothing else depends on it.
 */
async function withCaptureLog(ad: TargetAdapter, syncId: string, runId: string, outcome: RunOutcome): Promise<{ outcome: RunOutcome; captureProblem?: string }> {
  if (outcome.captured !== null || !ad.readCaptureLog) return { outcome };
  try {
    return { outcome: { ...outcome, captured: await ad.readCaptureLog(syncId, runId) } };
  } catch (error) {
    return { outcome, captureProblem: redactor().text(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)) };
  }
}

async function run(ad: TargetAdapter, s: Scenario): Promise<RunEvidence> {
  return (await startRun(ad, s)).finish();
}

/** A finished run read again with its capture log, read apart when the adapter reads it so (readCaptureLog). */
export async function rereadWithLog(s: Scenario, r: RunEvidence): Promise<{ outcome: RunOutcome; captureProblem?: string }> {
  return withCaptureLog(await adapter(), s.sync.id, r.runId, await reread(s, r));
}

/** A finished run's outcome read again (the adapter's wait reads an ended run once). */
export async function reread(s: Scenario, r: RunEvidence): Promise<RunOutcome> {
  const ad = await adapter();
  const timeoutMs = runTimeoutMs();
  return waitingFor(`the target's sync run ${r.runId} to be read again`, timeoutMs, () => ad.waitForRun(s.sync.id, r.runId, timeoutMs)).catch(unmet('read a run again'));
}

/**
 * Records a sync's mode and the batches each of its runs sent (1, or 3 and more) where it sent one
 * of those, with its batch size where that is a value of the model (the setting left out: '<default>').
 */
export function walkedBatches(mode: 'differential' | 'full sync' | 'skip backfill', s: Pick<Scenario, 'runs' | 'settings'>): void {
  const configured = s.settings.batchSize;
  const size: Record<string, DimensionValue> = configured === undefined ? { 'batch-size': '<default>' } : values('batch-size').includes(configured) ? { 'batch-size': configured } : {};
  for (const r of s.runs) {
    const n = r.deliveries.length;
    if (n === 1 || n >= 3) walked('sync.records delivery', { 'sync-mode': mode, batches: n >= 3 ? 3 : 1, 'failing-batch': 'none', ...size, observation: 'right away' });
  }
}

/** Starts one more run of a scenario's sync without waiting for it; finish() waits and adds it to the scenario's runs. */
export async function startNext(s: Scenario): Promise<StartedRun> {
  const started = await startRun(await adapter(), s);
  let done: Promise<RunEvidence> | undefined;
  return {
    finish: () =>
      (done ??= started.finish().then((r) => {
        s.runs.push(r);
        return r;
      })),
  };
}

/** Writes `count` new generated rows to a scenario's source (every scenario over a shared source sees them). */
export async function addRows(s: Scenario, label: string, count: number): Promise<void> {
  // Offset by the rows there already: ids stay unique however often rows are added.
  const added = generateRows(label, count, 100_000 + s.rows.size);
  await sources.get(s.settings.sourceId)!.write(added);
  for (const r of added) s.rows.set(String(r.id), r);
}

/** One more run of a scenario's sync, left out of its runs (the checks that share the scenario see none of it). */
export async function runOnce(s: Scenario): Promise<RunEvidence> {
  return run(await adapter(), s);
}

/** The channel each scenario's deliveries arrive on, by channel id: a delivery's record names its scenario. */
const channelLabels = new Map<string, string>();
perRun(() => {
  scenarios.clear();
  sources.clear();
  channelLabels.clear();
});

/** One delivery as the reports show it (secrets redacted). */
function deliveryRecord(d: Delivery) {
  const records = (d.json as { object?: { records?: unknown } } | undefined)?.object?.records; // one read: each parses the body
  return {
    seq: d.seq,
    scenario: d.channel ? channelLabels.get(d.channel) ?? d.channel : null,
    receivedAt: d.receivedAt,
    method: d.method,
    path: d.path,
    headers: redactor().value(Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, k === 'authorization' ? redactor().text(v) : v]))),
    bodyBytes: d.bodyBytes,
    gzip: d.gzip,
    records: Array.isArray(records) ? records.length : null,
    violations: d.violations,
    status: d.response.status,
  };
}

/** Every delivery the receiver got, malformed ones included, for the report (secrets redacted). */
export async function writeDeliveryLog(): Promise<void> {
  const rec = await receiver().catch(() => undefined);
  if (!rec) return;
  const log = rec.deliveries().map(deliveryRecord);
  const dir = settings().reportsDir;
  mkdirSync(dir, { recursive: true });
  const notKept = rec.junkNotKept();
  writeFileSync(join(dir, 'deliveries.json'), JSON.stringify({ receiver: rec.url, deliveries: log, ...(Object.keys(notKept).length > 0 ? { notKept } : {}) }, null, 2) + '\n');
  await rec.close();
}
