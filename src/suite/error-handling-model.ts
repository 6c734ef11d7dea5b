import fc from 'fast-check';
import type { ApiResponse } from '../client/http-client.ts';
import { arbitraryFor } from '../generators/from-schema.ts';
import { api } from './context.ts';
import { CheckFailure, dataOf, expectStatus, fail } from './expect.ts';

// A model of one model sync's error-handling settings, for fast-check's model-based testing:
// random sequences of PUTs run against the target, and after each the rule under test is checked
// against the model. Each check judges only its own rule and then adopts what the target answered,
// so one broken rule shows up under its own requirement ID and not as noise under the others.

export const FIELDS = ['auto_retry_record_errors', 'notify_on_record_errors', 'subscribers', 'warning_notifications'] as const;
export type Field = (typeof FIELDS)[number];
export type Settings = Partial<Record<Field, unknown>>;

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

export function sameValue(field: Field, a: unknown, b: unknown): boolean {
  return field === 'subscribers' ? sameSubscribers(a, b) : a === b;
}

export async function put(syncId: string, body: unknown): Promise<{ res: ApiResponse; data: Settings }> {
  const res = await api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, body);
  expectStatus(res, 200, `PUT ${JSON.stringify(body)}`);
  const data = dataOf(res);
  if (!data) throw new NotObservable('the target answers PUT without data, so the settings after an update cannot be observed');
  return { res, data: data as Settings };
}

export type Rule = (sent: Settings, before: Settings, after: Settings) => string | undefined;

export class Update implements fc.AsyncCommand<Model, Real> {
  readonly body: Settings;
  readonly rule: Rule;
  constructor(body: Settings, rule: Rule) {
    this.body = body;
    this.rule = rule;
  }
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const { res, data } = await put(real.syncId, this.body);
    const problem = this.rule(this.body, model.state, data);
    if (problem) fail(`after PUT ${JSON.stringify(this.body)} from ${JSON.stringify(model.state)}: ${problem}`, res);
    model.state = data;
  }
  toString(): string {
    return `PUT ${JSON.stringify(this.body)}`;
  }
}

/** A full, known state to start each sequence from. */
export const startState = fc.record({
  auto_retry_record_errors: fc.boolean(),
  notify_on_record_errors: fc.boolean(),
  subscribers: arbitraryFor('sync-error-handling-update.schema.json#/properties/subscribers', { noNull: true }),
  warning_notifications: fc.boolean(),
});

/** PUT bodies from the schema: any subset of the fields, nullable ones sometimes null. */
export const updateBody = arbitraryFor('sync-error-handling-update.schema.json') as fc.Arbitrary<Settings>;

/** Runs a model-based property; failures keep their CheckFailure message, with fast-check's replay data after it. */
export async function runModel(
  syncId: string,
  commands: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[],
  params: fc.Parameters<unknown>,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(startState, fc.commands(commands, { maxCommands: 8 }), async (start, cmds) => {
      const { data } = await put(syncId, start);
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
