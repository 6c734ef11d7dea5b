import { randomBytes } from 'node:crypto';
import { credentialChecker, type Authenticator } from './auth.ts';
import { DEFAULT_DELIVERY_TIMEOUT_MS, defaultPipeline, type DeliveryPipeline } from './delivery.ts';
import { DEFAULT_VERSION, knownVersions, type VersionRules } from './versions.ts';

export interface ReferenceOptions {
  /** Interface to listen on; default 127.0.0.1. */
  host?: string;
  /** TCP port; 0 (the default for startReference) picks a free one. */
  port?: number;
  /** User API key for `Bearer`; generated when absent. */
  apiKey?: string;
  /** Organization key for `Basic`; generated when absent. */
  orgKey?: string;
  /** How long after creation a connection's source schemas become cached; default 500: long enough to be seen, short enough that every run (one per version with --api-version all) waits little. */
  schemaCacheDelayMs?: number;
  /**
   * Whether a connection's "No schemas found" stage also lasts until two bulk syncs on it have been
   * answered with it (SCHEMA_STAGE_HELD_ANSWERS); default true. A stage bounded by time alone can
   * end before a slow caller's first request, or its immediate repeat (a saturated CI machine), and
   * is then never seen, or seen once. No effect when schemaCacheDelayMs is 0 (no stage).
   */
  holdSchemaStage?: boolean;
  /** Names of faults to inject (faults.ts); an unknown name throws UsageError. */
  faults?: string[];
  /** Largest accepted request body; default 1 MiB. */
  bodyLimitBytes?: number;
  /** Fastify's logger; off by default. */
  logger?: boolean;
  /** How long one webhook delivery may take, answer included; default 10000. */
  deliveryTimeoutMs?: number;
  /**
   * Where a run's capture log is read: 'inline' (the default) in the run's read (data.requests);
   * 'signed-urls' also as the real service offers it, GET /api/syncs/{id}/executions/{eid}/records
   * answering signed, expiring URLs to gzip JSON-lines files on a second port (log-files.ts).
   */
  captureLog?: 'inline' | 'signed-urls';
  /** How long a signed log URL stays valid; default 5 min. */
  logUrlTtlMs?: number;
}

/**
 * The settings the core reads on every request. Faults change behaviour by replacing these values
 * or wrapping these functions (faults.ts), so the core itself never asks which faults are on.
 */
export interface ReferenceConfig {
  authenticate: Authenticator;
  versions: Map<string, VersionRules>;
  /** The version served when X-Service-Version is omitted, and echoed for an unknown one. */
  defaultVersion: string;
  /** The header's value to a key of `versions`, or undefined when it is not served. */
  resolveVersion: (header: string | undefined) => string | undefined;
  schemaCacheDelayMs: number;
  holdSchemaStage: boolean;
  /** The steps of a webhook delivery (delivery.ts); each run reads them when it starts. */
  delivery: DeliveryPipeline;
  deliveryTimeoutMs: number;
}

export const DEFAULT_SCHEMA_CACHE_DELAY_MS = 500;

/** With holdSchemaStage: the first answer and a repeat of it are both "No schemas found", whatever the clock. */
export const SCHEMA_STAGE_HELD_ANSWERS = 2;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** A random key that never starts with '-', which command lines would read as a flag. */
export function generateKey(): string {
  const key = randomBytes(24).toString('base64url');
  return key.startsWith('-') ? `k${key.slice(1)}` : key;
}

export function createConfig(apiKey: string, orgKey: string, options: ReferenceOptions): ReferenceConfig {
  const config: ReferenceConfig = {
    authenticate: credentialChecker(apiKey, orgKey),
    versions: knownVersions(),
    defaultVersion: DEFAULT_VERSION,
    // Reads the table and the default at call time, so a fault that edits either is seen.
    resolveVersion: (header) => {
      if (header === undefined) return config.defaultVersion;
      return config.versions.has(header) ? header : undefined;
    },
    schemaCacheDelayMs: options.schemaCacheDelayMs ?? DEFAULT_SCHEMA_CACHE_DELAY_MS,
    holdSchemaStage: options.holdSchemaStage ?? true,
    delivery: defaultPipeline(),
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
  };
  return config;
}
