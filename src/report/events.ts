import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import type { Baseline } from './baseline.ts';
import type { ErrorAnswer } from './error-answers.ts';
import type { Redactor } from './redact.ts';
import type { Catalogue, CheckResult, DeliveryRecord } from './results.ts';
import type { RunVerdict } from './verdict.ts';

// The run is a stream of events, written to results.ndjson as they happen. Every report (console,
// results.json, JUnit, HTML, Markdown) is rendered from these events and nothing else, so a report
// made afterwards from the file, or from the files of several shards, says what the run said.

/** What the target declares in its profile, shown next to the score (never a secret value). */
export interface DeclaredCapabilities {
  name: string;
  /** Connection kinds the profile configures, with the type each one uses. */
  kinds: Record<string, string>;
  versions?: { default?: string; supported?: string[] } | undefined;
  schemaCache?: { observable?: boolean; timeoutMs?: number } | undefined;
  errorHandling?: { read: boolean; bulkWrite: boolean; putNull?: string } | undefined;
  /** The service's product name its deliveries' User-Agent must start with (WH-009). */
  productName?: string | undefined;
  /** The built-in adapter's words for a run's end (adapter.declarative.statuses): WH-020/021 need a word the profile maps to failed. */
  runEnds?: { completed: string[]; failed: string[] } | undefined;
  /** A receiver run's profile (dss-conformance receiver): whether it has an inspection endpoint, its bounds, the levels policy. */
  receiver?: { inspectUrl: boolean; maxAgeSeconds: number; responseTimeoutMs: number; strict: boolean } | undefined;
  /** PROFILE requirements declared unsupported, with the reason. */
  unsupported: Record<string, string>;
}

export interface RunStartEvent {
  type: 'run-start';
  at: string;
  tool: string;
  kitVersion: string;
  node: string;
  /** What was tested, as --implementation or the profile's implementation names it ("NAME VERSION"). */
  implementation?: string | undefined;
  /** The SHA-256 of specs/requirements.json: the revision of the requirements the run held the target to. */
  catalogue?: string | undefined;
  /** The target's address, userinfo removed; the embedded reference names its faults and variants. */
  target: string;
  embedded: boolean;
  faults: string[];
  profile: string;
  capabilities: DeclaredCapabilities;
  seed: number;
  runId: string;
  replay: string;
  apiVersions: string[];
  /** The requirement IDs --only/--exclude chose; absent when all were. */
  selected?: string[] | undefined;
  /** The resolved settings (flag name → value), secret ones left out. */
  settings: Record<string, unknown>;
  /** The baseline applied, with its entries: the fold applies it, so re-rendering needs nothing else. */
  baseline?: (Baseline & { file: string }) | undefined;
  /** Which half of the catalogue the run judged: the service's (run, the default) or the receiver's (receiver). */
  half?: Catalogue | undefined;
  /** receiver --strict: SHOULD requirements count as MUST (their failures fail the run). */
  strict?: boolean | undefined;
  /** run --shard I/N: this stream is one slice of a run; `dss-conformance merge` joins the N. */
  shard?: { index: number; count: number } | undefined;
}

export interface CheckStartEvent { type: 'check-start'; at: string; title: string; version?: string | undefined }
export interface CheckResultEvent { type: 'check-result'; at: string; check: CheckResult }
export interface DeliveryEvent { type: 'delivery'; at: string; delivery: DeliveryRecord }
/**
 * The webhook checks ran (their receiver wrote a log, even an empty one). `notKept`: requests on
 * no channel past the receiver's count cap, counted by kind instead of listed.
 */
export interface ReceiverEvent { type: 'receiver'; at: string; notKept?: Record<string, number> | undefined }
export interface HeartbeatEvent { type: 'heartbeat'; at: string; waitingFor: string; elapsedMs: number; boundMs?: number | undefined }
/** An answer with status >= 400 the client saw (ERR-001/002/003 judge them all when folding). */
export interface ErrorAnswerEvent { type: 'error-answer'; at: string; answer: ErrorAnswer }
/** The spec files (areas) vitest ran in this pass; a shard runs a slice of them. */
export interface SuiteFilesEvent { type: 'suite-files'; at: string; areas: string[] }
/** A problem outside any check (a spec that failed to load, an unhandled rejection). */
export interface RunErrorEvent { type: 'run-error'; at: string; message: string }
/**
 * What the run did to remove the resources it created on the target (profile cleanup): never a
 * check's result. `lines` say it as the console did; failures name each resource left.
 */
export interface CleanupEvent {
  type: 'cleanup';
  at: string;
  deleted: number;
  failures: Array<{ kind: string; id: string; name?: string | undefined; reason: string }>;
  kept: Record<string, number>;
  notTried: number;
  lines: string[];
}
export interface RunEndEvent {
  type: 'run-end';
  at: string;
  durationMs: number;
  interrupted?: string | undefined;
  aborted?: { exitCode: number; message: string } | undefined;
  /** The verdict as folded from the events before this one (a renderer recomputes it the same way). */
  verdict?: RunVerdict | undefined;
}

export type RunEvent = RunStartEvent | CheckStartEvent | CheckResultEvent | DeliveryEvent | ReceiverEvent | HeartbeatEvent | ErrorAnswerEvent | SuiteFilesEvent | RunErrorEvent | CleanupEvent | RunEndEvent;

/** An event without its timestamp: the log stamps it. */
export type NewEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'at'> : never) : never;

/**
 * The run's event log: kept in memory for the renderers and appended, one redacted JSON line per
 * event, to results.ndjson as it happens, so a run killed without warning still leaves its stream.
 */
export class EventLog {
  readonly events: RunEvent[] = [];
  private readonly listeners: Array<(event: RunEvent) => void> = [];
  private file: string | undefined;
  private readonly redactor: Redactor;

  constructor(file: string | undefined, redactor: Redactor) {
    this.file = file;
    this.redactor = redactor;
    if (file) writeFileSync(file, '');
  }

  emit(event: NewEvent): RunEvent {
    const { type, ...rest } = event;
    const stamped = { type, at: new Date().toISOString(), ...rest } as RunEvent;
    // The stored event is the redacted one: no renderer can see what the file does not hold. Its
    // strings are redacted before it is serialised, so the line is JSON whatever the secrets are.
    const kept = this.redactor.value(stamped);
    const line = JSON.stringify(kept);
    this.events.push(kept);
    if (this.file) {
      try {
        appendFileSync(this.file, line + '\n');
      } catch {
        // The reports folder was checked writable; losing it mid-run leaves the in-memory stream.
      }
    }
    for (const listener of this.listeners) listener(kept);
    return kept;
  }

  /**
   * The stream is complete: the reports written next carry its digest, so nothing may be appended
   * to the file after them (a late event stays in memory only).
   */
  close(): void {
    this.file = undefined;
  }

  on(listener: (event: RunEvent) => void): void {
    this.listeners.push(listener);
  }

  get ended(): boolean {
    return this.events.some((e) => e.type === 'run-end');
  }
}

/** The events of a results.ndjson; a last line cut short by a kill is dropped. */
export function readEvents(file: string): RunEvent[] {
  const out: RunEvent[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      // Only the last line can be partial (each event is one append).
      continue;
    }
    if (isEvent(value)) out.push(value);
  }
  return out;
}

/** A line a hand-edited or foreign stream may hold that parses but is no event (null, 42, a check-result without its check): not folded. */
function isEvent(value: unknown): value is RunEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const e = value as { type?: unknown; check?: unknown };
  if (typeof e.type !== 'string') return false;
  if (e.type !== 'check-result') return true;
  const check = e.check as { id?: unknown } | null | undefined;
  return typeof check === 'object' && check !== null && typeof check.id === 'string';
}
