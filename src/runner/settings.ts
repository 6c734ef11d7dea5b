import type { Profile } from '../profile/profile.ts';

/** Spec › Versioning 2: the known versions, newest first; the first is the suite's default. */
export const KNOWN_VERSIONS = ['2025-09-18', '2024-02-08', '2023-04-25', '2022-12-12', '2021-05-23'] as const;
export const DEFAULT_API_VERSION = KNOWN_VERSIONS[0];

/** Everything a conformance run needs, passed to the spec workers (so it must stay plain JSON). */
export interface RunSettings {
  baseUrl: string;
  apiKey: string;
  orgKey?: string | undefined;
  profile: Profile;
  profileSource: string;
  seed: number;
  numRuns: number;
  timeoutMs: number;
  maxRps?: number | undefined;
  runId: string;
  /** Values to redact besides the keys (profile secrets read from the environment). */
  secrets: string[];
  /** What a person types to replay a check: the command without --only. */
  replay: string;
  /** True when the target is the reference started by this run. */
  embedded: boolean;
  /** Where reports go; the webhook checks write the receiver's log there (deliveries.json). */
  reportsDir: string;
  /** An --adapter module (absolute path); the built-in adapter when absent. */
  adapterPath?: string | undefined;
  /** The adapter's options: the profile's adapter.options, overridden by --adapter-option KEY=VALUE. */
  adapterOptions?: Record<string, unknown> | undefined;
  /** Where the capturing receiver listens, and the URL the target must use to reach it. */
  receiver: { host: string; port: number; publicUrl?: string | undefined };
  /**
   * The kit's source database for the webhook checks (--source-db, or the embedded one): the URL
   * the kit connects with (it holds a password: never printed; redacted through `secrets`) and the
   * host the target reaches it under, and the schema the kit's tables go in (--source-db-schema).
   * Absent when the run has no webhook checks. waitUntil: epoch ms until which a connection that
   * fails is retried (the embedded one may still be starting); derived from --max-duration, 0 when
   * the runner found a --source-db unreachable already.
   */
  sourceDb?: { url: string; publicHost?: string | undefined; embedded: boolean; schema: string; waitUntil?: number | undefined } | undefined;
  /** The X-Service-Version every request carries unless a check says otherwise (--api-version). */
  apiVersion: string;
  /** Set when the run makes one pass per version (--api-version all): results are labelled with it. */
  versionPass?: { version: string; index: number; first: boolean } | undefined;
  /** Epoch ms when the --max-duration budget ends: requests after it are not sent (error, not fail). */
  deadline: number;
  /** Longest Retry-After the client waits (--max-retry-after-s); a longer one gives up at once. */
  maxRetryAfterMs: number;
  /** Answers past this many bytes are cut (--max-response-bytes). */
  maxResponseBytes: number;
  /** Seconds a delivery's Service-Signature-Timestamp may differ from its arrival (WH-007). */
  timestampToleranceS: number;
  /** Seconds a delivery's Service-Signature-Timestamp may be ahead of its arrival (WH-007, --clock-skew-s). */
  clockSkewS: number;
  /** The requirement IDs the run selected (--only, --exclude); undefined when all are. */
  selected?: string[] | undefined;
  /** This run is one shard (--shard I/N): which spec files it runs is vitest's choice, so nothing starts ahead of its file. */
  sharded?: boolean | undefined;
}

declare module 'vitest' {
  interface ProvidedContext {
    dssc: RunSettings;
  }
}

/** A per-check seed, so `--only ID` with the run's seed regenerates the same values. */
export function checkSeed(runSeed: number, id: string): number {
  let h = runSeed >>> 0;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h & 0x7fffffff;
}
