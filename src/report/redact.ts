// Secrets never leave the process in clear: every line of output (failure messages, JUnit, results,
// console) passes through a Redactor that knows the run's secret values, plus patterns that catch
// credentials it was never told about (a webhook secret echoed under an unexpected name, say).

export const REDACTED = '[REDACTED]';

/** Shorter values would redact noise (every "id" or "us" in a report), so they are never registered. */
const MIN_SECRET = 4;

/**
 * A base64 core (see base64Cores) shorter than this could match unrelated base64 by chance; 8
 * characters are 48 bits of the secret.
 */
const MIN_CORE = 8;

/** JSON keys whose values are secrets wherever they appear. */
const SECRET_KEY_NAMES = [
  'password', 'passwd', 'secret', 'secret_key', 'cloud_secret_access_key', 'secret_access_key', 'private_key',
  'api_key', 'api-key', 'apikey', 'x-api-key', 'token', 'access_token', 'refresh_token', 'id_token',
  'client_secret', 'webhook_secret',
];
const SECRET_KEYS = new RegExp(`^(?:${SECRET_KEY_NAMES.join('|')})$`, 'i');
const SECRET_JSON_MEMBER = new RegExp(`("(?:${SECRET_KEY_NAMES.join('|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');

/**
 * URL userinfo, up to the last '@' before the host: `scheme://user:pass@` → `scheme://[REDACTED]@`.
 * Quotes, angle brackets and backslashes end it, so a URL inside JSON or markup cannot swallow the
 * text after it.
 */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'<>\\`]+@/gi;

/**
 * An Authorization scheme and the token after it. The scheme may follow a JSON-escaped line break
 * ("\nBearer"), where \b would not see a word start.
 */
const SCHEME_TOKEN = /(?:(?<=\\[nrt])|(?<![A-Za-z0-9_]))(Bearer|Basic)(\s+)([A-Za-z0-9._~+/-]+=*)/gi;

/**
 * Whether the word after "Bearer" or "Basic" is a credential rather than prose, so "Bearer with a
 * user API key" stays as written. A credential has 8 or more token68 characters and one of: a digit
 * or one of ._~+/= inside it (a hyphen alone does not count), an upper-case letter right after a
 * lower-case one (base64, camel-cased keys), or an unbroken run of 16 or more letters. The last means "Bearer abcdefghijklmnop" is
 * redacted: a 16-letter single word is rare after a scheme name in prose and is what a lower-case
 * random token looks like. Prose that stays: words, Capitalised or ALL-CAPS words, hyphenated
 * compounds of words ("token-based") and a sentence's full stop ("authentication.").
 */
export function credentialShaped(token: string): boolean {
  const core = token.replace(/\.+$/, '');
  if (core.length < 8) return false;
  if (/[0-9._~+/=]/.test(core)) return true;
  return core.split('-').some((part) => /[a-z][A-Z]/.test(part) || part.length >= 16);
}

/**
 * `Bearer error_description="…"` in a WWW-Authenticate challenge is a parameter, not a token. Only
 * the parameter names RFC 6750 defines count: a base64 token can end in one '=' and be followed by
 * a closing quote too.
 */
function challengeParam(token: string, next: string | undefined): boolean {
  return /^(?:realm|scope|error|error_description|error_uri)=$/i.test(token) && next !== undefined && /[^\s,]/.test(next);
}

/** The four spellings of base64: standard and URL-safe alphabets, each with and without padding. */
function base64Forms(bytes: Buffer): string[] {
  const padded = bytes.toString('base64');
  const bare = padded.replace(/=+$/, '');
  const url = bytes.toString('base64url');
  return [padded, bare, url, url + padded.slice(bare.length)];
}

/**
 * Base64 encodes 3 bytes at a time, so a secret inside a longer payload (a "user:secret" Basic
 * pair with an unknown user, a JWT claim) is encoded differently for each of its 3 possible byte
 * offsets, and the characters at its edges mix in the neighbouring bytes. What is fixed for each
 * offset is the encoding of the whole 3-byte groups made only of secret bytes: registering those
 * redacts all but up to 2 bytes at either end. Limits: a secret shorter than 8 bytes has no core
 * long enough to register; base64 that is line-wrapped, or of compressed or encrypted data, does
 * not contain the secret's encoding at all.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const skip of [0, 1, 2]) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole <= 0) continue;
    const core = bytes.subarray(skip, skip + whole);
    if (core.toString('base64').length >= MIN_CORE) cores.push(core.toString('base64'), core.toString('base64url'));
  }
  return cores;
}

/** Percent-encodings: encodeURIComponent, form encoding (space as +), and both with lower-case hex. */
function percentForms(s: string): string[] {
  const uri = encodeURIComponent(s);
  const forms = [uri, uri.replace(/%20/g, '+'), new URLSearchParams([['', s]]).toString().slice(1)];
  return [...forms, ...forms.map((f) => f.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()))];
}

/** Inside a JSON string: JSON.stringify's escaping, with "\/", and ASCII-only (\uXXXX) as Python writes it. */
function jsonForms(s: string): string[] {
  const escaped = JSON.stringify(s).slice(1, -1);
  const ascii = escaped.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [escaped, escaped.replace(/\//g, '\\/'), ascii];
}

/** Every spelling of a secret value a report might carry. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  return [
    secret,
    ...base64Forms(bytes),
    ...base64Cores(bytes),
    // Basic credentials with the secret as the user name or as the password.
    ...base64Forms(Buffer.from(`${secret}:`, 'utf8')),
    ...base64Forms(Buffer.from(`:${secret}`, 'utf8')),
    hex,
    hex.toUpperCase(),
    ...percentForms(secret),
    ...jsonForms(secret),
  ];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** scheme://, raw userinfo and the rest of a URL; the userinfo ends at the last '@' before the path. */
function splitUserinfo(url: string): { scheme: string; userinfo: string; rest: string } | undefined {
  const m = /^(\s*[a-z][a-z0-9+.-]*:\/\/)([^/?#\\]*)@/i.exec(url);
  if (!m) return undefined;
  return { scheme: m[1]!, userinfo: m[2]!, rest: url.slice(m[0].length) };
}

/**
 * A URL without its userinfo, and the user name and password it held (percent-decoded). Works on
 * the string, not through URL parsing, so the rest of the URL is returned exactly as given: fetch
 * refuses a URL with credentials, and a report should show the address as the user typed it.
 */
export function stripUserinfo(url: string): { url: string; user?: string; password?: string } {
  const parts = splitUserinfo(url);
  if (!parts) return { url };
  const colon = parts.userinfo.indexOf(':');
  const user = safeDecode(colon === -1 ? parts.userinfo : parts.userinfo.slice(0, colon));
  const password = colon === -1 ? undefined : safeDecode(parts.userinfo.slice(colon + 1));
  return { url: parts.scheme + parts.rest, ...(user ? { user } : {}), ...(password ? { password } : {}) };
}

/**
 * The values to register for a user name and password used together (Basic credentials, URL
 * userinfo): both parts on their own (with key-as-username Basic the user name is the key), and
 * the pair `user:password` raw and percent-encoded, whose base64 is the Basic credential. A pair
 * whose parts are both under 4 characters is left out: it is no harder to guess than noise.
 */
export function pairSecrets(user: string | undefined, password: string | undefined): string[] {
  const parts = [user, password].filter((p): p is string => !!p);
  if (!user || !password || (user.length < MIN_SECRET && password.length < MIN_SECRET)) return parts;
  return [...parts, `${user}:${password}`, `${encodeURIComponent(user)}:${encodeURIComponent(password)}`];
}

/**
 * The values to register for a URL's userinfo: the parts raw (as typed, percent-encoded) and
 * decoded, and the pair. Plain strings, so they can travel with a run's other secrets to a Redactor
 * built in another process (the suite's, from RunSettings.secrets) and cover the same spellings.
 */
export function userinfoSecrets(url: string): string[] {
  const parts = splitUserinfo(url);
  if (!parts) return [];
  const colon = parts.userinfo.indexOf(':');
  const raw = colon === -1 ? [parts.userinfo] : [parts.userinfo.slice(0, colon), parts.userinfo.slice(colon + 1)];
  const { user, password } = stripUserinfo(url);
  return [...new Set([...raw, parts.userinfo, ...pairSecrets(user, password)].filter((s) => s !== ''))];
}

/** Whether text[at] is a backslash that starts an escape (an even number of backslashes before it). */
function escapeStart(text: string, at: number): boolean {
  if (text[at] !== '\\') return false;
  let n = 0;
  while (at - 1 - n >= 0 && text[at - 1 - n] === '\\') n++;
  return n % 2 === 0;
}

function escapeLength(text: string, at: number): number {
  return text[at + 1] === 'u' ? 6 : 2;
}

/**
 * Widens [start, end) so it neither starts nor ends inside a JSON escape (\n, \u00e9): reports are
 * redacted as serialised JSON, and a cut escape would leave results.json unparseable.
 */
function widenOverEscapes(text: string, start: number, end: number): [number, number] {
  for (let k = 1; k <= 5 && start - k >= 0; k++) {
    if (escapeStart(text, start - k) && start - k + escapeLength(text, start - k) > start) {
      start -= k;
      break;
    }
  }
  for (let k = 1; k <= 5 && end - k >= start; k++) {
    if (escapeStart(text, end - k)) {
      end = Math.min(text.length, Math.max(end, end - k + escapeLength(text, end - k)));
      break;
    }
  }
  return [start, end];
}

export class Redactor {
  private readonly forms = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  /**
   * Registers a secret value and every encoding it travels in: base64 and base64url with and
   * without padding (alone, as the Basic forms `secret:` and `:secret`, and as the fixed cores of
   * the secret inside longer base64), hex in either case, URL- and form-encoded, JSON-escaped.
   * Values under 4 characters are not registered. Surrounding whitespace (a secret read from a file
   * with its newline) is registered both with and without.
   */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET) return;
    for (const form of encodings(secret)) this.addForm(form);
    const trimmed = secret.trim();
    if (trimmed !== secret) this.add(trimmed);
  }

  /** A user name and password used together (Basic credentials, URL userinfo): see pairSecrets. */
  addPair(user: string | undefined, password: string | undefined): void {
    for (const s of pairSecrets(user, password)) this.add(s);
  }

  /** The user name and password a URL carries as userinfo, if any: see userinfoSecrets. */
  addUrl(url: string): void {
    for (const s of userinfoSecrets(url)) this.add(s);
  }

  /** Every registered spelling, for diagnostics and tests. */
  known(): string[] {
    return [...this.forms];
  }

  text(input: string): string {
    let out = this.maskKnown(input);
    out = out.replace(SCHEME_TOKEN, (whole: string, scheme: string, space: string, token: string, offset: number, all: string) =>
      credentialShaped(token) && !challengeParam(token, all[offset + whole.length]) ? `${scheme}${space}${REDACTED}` : whole,
    );
    out = out.replace(SECRET_JSON_MEMBER, `$1"${REDACTED}"`);
    return out.replace(URL_USERINFO, `$1${REDACTED}@`);
  }

  /** A deep copy of a JSON value with secret-named keys and known secret values replaced. */
  value<T>(input: T): T {
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.text(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') {
        return Object.fromEntries(
          Object.entries(v).map(([k, x]) => [this.text(k), SECRET_KEYS.test(k) && x !== null && x !== undefined ? REDACTED : walk(x)]),
        );
      }
      return v;
    };
    return walk(input) as T;
  }

  private addForm(form: string): void {
    if (form.length >= MIN_SECRET) this.forms.add(form);
  }

  /**
   * Replaces every occurrence of every registered form. Occurrences are found first and merged
   * where they overlap, so two secrets sharing characters, or a secret and an encoding of another,
   * are removed whole whatever order they were registered in.
   */
  private maskKnown(input: string): string {
    const ranges: Array<[number, number]> = [];
    for (const form of this.forms) {
      for (let at = input.indexOf(form); at !== -1; at = input.indexOf(form, at + 1)) {
        ranges.push(widenOverEscapes(input, at, at + form.length));
      }
    }
    if (ranges.length === 0) return input;
    ranges.sort((a, b) => a[0] - b[0]);
    let out = '';
    let pos = 0;
    let [start, end] = ranges[0]!;
    for (const [s, e] of ranges.slice(1)) {
      if (s <= end) {
        end = Math.max(end, e);
        continue;
      }
      out += input.slice(pos, start) + REDACTED;
      pos = end;
      [start, end] = [s, e];
    }
    return out + input.slice(pos, start) + REDACTED + input.slice(end);
  }
}
