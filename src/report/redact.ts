// Secrets never leave the process in clear: every line of output (failure messages, JUnit, results,
// console) passes through a Redactor that knows the run's secret values, plus patterns that catch
// credentials it was never told about (a webhook secret echoed under an unexpected name, say).

import { encodings, jsonEscapedAnyDepth } from './redact-encodings.ts';

export const REDACTED = '[REDACTED]';

/**
 * A registered spelling shorter than this is redacted only where it stands as a token of its own
 * (see atBoundary): a 2-character key replaced inside every word would rewrite the reports' own
 * text. Longer spellings are redacted wherever they occur.
 */
const SHORT_FORM = 4;

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
 * the pair `user:password` raw and percent-encoded, whose base64 is the Basic credential.
 */
export function pairSecrets(user: string | undefined, password: string | undefined): string[] {
  const parts = [user, password].filter((p): p is string => !!p);
  if (!user || !password) return parts;
  return [...new Set([...parts, `${user}:${password}`, `${encodeURIComponent(user)}:${encodeURIComponent(password)}`])];
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

/** A character reference (&amp; &#39; &#x27;) starting at text[at], or 0. */
function entityLength(text: string, at: number): number {
  if (text[at] !== '&') return 0;
  return /^&(?:[A-Za-z]{2,8}|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});/.exec(text.slice(at, at + 12))?.[0].length ?? 0;
}

/**
 * Widens [start, end) so it neither starts nor ends inside a JSON escape (\n, \u00e9) or a
 * character reference (&amp;): reports are redacted as serialised JSON and as markup, and a cut
 * escape would leave them unparseable.
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
  for (let k = 1; k <= 11 && start - k >= 0; k++) {
    const n = entityLength(text, start - k);
    if (n > k) {
      start -= k;
      break;
    }
  }
  for (let k = 1; k <= 11 && end - k >= start; k++) {
    const n = entityLength(text, end - k);
    if (n > 0) {
      end = Math.max(end, end - k + n);
      break;
    }
  }
  return [start, end];
}

const WORD = /[A-Za-z0-9]/;

/**
 * Whether a short spelling found at [start, end) stands as a token of its own: each edge that is a
 * letter or digit meets a non-alphanumeric neighbour, the end of the text, or (before it) an escape
 * that ends there: `\n`, `\u0022`, `%3D`, `&amp;`. So `Bearer k1`, `"k1"`, `?key=k1&`, `%3Dk1` and
 * `\nk1` are redacted and `k10`, `kk1` are not. The escapes count because a secret after one is the
 * same token as after the character it stands for; without them a short key leaks from every
 * JSON-escaped or percent-encoded line break, quote or '='.
 */
function atBoundary(text: string, start: number, end: number): boolean {
  const before = start === 0 || !WORD.test(text[start - 1]!) || !WORD.test(text[start]!)
    || /(?:%[0-9A-Fa-f]{2}|\\(?:[nrtbf]|u[0-9A-Fa-f]{4})|&(?:[A-Za-z]{2,8}|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});)$/.test(text.slice(Math.max(0, start - 12), start));
  const after = end === text.length || !WORD.test(text[end]!) || !WORD.test(text[end - 1]!);
  return before && after;
}

/** Index key of a spelling: its first two UTF-16 units (or the one, for a 1-character spelling). */
const prefixKey = (s: string, at = 0): number => (at + 1 < s.length ? s.charCodeAt(at) * 0x10000 + s.charCodeAt(at + 1) : -1 - s.charCodeAt(at));

export class Redactor {
  private readonly forms = new Set<string>();
  private readonly secrets = new Set<string>();
  /** The spellings by prefixKey: one pass over a text finds them all, however many are registered. */
  private readonly byPrefix = new Map<number, string[]>();
  /** Whether a 1-character spelling is registered: only then is a second pass over a text needed. */
  private singles = false;
  /** jsonEscapedAnyDepth of each secret that has one, and all of them as one expression (made when first needed). */
  private readonly deepSources: string[] = [];
  private deep: RegExp | undefined;

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  /**
   * Registers a secret value, whatever its length, and every spelling it travels in: the layers of
   * encoding (base64 and base64url with and without padding, alone, as the Basic forms `secret:`
   * and `:secret`, and as the fixed cores of the secret inside longer base64; hex in either case;
   * URL- and form-encoded; JSON-escaped; XML/HTML-escaped) composed to DEPTH. Spellings under
   * SHORT_FORM characters are redacted as tokens only (see atBoundary). Surrounding whitespace (a
   * secret read from a file with its newline) is registered both with and without.
   */
  add(secret: string | undefined): void {
    if (!secret || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    for (const form of encodings(secret)) this.addForm(form);
    const deep = jsonEscapedAnyDepth(secret);
    if (deep !== undefined) {
      this.deepSources.push(deep);
      this.deep = undefined;
    }
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

  /**
   * A deep copy of a JSON value with secret-named keys and known secret values replaced. Only
   * strings (values and keys) are rewritten, so what JSON.stringify makes of the copy is valid JSON
   * whatever the secrets are: text() over serialised JSON could turn a secret "12" or "true" into
   * a number's or literal's replacement and break it.
   */
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

  /**
   * Markup (HTML, XML) with its text and quoted attribute values redacted and its tags left as
   * they are, so a secret that is also a tag or attribute name ("td", "class") cannot break it.
   */
  markup(input: string): string {
    return input.replace(/<[^<>]*>|[^<]+/g, (part) =>
      part.startsWith('<') ? part.replace(/(=\s*)(?:"([^"]*)"|'([^']*)')/g, (_m, eq: string, dq?: string, sq?: string) => (dq !== undefined ? `${eq}"${this.text(dq)}"` : `${eq}'${this.text(sq ?? '')}'`)) : this.text(part),
    );
  }

  private addForm(form: string): void {
    if (this.forms.has(form)) return;
    this.forms.add(form);
    if (form.length === 1) this.singles = true;
    const key = prefixKey(form);
    const list = this.byPrefix.get(key);
    if (list) list.push(form);
    else this.byPrefix.set(key, [form]);
  }

  /**
   * Replaces every occurrence of every registered form. Occurrences are found first and merged
   * where they overlap, so two secrets sharing characters, or a secret and an encoding of another,
   * are removed whole whatever order they were registered in.
   */
  private maskKnown(input: string): string {
    if (this.byPrefix.size === 0) return input;
    const ranges: Array<[number, number]> = [];
    const found = (at: number, end: number) => {
      if (end - at < SHORT_FORM && !atBoundary(input, at, end)) return;
      ranges.push(widenOverEscapes(input, at, end));
    };
    const find = (list: string[] | undefined, at: number) => {
      if (list) for (const form of list) if (input.startsWith(form, at)) found(at, at + form.length);
    };
    // Without a backslash the text holds no escaped spelling: the registered ones cover the rest.
    if (this.deepSources.length > 0 && input.includes('\\')) {
      const deep = (this.deep ??= new RegExp(this.deepSources.map((s) => `(?:${s})`).join('|'), 'g'));
      deep.lastIndex = 0;
      // One match per start, so two secrets' overlapping spellings are both found.
      for (let m = deep.exec(input); m; m = deep.exec(input)) {
        found(m.index, m.index + m[0].length);
        deep.lastIndex = m.index + 1;
      }
    }
    const last = input.length - 1;
    for (let at = 0; at < last; at++) find(this.byPrefix.get(input.charCodeAt(at) * 0x10000 + input.charCodeAt(at + 1)), at);
    if (this.singles) for (let at = 0; at <= last; at++) find(this.byPrefix.get(-1 - input.charCodeAt(at)), at);
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
