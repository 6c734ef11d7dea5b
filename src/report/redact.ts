// Secrets never leave the process in clear: every line of output (failure messages, JUnit, results,
// console) passes through a Redactor that knows the run's secret values, plus patterns that catch
// credentials it was never told about (a webhook secret echoed under an unexpected name, say).

export const REDACTED = '[REDACTED]';

/** JSON keys whose values are secrets wherever they appear. */
const SECRET_KEYS = /^(password|secret|cloud_secret_access_key|api_key|apikey|token|access_token|refresh_token|client_secret|webhook_secret)$/i;

const PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${REDACTED}`],
  [/("(?:password|secret|cloud_secret_access_key|api_key|apikey|token|access_token|refresh_token|client_secret|webhook_secret)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi, `$1"${REDACTED}"`],
];

export class Redactor {
  private readonly secrets = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Registers a secret value; values too short to be secrets (under 4 chars) would redact noise. */
  add(secret: string | undefined): void {
    if (secret && secret.length >= 4) {
      this.secrets.add(secret);
      // Basic credentials carry the key base64-encoded; catch that spelling too.
      this.secrets.add(Buffer.from(`${secret}:`).toString('base64'));
      this.secrets.add(encodeURIComponent(secret));
    }
  }

  known(): string[] {
    return [...this.secrets];
  }

  text(input: string): string {
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
