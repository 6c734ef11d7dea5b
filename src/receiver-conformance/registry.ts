import type { Answer } from './http.ts';
import type { BuildDeliveryOptions, BuiltDelivery, Fields } from '../deliveries/build.ts';

// specs/receivers.spec.ts registers its checks here (check(title, body), titled with the
// requirement ID like every spec file's); the receiver runner (run-checks.ts) runs them in order.

/** The receiver under test, as the profile and flags describe it. */
export interface ReceiverTarget {
  url: string;
  secret: string;
  /** The test harness's list of processed record hashes (GET answers {"processed": [...]}). */
  inspectUrl?: string | undefined;
  /** The age past which a delivery should be refused (RCV-003), seconds. */
  maxAgeSeconds: number;
  /** The bound on every answer (RCV-010), ms. */
  responseTimeoutMs: number;
}

/** One delivery a check sent, and how it went: RCV-010 judges them all. */
export interface Exchange {
  check: string;
  label: string;
  ms: number;
  status?: number | undefined;
  /** Why there was no answer. */
  error?: string | undefined;
  timedOut?: boolean | undefined;
}

export interface CheckContext {
  readonly target: ReceiverTarget;
  readonly runId: string;
  /** This check's fast-check seed (from the run seed and the ID: --only keeps it). */
  readonly seed: number;
  readonly numRuns: number;
  /** n records no earlier delivery of this run holds, each with `extra` fields added. */
  records(n: number, extra?: Fields): Fields[];
  /** A delivery of the spec's shape with the target's secret, a fresh timestamp and the options given. */
  delivery(o?: Partial<BuildDeliveryOptions>): BuiltDelivery;
  /** Sends it and returns the answer; NoAnswer when there is none. */
  send(label: string, delivery: Pick<BuiltDelivery, 'headers' | 'body'>): Promise<Answer>;
  /** Sends the delivery once per label, all at the same moment (a retry overlapping the first attempt); each settles as send would. */
  sendTogether(labels: string[], delivery: Pick<BuiltDelivery, 'headers' | 'body'>): Promise<PromiseSettledResult<Answer>[]>;
  /** Every exchange of the run so far, this check's included. */
  exchanges(): readonly Exchange[];
  /**
   * The processed hashes once every one of `awaited` is listed (the receiver may process after
   * answering): polled until then, for at most the response bound. Skips the check as not
   * observable without an inspection endpoint; skips it as a precondition when `awaited` never shows.
   */
  processedAfter(awaited: readonly string[], why: string): Promise<string[]>;
  /** What a passing check saw, for the report. */
  note(text: string): void;
}

/** The check cannot be judged here: the reason says why (its words decide the skip's class). */
export class Skip extends Error {}

/** No judgeable answer outside a delivery (the inspection endpoint answered garbage). */
export class Unjudgeable extends Error {}

export interface ReceiverCheck {
  id: string;
  title: string;
  body: (t: CheckContext) => Promise<void>;
}

const registered: ReceiverCheck[] = [];

/** A receiver check, titled `<ID> <what it checks>`; it fails by throwing, with every case it saw wrong. */
export function check(title: string, body: (t: CheckContext) => Promise<void>): void {
  const id = /^([A-Z]+-\d{3})\b/.exec(title)?.[1];
  if (!id) throw new Error(`receiver check '${title}' is not titled with a requirement ID`);
  if (!registered.some((c) => c.title === title)) registered.push({ id, title, body });
}

export function registeredChecks(): readonly ReceiverCheck[] {
  return registered;
}

/** Fails the check with one line per case the receiver got wrong, when there are any. */
export function failIfAny(problems: readonly string[], heading: string): void {
  if (problems.length > 0) throw new Error(`${heading}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
}
