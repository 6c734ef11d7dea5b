// The spellings a secret travels in: each encoding or escape is a layer, and the layers are
// composed, so a secret JSON-escaped twice, or base64 then percent-encoded, is known too.

/**
 * Encodings are composed to this depth: each escaped form of each encoding and each encoding of
 * each escaped form (a secret JSON-escaped twice when the target echoes a request body inside a
 * JSON string, a base64 value percent-encoded into a query string).
 */
const DEPTH = 2;

/**
 * A base64 core (see base64Cores) shorter than this could match unrelated base64 by chance; 8
 * characters are 48 bits of the secret.
 */
const MIN_CORE = 8;

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

/** In XML or HTML text and attributes, with the apostrophe in each spelling an escaper uses. */
function markupForms(s: string): string[] {
  const escaped = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return [escaped, escaped.replace(/'/g, '&#39;'), escaped.replace(/'/g, '&#x27;'), escaped.replace(/'/g, '&apos;')];
}

/** Base64 of the value alone, of the Basic pairs with it as user name or password, and its cores inside longer base64. */
function base64All(s: string): string[] {
  const bytes = Buffer.from(s, 'utf8');
  return [
    ...base64Forms(bytes),
    ...base64Cores(bytes),
    ...base64Forms(Buffer.from(`${s}:`, 'utf8')),
    ...base64Forms(Buffer.from(`:${s}`, 'utf8')),
  ];
}

function hexForms(s: string): string[] {
  const hex = Buffer.from(s, 'utf8').toString('hex');
  return [hex, hex.toUpperCase()];
}

/** One layer of encoding or escaping; encodings() applies them on top of each other up to DEPTH. */
const LAYERS: Array<(s: string) => string[]> = [jsonForms, percentForms, markupForms, base64All, hexForms];

/** Every spelling of a secret value a report might carry: the value, and each layer over the spellings of the previous depth. */
export function encodings(secret: string): string[] {
  const all = new Set([secret]);
  let previous = [secret];
  for (let depth = 0; depth < DEPTH; depth++) {
    const next: string[] = [];
    for (const form of previous) {
      for (const layer of LAYERS) {
        for (const f of layer(form)) {
          if (!all.has(f)) {
            all.add(f);
            next.push(f);
          }
        }
      }
    }
    previous = next;
  }
  return [...all];
}

const hexUnit = (code: number) => code.toString(16).padStart(4, '0').replace(/[a-f]/g, (c) => `[${c}${c.toUpperCase()}]`);
const SHORT_ESCAPES: Record<string, string> = { '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't' };

/**
 * A regular expression source matching the secret JSON-escaped any number of times (k times: a
 * quote after 2^k - 1 backslashes, a backslash as 2^k of them), with "\/" and \uXXXX spellings: a
 * request body echoed in a JSON string inside a JSON answer is escaped three times, past DEPTH.
 * Undefined when the secret has nothing JSON escapes (its own spelling covers every depth).
 */
export function jsonEscapedAnyDepth(secret: string): string | undefined {
  let source = '';
  let escapes = false;
  for (let i = 0; i < secret.length; i++) {
    const unit = secret[i]!;
    const code = secret.charCodeAt(i);
    if (unit === '"' || unit === '/') source += `\\\\*\\${unit}`;
    else if (unit === '\\') source += '\\\\+';
    else if (code < 0x20 || code >= 0x7f) {
      const short = SHORT_ESCAPES[unit] ? `${SHORT_ESCAPES[unit]}|` : '';
      source += `(?:\\u${code.toString(16).padStart(4, '0')}|\\\\+(?:${short}u${hexUnit(code)}))`;
    } else {
      source += unit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
      continue;
    }
    escapes = true;
  }
  return escapes ? source : undefined;
}
