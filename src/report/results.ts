import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.ts';
import type { RunVerdict } from './verdict.ts';

/** SHOULD: the spec says should or may (the receiver catalogue); a failure is a warning unless --strict. */
export type Level = 'MUST' | 'INFERRED' | 'PROFILE' | 'SHOULD';

/** The two halves of the catalogue: the service's requirements (run) and the webhook receiver's (receiver). */
export type Catalogue = 'service' | 'receivers';

/** The spec file of the receiver catalogue: its requirements are judged by `receiver`, never by `run`. */
export const RECEIVER_SPEC = 'receivers.spec.ts';

export interface Requirement {
  id: string;
  level: Level;
  section: string;
  spec: string;
  text: string;
  interpretation?: string;
}

/** The requirements of one half of the catalogue (the service's by default), or of both ('all'). */
export function loadRequirements(catalogue: Catalogue | 'all' = 'service'): Requirement[] {
  const file = join(packageRoot, 'specs', 'requirements.json');
  const all = (JSON.parse(readFileSync(file, 'utf8')) as { requirements: Requirement[] }).requirements;
  if (catalogue === 'all') return all;
  return all.filter((r) => (r.spec === RECEIVER_SPEC) === (catalogue === 'receivers'));
}

export type CheckStatus = 'passed' | 'failed' | 'skipped' | 'error' | 'expected-fail' | 'stale';
/**
 * profile: the profile does not answer what the check needs; unsupported: the profile or adapter
 * declares the capability unsupported; not-observable: the target's behaviour could not be seen;
 * precondition: something the check builds on failed; not-selected: left out by --only.
 */
export type SkipClass = 'profile' | 'unsupported' | 'not-observable' | 'precondition' | 'not-selected';

/** One check's outcome: the event every report is made from. */
export interface CheckResult {
  id: string;
  title: string;
  /** The spec area (file name without .spec.*). */
  area: string;
  level: Level | 'UNKNOWN';
  section: string;
  /**
   * passed / failed; skipped (see skipClass); error: no judgeable answer (timeout, throttled past
   * the retry budget, transport failure, interrupted); expected-fail: failed and listed in the
   * baseline; stale: listed in the baseline but passed (fails the run: remove the entry).
   */
  status: CheckStatus;
  /** Why it was skipped or errored (missing profile answer, precondition, not observed, timeout). */
  reason?: string;
  /** For a skip: which kind of skip (only 'unsupported' and 'not-selected' leave a requirement judged). */
  skipClass?: SkipClass;
  /** The baseline entry that matched this check (expected-fail, stale). */
  baseline?: { reason: string; until?: string };
  /** For a pass: what the check saw among the answers it accepts (e.g. how the failing runs ended), redacted. */
  note?: string;
  /** Failure message: evidence, redacted. */
  message?: string;
  /** A failure of a SHOULD requirement in a run without --strict: reported, but it does not fail the run. */
  warning?: boolean;
  durationMs: number;
  /** The version of the pass this result comes from, when the run made one pass per version (--api-version all). */
  version?: string;
}

export interface RunResult {
  tool: string;
  /** The kit's version (package.json) that ran the checks. */
  kitVersion?: string | undefined;
  /** What was tested: --implementation or the profile's implementation ("NAME VERSION"). */
  implementation?: string | undefined;
  /** The SHA-256 of the requirement catalogue (specs/requirements.json) the run was judged against. */
  catalogue?: string | undefined;
  /** The SHA-256 of results.ndjson, the stream every report is rendered from (`dss-conformance verify` recomputes it). */
  stream?: { file: string; sha256: string } | undefined;
  target: string;
  profile: string;
  seed: number;
  runId: string;
  startedAt: string;
  durationMs: number;
  replay: string;
  checks: CheckResult[];
  /** Errors outside any check (a spec that failed to load, an unhandled rejection). */
  errors: string[];
  /** Every request the capturing receiver got (secrets redacted), when webhook checks ran. */
  deliveries?: DeliveryRecord[] | undefined;
  /** Requests on no channel (junk) past the receiver's count cap: counted by kind, not listed. */
  deliveriesNotKept?: Record<string, number> | undefined;
  /** Why the run stopped early (a signal, the --max-duration budget); unfinished requirements are errors. */
  interrupted?: string | undefined;
  /** Why no check ran at all (exit 2 or 3): the run's one line. */
  aborted?: { exitCode: number; message: string } | undefined;
  /** Run-level problems that fail the run besides checks (expired baseline entries). */
  problems?: string[] | undefined;
  /** The baseline file applied, and its entries that matched no check. */
  baseline?: { file: string; unmatched: string[] } | undefined;
  /** A shard's stream, or a merge of some: how many shards the run has, which are here, which missing. */
  shards?: { count: number; present: number[]; missing: number[] } | undefined;
  /** The requirement roll-up and the run verdict, computed from the checks above. */
  verdict?: RunVerdict | undefined;
}

/** `, and 19000 more not listed (past the receiver's cap of junk records: unknown path 18990, CONNECT 10)`, or ''. */
export function notKeptText(run: RunResult): string {
  const kinds = Object.entries(run.deliveriesNotKept ?? {});
  if (kinds.length === 0) return '';
  const total = kinds.reduce((n, [, k]) => n + k, 0);
  return `, and ${total} more not listed (past the receiver's cap of junk records: ${kinds.map(([kind, n]) => `${kind} ${n}`).join(', ')})`;
}

export interface DeliveryRecord {
  seq: number;
  scenario: string | null;
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyBytes: number;
  gzip: boolean;
  records: number | null;
  violations: string[];
  status: number;
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  error: number;
  expectedFail: number;
}

/** Check counts; a stale baseline entry counts as a failure, run errors as errors. */
export function summarize(run: RunResult): Counts {
  const count = (...s: CheckStatus[]) => run.checks.filter((c) => s.includes(c.status)).length;
  return { passed: count('passed'), failed: count('failed', 'stale'), skipped: count('skipped'), error: count('error') + run.errors.length, expectedFail: count('expected-fail') };
}

/**
 * `npx dss-conformance run … --only ID [--api-version V] --reports reports/replay-ID`: what
 * reproduces one check, in a folder of its own so that the run's reports stay; a --reports added
 * after it wins (the last one given counts).
 */
export function replayCommand(run: RunResult, check: Pick<CheckResult, 'id' | 'version'>): string {
  return `${run.replay} --only ${check.id}${check.version ? ` --api-version ${check.version}` : ''} --reports reports/replay-${check.id}${check.version ? `-${check.version}` : ''}`;
}
