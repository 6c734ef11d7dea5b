import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { UsageError, readJsonFile } from '../cli-errors.ts';
import { describeErrors } from '../schemas.ts';
import { fixturesDir } from '../paths.ts';
import { checkDeclarative, type DeclarativeSpec } from '../adapters/declarative-spec.ts';
import { checkCleanup, type CleanupSpec } from './cleanup-spec.ts';

export type KindName = 'crm' | 'marketing' | 'objectStore' | 'relationalDatabase' | 'webhook';
export const KIND_NAMES: readonly KindName[] = ['crm', 'marketing', 'objectStore', 'relationalDatabase', 'webhook'];

export interface KindProfile {
  type: string;
  configuration?: Record<string, unknown>;
  existingId?: string;
  oauth?: boolean;
  sourceObjects?: string[];
  destinationSettings?: Record<string, unknown>;
}

export interface Profile {
  name: string;
  /** What the profile's target is, "NAME VERSION", shown on the certificate (--implementation wins). */
  implementation?: string;
  kinds?: Partial<Record<KindName, KindProfile>>;
  generatedConfigurations?: boolean;
  /** Where each creation's answer holds the new id: `id` for all, or one per creation (their bodies are shown apart, or not at all). */
  pointers?: { id?: string; connectionId?: string; bulkSyncId?: string; modelSyncId?: string; authUrl?: string };
  auth?: { basic?: 'key-as-username' | 'key-as-password' };
  versions?: { default?: string; spelling2021?: 'dest_configuration' | 'destination_configuration'; unknownStatus?: number; unknownDates?: 'refused' | 'nearest-earlier'; supported?: string[] };
  schemaCache?: { observable?: boolean; timeoutMs?: number; retryIntervalMs?: number };
  errorHandling?: {
    putNull?: 'unchanged' | 'clear';
    /** A read of a model sync's settings (not shown by the spec): EHS-011. */
    read?: { path: string; pointer?: string };
    /** The bulk sync's PUT (not shown by the spec): EHB-003, EHB-004. */
    bulkWrite?: { path: string };
  };
  modelSync?: { existingId?: string; path?: string; connectionKind?: KindName; request?: Record<string, unknown> };
  bulkSync?: { existingId?: string };
  /** The service's product name, the first product of its deliveries' User-Agent (WH-009). */
  webhooks?: { productName?: string };
  /** How the target deletes and lists each kind of resource the kit creates (cleanup-spec.ts). */
  cleanup?: CleanupSpec;
  /** PROFILE requirements the target declares unsupported, with the reason (README › Verdicts). */
  unsupported?: Record<string, string>;
  /**
   * The webhook adapter's settings: its options (AdapterContext.options), how it polls a run, and
   * the built-in adapter's requests (declarative: used when no --adapter is given).
   */
  adapter?: { options?: Record<string, unknown>; poll?: { initialMs?: number; maxMs?: number; timeoutMs?: number }; declarative?: DeclarativeSpec };
}

/** What the suite creates through the spec's creations and the profile's modelSync.request. */
export type CreatedResource = 'connection' | 'bulkSync' | 'modelSync';

/** The pointer to the new id in the answer to a creation of `resource`. */
export function idPointer(profile: Profile, resource: CreatedResource): string {
  return profile.pointers?.[`${resource}Id`] ?? profile.pointers?.id ?? '/data/id';
}

export const profileSchemaPath = join(fixturesDir, 'profiles', 'profile.schema.json');
export const referenceProfilePath = join(fixturesDir, 'profiles', 'reference.json');

let validateProfile: ((v: unknown) => boolean) & { errors?: unknown } | undefined;

function schemaValidator() {
  if (!validateProfile) {
    // The profile schema is ours, checked against the meta-schema by test/suite/schema-files.test.ts.
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
    validateProfile = ajv.compile(JSON.parse(readFileSync(profileSchemaPath, 'utf8')) as object);
  }
  return validateProfile;
}

export interface LoadedProfile {
  profile: Profile;
  /** Values read through {"$env": ...}, and literal strings under secret-like keys: treated as secrets. */
  secrets: string[];
}

/**
 * Reads, resolves {"$env"} references in, and validates a profile file; any problem is one UsageError line.
 * shipped: the kit's own reference.json, which test/suite/profile.test.ts validates against the
 * schema: compiling the schema (~0.3 s of CPU, every run) is then skipped.
 */
export function loadProfile(path: string, env: NodeJS.ProcessEnv = process.env, { shipped = false }: { shipped?: boolean } = {}): LoadedProfile {
  const raw: unknown = readJsonFile(path, `profile ${path}`);
  const secrets: string[] = [];
  const resolved = resolveEnv(raw, '', env, secrets, path);
  const validate = shipped ? undefined : schemaValidator();
  if (validate && !validate(resolved)) {
    const first = describeErrors(validate.errors as never)[0] ?? 'invalid';
    throw new UsageError(`profile ${path}: ${first}`);
  }
  // What the schema cannot see: the variables of the declarative adapter's templates.
  const declarative = (resolved as Profile).adapter?.declarative;
  const cleanup = (resolved as Profile).cleanup;
  const problem = (declarative && checkDeclarative(declarative)) || (cleanup && checkCleanup(cleanup));
  if (problem) throw new UsageError(`profile ${path}: ${problem}`);
  const all = new Set(secrets);
  collectLiteralSecrets(raw, false, all);
  return { profile: resolved as Profile, secrets: [...all] };
}

/** Key names whose values are secrets wherever they appear in a profile (cloud_secret_access_key, client_secret, …). */
export const SECRET_KEY = /(password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth[_-]?key)/i;

/** {"$env": NAME}, as resolveEnv reads it. */
function isEnvReference(value: object): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === '$env';
}

/**
 * A secret written literally in a profile is as secret as one read from the environment. Every
 * string under a secret-like key counts, however deep ("credentials": {"user": …, "pass": …}),
 * except $comment prose and {{placeholders}} the suite fills in itself. Runs on the raw profile, so
 * an {"$env": NAME} reference is skipped (its value is collected when it is resolved) and the
 * variable's name is not mistaken for a secret.
 */
function collectLiteralSecrets(value: unknown, underSecretKey: boolean, out: Set<string>, at = ''): void {
  if (typeof value === 'string') {
    if (underSecretKey && value !== '' && !/\{\{\s*[\w.]+\s*\}\}/.test(value) && !NOT_SECRETS.has(at)) out.add(value);
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) collectLiteralSecrets(v, underSecretKey, out, `${at}/${i}`);
  } else if (value && typeof value === 'object' && !isEnvReference(value)) {
    for (const [k, v] of Object.entries(value)) if (k !== '$comment') collectLiteralSecrets(v, underSecretKey || SECRET_KEY.test(k), out, `${at}/${k}`);
  }
}

/** Places whose key looks secret but whose value is not: the JSON pointer to where the webhook secret is. */
const NOT_SECRETS = new Set(['/adapter/declarative/createWebhookConnection/secret']);

export function loadReferenceProfile(): Profile {
  return loadProfile(referenceProfilePath, process.env, { shipped: true }).profile;
}

function resolveEnv(value: unknown, at: string, env: NodeJS.ProcessEnv, secrets: string[], file: string): unknown {
  if (Array.isArray(value)) return value.map((v, i) => resolveEnv(v, `${at}/${i}`, env, secrets, file));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 1 && entries[0]?.[0] === '$env') {
      const name = entries[0][1];
      if (typeof name !== 'string') throw new UsageError(`profile ${file}: ${at || '/'}: $env must name an environment variable`);
      const v = env[name];
      if (v === undefined || v === '') throw new UsageError(`profile ${file}: ${at}: environment variable ${name} is not set`);
      secrets.push(v);
      return v;
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, resolveEnv(v, `${at}/${k}`, env, secrets, file)]));
  }
  return value;
}

/** The value at an RFC 6901 JSON pointer, or undefined. */
export function atPointer(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let cur: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}
