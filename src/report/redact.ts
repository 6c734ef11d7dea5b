// Secrets never leave the process in clear: every line of output (failure messages, JUnit, results,
// console) passes through a Redactor that knows the run's secret values, plus patterns that catch
// credentials it was never told about (a webhook secret echoed under an unexpected name, say).

export const REDACTED = '[REDACTED]';

/** JSON keys whose values are secrets wherever they appear. */
const SECRET_KEYS = /^(password|secret|cloud_secret_access_key|api_key|apikey|token|access_token|refresh_token|client_secret|webhook_secret)$/i;

const PATTERNS: Array<[RegExp, string]> = [
  // URL userinfo: scheme://user:password@host.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, `$1${REDACTED}@`],
  [/("(?:password|secret|cloud_secret_access_key|api_key|apikey|token|access_token|refresh_token|client_secret|webhook_secret)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, `$1"${REDACTED}"`],
];

const SCHEME_TOKEN = /\b(Bearer|Basic)(\s+)([A-Za-z0-9._~+/=-]+)/gi;

/**
 * Only a credential-shaped token is redacted by pattern, so prose ("Bearer with a user API key")
 * is left as written: 8 or more token68 characters with a digit or punctuation, or with upper
 * case after the first character.
 */
function credentialShaped(token: string): boolean {
  return token.length >= 8 && (/[0-9._~+/=-]/.test(token) || (/[a-z]/.test(token) && /[A-Z]/.test(token.slice(1))));
}

export class Redactor {
  private readonly secrets = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  /**
   * Registers a secret value and the encodings it travels in: base64 and base64url (alone and in
   * the Basic forms secret: and :secret), hex, URL- and form-encoded, JSON-escaped. A secret inside
   * a longer base64 text is not a fixed substring and is not caught. Values under 4 characters
   * would redact noise and are not registered.
   */
  add(secret: string | undefined): void {
    if (!secret || secret.length < 4) return;
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const forms = [
      secret,
      b64(secret), b64(secret).replace(/=+$/, ''), Buffer.from(secret).toString('base64url'),
      b64(`${secret}:`), b64(`:${secret}`),
      Buffer.from(secret).toString('hex'), Buffer.from(secret).toString('hex').toUpperCase(),
      encodeURIComponent(secret), encodeURIComponent(secret).replace(/%20/g, '+'),
      JSON.stringify(secret).slice(1, -1),
    ];
    for (const form of forms) if (form.length >= 4) this.secrets.add(form);
  }

  /** A user:password pair (Basic, URL userinfo): both parts and their Basic encoding. */
  addPair(user: string, password: string): void {
    this.add(user);
    this.add(password);
    if (user && password) this.secrets.add(Buffer.from(`${user}:${password}`).toString('base64'));
  }

  known(): string[] {
    return [...this.secrets];
  }

  text(input: string): string {
    input = input.replace(SCHEME_TOKEN, (whole, scheme: string, space: string, token: string) => (credentialShaped(token) ? `${scheme}${space}${REDACTED}` : whole));
    let out = input;
    // Longest first, so a secret that contains another is replaced whole.
    for (const s of [...this.secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join(REDACTED);
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
    return out;
  }

  /** A deep copy of a JSON value with secret-named keys and known secret values replaced. */
  value<T>(input: T): T {
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.text(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') {
        return Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, SECRET_KEYS.test(k) && x !== null && x !== undefined ? REDACTED : walk(x)]),
        );
      }
      return v;
    };
    return walk(input) as T;
  }
}
