import { idFromLocation } from '../client/location-id.ts';
import { inject, TestRunner, type TestContext } from 'vitest';
import { ApiClient, TransportError, type ApiResponse } from '../client/http-client.ts';
import { atPointer, idPointer, type CreatedResource, type KindName, type KindProfile, type Profile } from '../profile/profile.ts';
import { errorAnswer } from '../report/error-answers.ts';
import { appendErrorAnswer } from '../report/error-answers-log.ts';
import { Redactor } from '../report/redact.ts';
import { checkSeed, type RunSettings } from '../runner/settings.ts';
import { fillPlaceholders, namesSourceDb, type TemplateValue } from '../profile/template.ts';
import { sourceDbValues } from '../source-db/placeholders.ts';
import { RequestLogWriter } from '../report/request-log.ts';
import { credentialClass } from '../report/credential-class.ts';
import { creationsOf, noteCreation } from './creations.ts';
import { perRun } from '../run-state.ts';

// Shared by every spec file of a run. The runner uses one worker without isolation, so the
// memoised fixtures below are created once per run and reused across files.

let cachedSettings: RunSettings | undefined;
let cachedRedactor: Redactor | undefined;

export function settings(): RunSettings {
  cachedSettings ??= inject('dssc');
  return cachedSettings;
}

export function profile(): Profile {
  return settings().profile;
}

export function redactor(): Redactor {
  const s = settings();
  cachedRedactor ??= new Redactor([s.apiKey, s.orgKey, ...s.secrets]);
  return cachedRedactor;
}

export { KNOWN_VERSIONS } from '../runner/settings.ts';

// Every request the suite sent goes to the raw request log as it is sent (src/report/request-log.ts);
// the runner renders requests.json from it once, at the end of the run or at its interruption.
let requestLog: RequestLogWriter | undefined;
const log = () => (requestLog ??= new RequestLogWriter(settings().reportsDir));
const learned = new Set<string>();

/** An id the target assigned: requests.json names it `<idN>`, so two runs of one seed compare equal. */
export function learnId(id: string): void {
  if (learned.has(id)) return;
  learned.add(id);
  log().learned(id);
}

/** What a check walked of the input space (src/suite/input-space-record.ts): to walked.json, with the check's name. */
export function logWalked(operation: string, values: Record<string, string | number>): void {
  const check = TestRunner.getCurrentTest()?.name;
  log().walked({ operation, values, ...(check ? { check } : {}) });
}

let client: ApiClient | undefined;
let creations: ReturnType<typeof creationsOf> | undefined;
/** The run's client; every request carries the run's X-Service-Version (--api-version) unless told otherwise. */
export function api(): ApiClient {
  const s = settings();
  client ??= new ApiClient({
    baseUrl: s.baseUrl,
    apiKey: s.apiKey,
    orgKey: s.orgKey,
    basic: s.profile.auth?.basic,
    version: s.apiVersion,
    timeoutMs: s.timeoutMs,
    maxRps: s.maxRps,
    deadline: s.deadline,
    maxRetryAfterMs: s.maxRetryAfterMs,
    maxResponseBytes: s.maxResponseBytes,
    redactor: redactor(),
    onExchange: (e) => {
      const url = new URL(e.request.url);
      const h = e.request.headers;
      log().request({
        method: e.request.method,
        path: url.pathname + url.search,
        version: h['x-service-version'] ?? '<absent>',
        credential: credentialClass(h.authorization, { apiKey: s.apiKey, orgKey: s.orgKey, basic: s.profile.auth?.basic }),
        ...(h['content-type'] !== undefined ? { contentType: h['content-type'] } : {}),
        ...(e.request.body !== undefined ? { body: redactor().text(e.request.body) } : {}),
      });
      if (e.response && e.response.status >= 400) keepErrorAnswer(e.request.method, url.pathname + url.search, e.response);
      // What the run creates is deleted at its end (src/runner/delete-created.ts).
      // (The embedded reference ends with the run: nothing of it outlives the run.)
      if (!s.embedded) noteCreation(e, (creations ??= creationsOf(s.profile, s.adapterPath !== undefined)), s.reportsDir, s.baseUrl);
    },
  });
  return client;
}

/**
 * Every error answer goes to a file the runner turns into events of the stream after the pass
 * (ERR-001/002/003 judge them all when the stream is folded). Appended one line at a time, so an
 * interrupted run keeps what it saw; the runner redacts each line as it emits it
 * (src/report/error-answers-log.ts).
 */
function keepErrorAnswer(method: string, path: string, res: { status: number; headers: Record<string, string>; body: string; truncated?: boolean }): void {
  const test = TestRunner.getCurrentTest();
  const version = settings().versionPass?.version;
  const answer = errorAnswer({ method, path, ...res, check: test?.name, version });
  appendErrorAnswer(settings().reportsDir, answer);
}

/** fast-check parameters for one check: the seed depends only on the run seed and the ID. */
export function fcParams(id: string, runs = settings().numRuns) {
  return { seed: checkSeed(settings().seed, id), numRuns: runs, endOnFailure: settings().maxRps !== undefined };
}

let counter = 0;
/** Every resource the suite creates is named dssc-<run id>-…, so an operator can find and clean it. */
export function resourceName(label: string): string {
  counter += 1;
  const pass = settings().versionPass;
  return `dssc-${settings().runId}${pass ? `-v${pass.index}` : ''}-${label}-${counter}`;
}

/** The version this pass runs under (--api-version); the one checks send unless they test another. */
export function apiVersion(): string {
  return settings().apiVersion;
}

/** An id that no target has: the run prefix makes it ours. */
export function unknownId(label: string): string {
  const pass = settings().versionPass;
  return `dssc-${settings().runId}${pass ? `-v${pass.index}` : ''}-missing-${label}`;
}

/** A precondition that is not met is not this check's failure: skip with the reason. */
export class Unmet extends Error {}

/** The target or its adapter declares it cannot do what the check needs: skip as 'unsupported'. */
export class UnsupportedOperation extends Unmet {}

/** Something the check needs failed without an answer to judge (an adapter operation threw): status error. */
export class Unjudgeable extends Error {}

export async function need<T>(t: TestContext, what: string, get: () => Promise<T>): Promise<T> {
  try {
    return await get();
  } catch (error) {
    // No judgeable answer is the check's error, not a precondition the target failed.
    if (error instanceof TransportError || error instanceof Unjudgeable || error instanceof UnsupportedOperation) throw error;
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return t.skip(redactor().text(`precondition not met: ${what}: ${message}`));
  }
}

export function kindProfile(kind: KindName): KindProfile {
  const k = profile().kinds?.[kind];
  if (!k) throw new Unmet(`the profile names no ${kind} kind (kinds.${kind})`);
  return k;
}

/**
 * Replaces {{name}}, {{connectionId}}, {{webhookUrl}} and the source database's placeholders
 * ({{sourceDb.port}}, {{tablePrefix}}, ...: src/profile/template.ts) in a profile template.
 */
export function fillTemplate<T>(template: T, values: Record<string, TemplateValue>): T {
  if (namesSourceDb(template) && !settings().sourceDb) throw new Unmet('the profile names the source database ({{sourceDb.*}}, {{tablePrefix}}) but the run has none');
  return fillPlaceholders(template, { ...sourceDbValues(settings()), ...values });
}

/** Where deliveries of webhook connections made outside the webhook checks go: nowhere (.invalid never resolves). */
export function placeholderWebhookUrl(): string {
  return `https://dssc-${settings().runId}.invalid/hook`;
}

export function connectionBody(kind: KindName, configuration?: Record<string, unknown>): Record<string, unknown> {
  const k = kindProfile(kind);
  const config = configuration ?? k.configuration;
  if (!config) throw new Unmet(`the profile gives no configuration for kinds.${kind}`);
  return {
    name: resourceName(kind),
    type: k.type,
    configuration: fillTemplate(config, { webhookUrl: placeholderWebhookUrl() }),
  };
}

export function idOf(res: ApiResponse, resource: CreatedResource): string {
  const pointer = idPointer(profile(), resource);
  const found = atPointer(res.json, pointer);
  // The spec does not show the creation bodies; a body without the id may name the new resource the
  // way HTTP does, in Location (RFC 9110 §10.2.2): its last path segment is the id.
  const id = typeof found === 'string' && found !== '' ? found : (idFromLocation(res.status, res.headers) ?? found);
  if (typeof id !== 'string' || id === '') {
    throw new Unmet(`no id at ${pointer} of the creation response (${res.status}${typeof id === 'number' ? ', a number' : ''})`);
  }
  learnId(id);
  return id;
}

export async function createConnection(kind: KindName, configuration?: Record<string, unknown>): Promise<{ id: string; res: ApiResponse }> {
  const res = await api().post('/api/connections', connectionBody(kind, configuration));
  if (res.status < 200 || res.status >= 300) throw new Unmet(`creating a ${kind} connection answered ${res.status}`);
  return { id: idOf(res, 'connection'), res };
}

const memo = new Map<string, Promise<unknown>>();
perRun(() => {
  cachedSettings = undefined;
  cachedRedactor = undefined;
  requestLog?.close();
  requestLog = undefined;
  learned.clear();
  client = undefined;
  creations = undefined;
  counter = 0;
  memo.clear();
});

/** Created once per run; a failure is remembered too, so every dependent check skips fast. */
export function once<T>(key: string, make: () => Promise<T>): Promise<T> {
  let p = memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = make();
    p.catch(() => undefined);
    memo.set(key, p);
  }
  return p;
}

/** A connection of a kind to use, not to test: the profile's existing one, or one made for the run. */
export function connectionOf(kind: KindName): Promise<string> {
  return once(`connection:${kind}`, async () => kindProfile(kind).existingId ?? (await createConnection(kind)).id);
}
