import { resolve } from 'node:path';
import { readJsonFile, UsageError } from '../cli-errors.ts';
import { didYouMean } from '../cli-flags.ts';
import { parseHttpUrl } from '../runner/target-url.ts';

// The receiver profile (README › Receivers): what the spec does not fix about a receiver under
// test. A JSON file; every key may also be a flag, and the flag wins.

export interface ReceiverProfile {
  url?: string | undefined;
  secret?: string | undefined;
  inspectUrl?: string | undefined;
  maxAgeSeconds?: number | undefined;
  responseTimeoutMs?: number | undefined;
  /** The variable the secret came from ({"$env": NAME}), for the replay line. */
  secretVariable?: string | undefined;
}

const KEYS = ['$schema', 'url', 'secret', 'inspectUrl', 'maxAgeSeconds', 'responseTimeoutMs'];

export const DEFAULT_MAX_AGE_SECONDS = 300;
export const DEFAULT_RESPONSE_TIMEOUT_MS = 10_000;

export function loadReceiverProfile(file: string, env: NodeJS.ProcessEnv = process.env): ReceiverProfile {
  const label = `--profile ${file}`;
  const json = readJsonFile(resolve(file), label);
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new UsageError(`${label}: not a JSON object`);
  const o = json as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!KEYS.includes(key)) throw new UsageError(`${label}: unknown key '${key}' (${didYouMean(key, KEYS)}keys: ${KEYS.slice(1).join(', ')})`);
  const str = (key: string) => {
    const v = o[key];
    if (v !== undefined && typeof v !== 'string') throw new UsageError(`${label}: ${key} must be a string`);
    return v as string | undefined;
  };
  const int = (key: string, min: number, max: number) => {
    const v = o[key];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)) throw new UsageError(`${label}: ${key} must be an integer between ${min} and ${max}`);
    return v as number | undefined;
  };
  let secret: string | undefined;
  let secretVariable: string | undefined;
  const s = o.secret;
  if (s && typeof s === 'object' && !Array.isArray(s) && Object.keys(s).length === 1 && typeof (s as { $env?: unknown }).$env === 'string') {
    secretVariable = (s as { $env: string }).$env;
    secret = env[secretVariable];
    if (!secret) throw new UsageError(`${label}: secret names the variable ${secretVariable}, which is not set`);
  } else if (s !== undefined) {
    // A literal secret in a file that gets committed and copied is refused, as for the service profile's keys.
    throw new UsageError(`${label}: secret must be {"$env": "VARIABLE"}, not a literal value (secrets are not written in files)`);
  }
  const url = str('url');
  const inspectUrl = str('inspectUrl');
  if (url !== undefined) parseHttpUrl(`${label}: url`, url);
  if (inspectUrl !== undefined) parseHttpUrl(`${label}: inspectUrl`, inspectUrl);
  return { url, secret, secretVariable, inspectUrl, maxAgeSeconds: int('maxAgeSeconds', 1, 86_400), responseTimeoutMs: int('responseTimeoutMs', 1, 600_000) };
}
