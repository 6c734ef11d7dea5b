import { UsageError } from '../cli-errors.ts';
import { SECRET_KEY, type Profile } from '../profile/profile.ts';
import { DEFAULT_POLL, type PollSettings } from './types.ts';

// What an adapter is given besides the target: options (the profile's adapter.options, then
// --adapter-option KEY=VALUE) and how long and how often to poll a run (the profile's adapter.poll).

const KEY = /^[A-Za-z_][\w.-]*$/;

/**
 * `--adapter-option KEY=VALUE`, repeatable, into an object; a later KEY wins. A secret (a
 * secret-like key, or a URL with a password) is refused: the replay line prints every option, so
 * secrets go in the profile's adapter.options as {"$env": NAME}.
 */
export function parseAdapterOptions(items: readonly string[], label = '--adapter-option'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    const key = at === -1 ? '' : item.slice(0, at).trim();
    if (!KEY.test(key)) throw new UsageError(`${label} ${JSON.stringify(item.length > 60 ? `${item.slice(0, 60)}…` : item)}: must be KEY=VALUE, KEY of letters, digits, _ . - (e.g. source_connection_id=42)`);
    const value = item.slice(at + 1);
    if (SECRET_KEY.test(key) || /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i.test(value)) {
      throw new UsageError(`${label} ${key}: a secret is not given on the command line (the replay line repeats it); put it in the profile's adapter.options as {"$env": "VARIABLE"}`);
    }
    out[key] = value;
  }
  return out;
}

/** The adapter's options: the profile's, each overridden by a command-line one. */
export function adapterOptions(profile: Profile, given: Record<string, string>): Record<string, unknown> {
  return { ...(profile.adapter?.options ?? {}), ...given };
}

/** The profile's adapter.poll with the real service's defaults for what it leaves out. */
export function pollSettings(profile: Profile): PollSettings {
  const p = profile.adapter?.poll ?? {};
  return { initialMs: p.initialMs ?? DEFAULT_POLL.initialMs, maxMs: p.maxMs ?? DEFAULT_POLL.maxMs, timeoutMs: p.timeoutMs ?? DEFAULT_POLL.timeoutMs };
}
