import fc from 'fast-check';
import type { ApiResponse } from '../client/http-client.ts';
import { arbitraryFor } from '../generators/from-schema.ts';
import { atPointer } from '../profile/profile.ts';
import { validate } from '../schemas.ts';
import { api, fcParams, profile, settings } from './context.ts';
import { CheckFailure, dataOf, expectStatus, fail } from './expect.ts';

// A model of one sync's error-handling settings, for fast-check's model-based testing: sequences
// of PUTs run against the target (first the known-interesting ones, then random ones), and after
// each the rule under test is checked against the model. Each check judges only its own rule and
// then adopts what the target answered, so one broken rule shows up under its own requirement ID
// and not as noise under the others. The same model serves both resources that have a PUT: the
// model sync's (spec) and the bulk sync's (an extension the profile declares).

export const FIELDS = ['auto_retry_record_errors', 'notify_on_record_errors', 'subscribers', 'warning_notifications'] as const;
export const BULK_FIELDS = ['ingestion_failure_threshold', 'subscribers'] as const;
export type Field = (typeof FIELDS)[number] | (typeof BULK_FIELDS)[number];
export type Settings = Partial<Record<Field, unknown>>;

/** One resource whose error handling a PUT updates. */
export interface Resource {
  what: string;
  /** The PUT's path for a sync id. */
  path(id: string): string;
  fields: readonly Field[];
  updateRef: string;
  responseRef: string;
  /** A full, known state to start each sequence from. */
  startState: fc.Arbitrary<Settings>;
  /** PUT bodies from the schema: any subset of the fields, nullable ones sometimes null. */
  updateBody: fc.Arbitrary<Settings>;
}

const enc = encodeURIComponent;

export const MODEL_SYNC: Resource = {
  what: 'model sync',
  path: (id) => `/api/syncs/${enc(id)}/error-handling`,
  fields: FIELDS,
  updateRef: 'sync-error-handling-update.schema.json',
  responseRef: 'sync-error-handling.schema.json#/$defs/response',
  startState: fc.record({
    auto_retry_record_errors: fc.boolean(),
    notify_on_record_errors: fc.boolean(),
    subscribers: arbitraryFor('sync-error-handling-update.schema.json#/properties/subscribers', { noNull: true }),
    warning_notifications: fc.boolean(),
  }),
  updateBody: arbitraryFor('sync-error-handling-update.schema.json') as fc.Arbitrary<Settings>,
};

const BULK_UPDATE = 'bulk-sync-error-handling.schema.json#/$defs/update';

/** The bulk PUT is not shown by the spec: its path is the one the profile declares (errorHandling.bulkWrite). */
export const BULK_SYNC: Resource = {
  what: 'bulk sync',
  path: (id) => (profile().errorHandling?.bulkWrite?.path ?? '/api/bulk/syncs/{id}/error-handling').replace('{id}', enc(id)),
  fields: BULK_FIELDS,
  updateRef: BULK_UPDATE,
  responseRef: 'bulk-sync-error-handling.schema.json#/$defs/response',
  startState: fc.record({
    ingestion_failure_threshold: arbitraryFor(`${BULK_UPDATE}/properties/ingestion_failure_threshold`, { noNull: true }),
    subscribers: arbitraryFor(`${BULK_UPDATE}/properties/subscribers`, { noNull: true }),
  }),
  updateBody: arbitraryFor(BULK_UPDATE) as fc.Arbitrary<Settings>,
};

export interface Model {
  state: Settings;
}
export interface Real {
  syncId: string;
}

/** The target answered 200 without `data` (allowed by the spec), so its state cannot be observed. */
export class NotObservable extends Error {}

const addresses = (v: unknown): string[] => (Array.isArray(v) ? v.map((s) => String(s).toLowerCase()) : []);
const counts = (list: string[]) => list.reduce((m, s) => m.set(s, (m.get(s) ?? 0) + 1), new Map<string, number>());

/**
 * Subscribers as expected (first) and as answered (second): the same addresses, order and case
 * aside, and no address more often than it was expected (an added duplicate is a change; a target
 * that keeps each address once is not wrong, as the spec makes no rule of duplicates).
 */
export function sameSubscribers(expected: unknown, actual: unknown): boolean {
  if (!Array.isArray(actual) && actual !== null && actual !== undefined) return false;
  const want = counts(addresses(expected));
  const got = counts(addresses(actual));
  if (want.size !== got.size) return false;
  for (const [address, n] of got) if (!want.has(address) || n > Math.max(1, want.get(address)!)) return false;
  return true;
}

/** Whether an answered value has the spec's type; one that does not is the answer-shape check's finding. */
export function wellTyped(field: Field, v: unknown): boolean {
  if (field === 'subscribers') return v === null || (Array.isArray(v) && v.every((s) => typeof s === 'string'));
  if (field === 'ingestion_failure_threshold') return v === null || Number.isInteger(v);
  return typeof v === 'boolean';
}

/** Equal as the rules compare: subscribers as lists (sameSubscribers); a wrongly typed list only to an equal value. */
export function sameValue(field: Field, a: unknown, b: unknown): boolean {
  if (field !== 'subscribers') return a === b;
  const list = (v: unknown) => v === undefined || wellTyped(field, v);
  return list(a) && list(b) ? sameSubscribers(a, b) : JSON.stringify(a) === JSON.stringify(b);
}

export async function put(resource: Resource, syncId: string, body: unknown): Promise<{ res: ApiResponse; data: Settings }> {
  const res = await api().put(resource.path(syncId), body);
  expectStatus(res, 200, `PUT ${JSON.stringify(body)}`);
  const data = dataOf(res);
  if (!data) throw new NotObservable('the target answers PUT without data, so the settings after an update cannot be observed');
  return { res, data: data as Settings };
}

/** One PUT as a rule sees it: what was sent, the model's state before, and the target's answer. */
export interface Step {
  resource: Resource;
  syncId: string;
  sent: Settings;
  before: Settings;
  after: Settings;
  res: ApiResponse;
}

/** A rule's finding: what is wrong, with the exchanges that show it (the PUT's when only a string). */
export type Problem = string | { problem: string; evidence: ApiResponse[] } | undefined;
/** A rule may send more requests (the PUT again, a read-back). */
export type Rule = (step: Step) => Problem | Promise<Problem>;

export class Update implements fc.AsyncCommand<Model, Real> {
  readonly resource: Resource;
  readonly body: Settings;
  readonly rule: Rule;
  constructor(resource: Resource, body: Settings, rule: Rule) {
    this.resource = resource;
    this.body = body;
    this.rule = rule;
  }
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const { res, data } = await put(this.resource, real.syncId, this.body);
    const found = await this.rule({ resource: this.resource, syncId: real.syncId, sent: this.body, before: model.state, after: data, res });
    if (found) {
      const { problem, evidence } = typeof found === 'string' ? { problem: found, evidence: [res] } : found;
      fail(`after PUT ${JSON.stringify(this.body)} from ${JSON.stringify(model.state)}: ${problem}`, ...evidence);
    }
    model.state = data;
  }
  toString(): string {
    return `PUT ${JSON.stringify(this.body)}`;
  }
}

/** The first problem any of the rules finds. */
export function allOf(...rules: Rule[]): Rule {
  return async (step) => {
    for (const rule of rules) {
      const found = await rule(step);
      if (found) return found;
    }
    return undefined;
  };
}

export const noRule: Rule = () => undefined;

/** Spec › PUT Rules 1. */
export const omittedUnchanged: Rule = ({ resource, sent, before, after }) => {
  for (const f of resource.fields) {
    if (f in sent) continue;
    if (f in before && !sameValue(f, before[f], after[f])) return `${f} was omitted but changed from ${JSON.stringify(before[f])} to ${JSON.stringify(after[f])}`;
  }
  return undefined;
};

/** Spec › PUT Rules 2, first sentence. A list answered with the wrong type is the answer-shape check's finding. */
export const replacesList: Rule = ({ sent, after }) => {
  const list = sent.subscribers;
  if (!Array.isArray(list) || list.length === 0 || !wellTyped('subscribers', after.subscribers ?? null)) return undefined;
  return sameSubscribers(list, after.subscribers) ? undefined : `subscribers ${JSON.stringify(list)} should replace the list, but it is ${JSON.stringify(after.subscribers)}`;
};

/** Spec › PUT Rules 2, second sentence. */
export const emptyRemovesAll: Rule = ({ sent, after }) => {
  if (!Array.isArray(sent.subscribers) || sent.subscribers.length > 0 || !wellTyped('subscribers', after.subscribers ?? null)) return undefined;
  return sameSubscribers([], after.subscribers) ? undefined : `subscribers [] should remove all subscribers, but the list is ${JSON.stringify(after.subscribers)}`;
};

/** A value sent (not null, not a list) is applied: the answer holds it. An answer of another type is the answer-shape check's finding. */
export const sentApplied: Rule = ({ resource, sent, after }) => {
  for (const f of resource.fields) {
    if (f === 'subscribers' || sent[f] === undefined || sent[f] === null || !wellTyped(f, after[f])) continue;
    if (after[f] !== sent[f]) return `${f} was sent as ${JSON.stringify(sent[f])} but the answer holds ${JSON.stringify(after[f])}`;
  }
  return undefined;
};

/** The answer is `{ data: <the resource's settings> }` with the spec's types. */
export const answerShape: Rule = ({ resource, res }) => {
  const errors = validate(resource.responseRef, res.json);
  return errors.length > 0 ? `the body does not match ${resource.responseRef}:\n  ${errors.join('\n  ')}` : undefined;
};

/**
 * The same PUT sent again answers the same settings. Values of the wrong type are compared as they
 * are (a target that answers them consistently is the answer-shape check's finding only).
 */
export const idempotent: Rule = async ({ resource, syncId, sent, after, res }) => {
  const again = await put(resource, syncId, sent);
  for (const f of resource.fields) {
    if (!(f in after) || !(f in again.data)) continue;
    if (!sameValue(f, after[f], again.data[f])) {
      return { problem: `the same PUT sent again answered ${f} ${JSON.stringify(again.data[f])} instead of ${JSON.stringify(after[f])}`, evidence: [res, again.res] };
    }
  }
  return undefined;
};

/** A way to read a sync's error handling back. */
export interface Reader {
  /** Shown in messages: `GET /api/syncs/{id}/error-handling`. */
  what: string;
  path(id: string): string;
  /** Where the settings are in the answer (RFC 6901). */
  pointer: string;
  /** false: a read value of the wrong type is another check's finding (the spec's GET has its own shape check). */
  judgesTypes: boolean;
}

/**
 * After the PUT, the read answers what the PUT answered, field by field. A field the PUT answered
 * with the wrong type is the answer-shape check's finding; a field the read leaves out is not
 * judged (the spec makes every field of the settings optional in answers).
 */
export function readsBack(reader: Reader): Rule {
  return async ({ resource, syncId, after, res }) => {
    const read = await api().get(reader.path(syncId));
    if (read.status !== 200) return { problem: `${reader.what} answered ${read.status}, not 200`, evidence: [res, read] };
    const data = atPointer(read.json, reader.pointer);
    if (!data || typeof data !== 'object' || Array.isArray(data)) return { problem: `${reader.what} has no settings object at ${reader.pointer || '/'}`, evidence: [res, read] };
    const got = data as Settings;
    for (const f of resource.fields) {
      if (!(f in after) || !wellTyped(f, after[f]) || !(f in got)) continue;
      if (!reader.judgesTypes && !wellTyped(f, got[f])) continue;
      if (!sameValue(f, after[f], got[f])) {
        return { problem: `${reader.what} reads ${f} as ${JSON.stringify(got[f])}, but the PUT answered ${JSON.stringify(after[f])}`, evidence: [res, read] };
      }
    }
    return undefined;
  };
}

/** The model-sync read the profile names (errorHandling.read), if any. */
export function modelSyncReader(): Reader | undefined {
  const read = profile().errorHandling?.read;
  if (!read) return undefined;
  return { what: `GET ${read.path}`, path: (id) => read.path.replace('{id}', enc(id)), pointer: read.pointer ?? '/data', judgesTypes: true };
}

/** The spec's GET /api/bulk/syncs/{id}/error-handling; its types are EHB-001's rule. */
export const BULK_READER: Reader = {
  what: 'GET /api/bulk/syncs/{id}/error-handling',
  path: (id) => `/api/bulk/syncs/${enc(id)}/error-handling`,
  pointer: '/data',
  judgesTypes: false,
};

/** Up to the default --num-runs, each model-based check does the full count. */
export const MODEL_RUNS_FLOOR = 25;
/** The model-sync checks that run the model (EHS-001, 002, 003, 009, 010, 011): past the floor, they share one check's count. */
export const MODEL_CHECKS = 6;

/**
 * Runs of each model-based check at --num-runs n: n up to the default (today's coverage), then
 * n / MODEL_CHECKS (each run is a sequence of up to 8 PUTs, some sent twice or read back, so six
 * full counts sent twice the requests of the first release at depth), never fewer than the floor.
 */
export function modelRuns(numRuns: number): number {
  return Math.min(numRuns, Math.max(MODEL_RUNS_FLOOR, Math.ceil(numRuns / MODEL_CHECKS)));
}

/** fast-check parameters of a model-based check: its own seed, the shared count (modelRuns). */
export function modelParams(id: string) {
  return fcParams(id, modelRuns(settings().numRuns));
}

/**
 * Runs a model-based property: the known-interesting bodies first, in order, from `known.start`
 * (on every seed, so detection does not hang on the random phase), then random sequences from
 * random full states. Failures keep their CheckFailure message, with fast-check's replay data after it.
 */
export async function runModel(
  resource: Resource,
  syncId: string,
  commands: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[],
  params: fc.Parameters<unknown>,
  known?: { start: Settings; steps: Update[] },
): Promise<void> {
  if (known) {
    const model: Model = { state: (await put(resource, syncId, known.start)).data };
    for (const step of known.steps) await step.run(model, { syncId });
  }
  await fc.assert(
    fc.asyncProperty(resource.startState, fc.commands(commands, { maxCommands: 8 }), async (start, cmds) => {
      const { data } = await put(resource, syncId, start);
      await fc.asyncModelRun(() => ({ model: { state: data }, real: { syncId } }), cmds);
    }),
    params as fc.Parameters<[unknown, unknown]>,
  );
}

export function unwrapFastCheck(error: unknown): unknown {
  // fast-check wraps the property's error; surface ours so the message leads with the evidence.
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof CheckFailure || cause instanceof NotObservable) {
    if (cause instanceof CheckFailure) cause.message += `\n\n${String((error as Error).message).split('\n').slice(0, 3).join('\n')}`;
    return cause;
  }
  return error;
}
