import { describe, expect, test } from 'vitest';
import { credentialShaped, pairSecrets, REDACTED, Redactor, stripUserinfo, userinfoSecrets } from '../../src/report/redact.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const b64url = (s: string) => Buffer.from(s).toString('base64url');
const bare = (s: string) => s.replace(/=+$/, '');
const padded = (s: string) => s + '='.repeat((4 - (s.length % 4)) % 4);

/** Every spelling the brief lists for one secret value. */
function encodingsOf(secret: string): Array<[string, string]> {
  const hex = Buffer.from(secret).toString('hex');
  const base64s = (label: string, s: string): Array<[string, string]> => [
    [`${label} base64`, b64(s)],
    [`${label} base64 unpadded`, bare(b64(s))],
    [`${label} base64url`, b64url(s)],
    [`${label} base64url padded`, padded(b64url(s))],
  ];
  return [
    ['as is', secret],
    ...base64s('value', secret),
    ...base64s('Basic secret:', `${secret}:`),
    ...base64s('Basic :secret', `:${secret}`),
    ['hex', hex],
    ['HEX', hex.toUpperCase()],
    ['encodeURIComponent', encodeURIComponent(secret)],
    ['form (+ for space)', encodeURIComponent(secret).replace(/%20/g, '+')],
    ['URLSearchParams', new URLSearchParams([['k', secret]]).toString().slice(2)],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
  ];
}

// Chosen so the encodings differ from the value: a space, a quote, a slash, '+' and '/' in base64,
// non-ASCII, a length that is not a multiple of 3.
const SECRETS = ['key-123456', 'p@ss word/"x"+?', 'sk_live_abc123XYZ', 'ünïcødé-sécret', 'abcd', '\u00ff\u00fe>>?'];

describe('redaction by value, in every encoding', () => {
  const r = new Redactor(SECRETS);
  const prose = 'the target answered 400 for connection conn_1 in region eu-west-1';

  for (const secret of SECRETS) {
    test.each(encodingsOf(secret))(`${JSON.stringify(secret)}: %s`, (_label, form) => {
      const out = r.text(`${prose} <${form}> ${prose}`);
      expect(out).not.toContain(form);
      expect(out).toBe(`${prose} <${REDACTED}> ${prose}`);
      const value = JSON.stringify(r.value({ note: `x ${form} y`, list: [form], nested: { [form]: 1 } }));
      expect(value).not.toContain(form);
      expect(value).toContain('"note":"x [REDACTED] y"');
    });
  }

  test('lower-case percent escapes too', () => {
    const lower = encodeURIComponent('p@ss word/"x"+?').replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
    expect(r.text(lower)).toBe(REDACTED);
  });

  test('reports are redacted as serialised JSON, which stays parseable', () => {
    const tricky = new Redactor(['abcd\\', 'nsecret-1', 'é-value']);
    const json = JSON.stringify({ a: 'x abcd\\ y', b: 'line\nsecret-1\nnsecret-1', c: 'é-value', d: 'plain' });
    const out = tricky.text(json);
    expect(() => JSON.parse(out)).not.toThrow();
    expect(out).not.toMatch(/abcd|nsecret-1|é-value/);
    expect(JSON.parse(out).d).toBe('plain');
  });

  test('a secret inside longer base64 is removed but for at most 2 bytes at either end', () => {
    const secret = 'a-long-webhook-secret-0123456789';
    const one = new Redactor([secret]);
    for (const prefix of ['', 'x', 'xy', 'unknown-user:']) {
      const encoded = b64(`${prefix}${secret}`);
      const out = one.text(encoded);
      expect(out).toContain(REDACTED);
      // What survives decodes to no more than the prefix and two secret bytes on each side.
      const visible = out.split(REDACTED).join('').length;
      expect(visible).toBeLessThanOrEqual(Math.ceil((prefix.length + 2) / 3) * 4 + 4 + 2);
    }
  });

  test('overlapping secrets are removed whole whatever the order', () => {
    const r2 = new Redactor(['abcdef', 'defghi']);
    expect(r2.text('xx abcdefghi yy')).toBe(`xx ${REDACTED} yy`);
  });

  test('an empty value registers nothing', () => {
    expect(new Redactor(['', undefined]).known()).toEqual([]);
  });

  test('surrounding whitespace (a secret read from a file) is registered with and without', () => {
    expect(new Redactor(['from-file-42\n']).text('x from-file-42 y')).toBe(`x ${REDACTED} y`);
  });
});

describe('pairs and URL userinfo', () => {
  test('a pair registers both parts and every Basic spelling of user:password', () => {
    const r = new Redactor();
    r.addPair('alice-user', 'hunter2-pass');
    const pair = 'alice-user:hunter2-pass';
    for (const form of [pair, b64(pair), bare(b64(pair)), b64url(pair), 'alice-user', 'hunter2-pass', b64('hunter2-pass:'), b64(':alice-user')]) {
      expect(r.text(`[${form}]`)).toBe(`[${REDACTED}]`);
    }
  });

  test('a pair with a short user name still hides the pair', () => {
    const r = new Redactor();
    r.addPair('me', 'hunter2-pass');
    expect(r.text(`Basic ${b64('me:hunter2-pass')}`)).not.toContain(b64('me:hunter2-pass'));
    expect(r.text(b64('me:hunter2-pass'))).toBe(REDACTED);
    // The short user name is a secret too, but only as a token of its own.
    expect(r.text('me and mine, meme')).toBe(`${REDACTED} and mine, meme`);
  });

  test('stripUserinfo returns the URL as given without userinfo, and the decoded parts', () => {
    expect(stripUserinfo('https://alice:p%40ss%3Aw0rd@api.example.com:8443/v1?q=a@b#f')).toEqual({
      url: 'https://api.example.com:8443/v1?q=a@b#f', user: 'alice', password: 'p@ss:w0rd',
    });
    expect(stripUserinfo('https://tok_123456@host/x')).toEqual({ url: 'https://host/x', user: 'tok_123456' });
    expect(stripUserinfo('https://:only-pass@host')).toEqual({ url: 'https://host', password: 'only-pass' });
    expect(stripUserinfo('https://host/path@not-userinfo')).toEqual({ url: 'https://host/path@not-userinfo' });
    expect(stripUserinfo('http://u:p@ss@host/')).toEqual({ url: 'http://host/', user: 'u', password: 'p@ss' });
    expect(stripUserinfo('not a url')).toEqual({ url: 'not a url' });
  });

  test('addUrl registers the userinfo parts, raw and decoded, and their pair', () => {
    const r = new Redactor();
    r.addUrl('https://svc-user:s3cr%2Ft%20pw@api.example.com/');
    const pair = 'svc-user:s3cr/t pw';
    for (const form of ['s3cr%2Ft%20pw', 's3cr/t pw', 'svc-user', b64(pair), encodeURIComponent('s3cr/t pw')]) {
      expect(r.text(`<${form}>`)).toBe(`<${REDACTED}>`);
    }
    expect(r.text('GET https://api.example.com/ failed')).toBe('GET https://api.example.com/ failed');
  });

  test('userinfoSecrets carries the same coverage as plain strings, for a Redactor built elsewhere', () => {
    const url = 'https://svc-user:s3cr%2Ft%20pw@api.example.com/';
    const elsewhere = new Redactor(userinfoSecrets(url));
    for (const form of ['s3cr%2Ft%20pw', 's3cr/t pw', b64('svc-user:s3cr/t pw'), bare(b64url('svc-user:s3cr/t pw'))]) {
      expect(elsewhere.text(`<${form}>`)).toBe(`<${REDACTED}>`);
    }
    expect(userinfoSecrets('https://api.example.com/')).toEqual([]);
    expect(pairSecrets('ab', 'cd')).toEqual(['ab', 'cd', 'ab:cd']);
    expect(pairSecrets('me', 'hunter2-pass')).toContain('me:hunter2-pass');
  });

  test('userinfo is redacted in any URL, registered or not, and only the userinfo', () => {
    const r = new Redactor();
    expect(r.text('see https://user:hunter2@example.com/x and mail bob@example.org')).toBe(`see https://${REDACTED}@example.com/x and mail bob@example.org`);
    expect(r.text('{"url":"postgres://app:pw@db:5432/x","owner":"x@y"}')).toBe(`{"url":"postgres://${REDACTED}@db:5432/x","owner":"x@y"}`);
    expect(r.text('https://example.com/a?u=x@y')).toBe('https://example.com/a?u=x@y');
  });
});

describe('patterns: credential-shaped tokens only, never prose', () => {
  const none = new Redactor();

  test.each([
    'Bearer with a user API key',
    'Basic with the organization key',
    'Bearer token',
    'Two schemes are listed: Bearer with a user API key, and Basic with an organization-scoped API key.',
    'Authorization: Bearer <WEBHOOK_SECRET>',
    'Bearer authentication.',
    'Basic Authentication required',
    'supports Bearer token-based authentication',
    'basic understanding of OAUTHENTICATION',
    'WWW-Authenticate: Bearer realm="dss", error="invalid_token"',
    'WWW-Authenticate: Bearer error_description="The access token expired"',
  ])('prose stays: %s', (prose) => {
    expect(none.text(prose)).toBe(prose);
  });

  test.each([
    ['Authorization: Bearer sk_live_abc123XYZ', `Authorization: Bearer ${REDACTED}`],
    ['Basic dXNlcjpwYXNz', `Basic ${REDACTED}`],
    ['Bearer abcdefghijklmnop', `Bearer ${REDACTED}`],
    ['authorization: bearer eyJhbGciOiJIUzI1NiJ9.e30.sig', `authorization: bearer ${REDACTED}`],
    ['Basic YWJjZDo=.', `Basic ${REDACTED}.`],
    ['{"authorization":"Basic dXNlcjpwYXNzd29yZA="}', `{"authorization":"Basic ${REDACTED}"}`],
    ['"line one\\nBearer tok-12345678"', `"line one\\nBearer ${REDACTED}"`],
  ])('credential goes: %s', (input, expected) => {
    expect(none.text(input)).toBe(expected);
  });

  test('the rule: 8+ token68 characters with a digit or symbol, inner case change, or a 16-letter run', () => {
    expect(credentialShaped('abc12345')).toBe(true);
    expect(credentialShaped('abc1234')).toBe(false);
    expect(credentialShaped('camelCaseKey')).toBe(true);
    expect(credentialShaped('Organization')).toBe(false);
    expect(credentialShaped('ORGANIZATION')).toBe(false);
    expect(credentialShaped('abcdefghijklmno')).toBe(false);
    expect(credentialShaped('abcdefghijklmnop')).toBe(true);
    expect(credentialShaped('token-based')).toBe(false);
    expect(credentialShaped('authentication.')).toBe(false);
  });

  test('JSON secret-named members stay redacted in text and in values', () => {
    expect(none.text('{"password":"hunter2","name":"n"}')).toBe(`{"password":"${REDACTED}","name":"n"}`);
    expect(none.text('{"configuration":{"secret" : "whsec_1"}}')).toContain(`"secret" : "${REDACTED}"`);
    expect(none.value({ configuration: { cloud_secret_access_key: 'abc', region: 'us', client_secret: 'x', passwd: 'y' } }))
      .toEqual({ configuration: { cloud_secret_access_key: REDACTED, region: 'us', client_secret: REDACTED, passwd: REDACTED } });
  });
});

describe('composed encodings: each layer over each other, to depth 2', () => {
  // Written here independently of the redactor, so a layer it forgot shows.
  const layers: Array<[string, (s: string) => string]> = [
    ['JSON', (s) => JSON.stringify(s).slice(1, -1)],
    ['percent', encodeURIComponent],
    ['markup', (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')],
    ['base64', b64],
    ['base64url', b64url],
    ['hex', (s) => Buffer.from(s).toString('hex')],
  ];
  // A quote and a backslash: JSON escapes them, and escaping the escape doubles them again.
  const secrets = ['p"a\\ss-1<&\'x', 'sk_"quoted"\\key', 'k"', 'a\\'];
  const r = new Redactor(secrets);
  const prose = 'the target answered 400 for conn_1';

  for (const secret of secrets) {
    for (const [outer, f] of layers) {
      test.each(layers.map(([inner, g]) => [inner, g(secret)] as const))(`${JSON.stringify(secret)}: ${outer} of %s`, (_inner, once) => {
        const form = f(once);
        const out = r.text(`${prose} <${form}> ${prose}`);
        expect(out).not.toContain(form);
        expect(out).toContain(REDACTED);
        expect(out.startsWith(prose) && out.endsWith(prose)).toBe(true);
      });
    }
  }

  test('a request body echoed inside a JSON string: the secret JSON-escaped twice, and three times once serialised', () => {
    const secret = 'sk_"quoted"\\key';
    const body = JSON.stringify({ key: secret, note: 'hello' });
    // The answer's text, as the evidence quotes it: the body inside a JSON string.
    const answer = JSON.stringify({ status: 400, message: `bad body ${body}` });
    const twice = JSON.stringify(JSON.stringify(secret).slice(1, -1)).slice(1, -1);
    expect(answer).toContain(twice);
    expect(r.text(`evidence: ${twice}`)).toBe(`evidence: ${REDACTED}`);
    const redacted = r.text(answer);
    expect(redacted).not.toMatch(/quoted/);
    expect(JSON.parse(redacted).status).toBe(400);
    const event = JSON.stringify(r.value({ check: { message: `the target said ${answer}` } }));
    expect(event).not.toMatch(/quoted/);
    expect(() => JSON.parse(event)).not.toThrow();
  });
});

test('past depth 2, JSON escaping of any depth (a body echoed in a JSON string of a JSON answer), with \\/ and \\uXXXX', () => {
  const secret = 'p"a\\ss/é\n-9';
  const r = new Redactor([secret]);
  let form = secret;
  for (let depth = 1; depth <= 5; depth++) {
    form = JSON.stringify(form).slice(1, -1);
    for (const spelling of [form, form.replace(/\//g, '\\/'), form.replace(/é/g, '\\u00E9')]) {
      expect(r.text(`{"m":"x ${spelling} y"}`), `depth ${depth}: ${spelling}`).toBe(`{"m":"x ${REDACTED} y"}`);
    }
  }
});

describe('short secrets: redacted whatever their length, as tokens', () => {
  const r = new Redactor(['k1']);

  test.each([
    ['Authorization: Bearer k1', `Authorization: Bearer ${REDACTED}`],
    ['{"x-api-key":"k1"}', `{"x-api-key":"${REDACTED}"}`],
    ['GET /x?key=k1&y=2', `GET /x?key=${REDACTED}&y=2`],
    ['redirect=%2Fx%3Fkey%3Dk1', `redirect=%2Fx%3Fkey%3D${REDACTED}`],
    ['"line\\nk1\\tk1\\u0022k1"', `"line\\n${REDACTED}\\t${REDACTED}\\u0022${REDACTED}"`],
    ['title="&quot;k1&quot;"', `title="&quot;${REDACTED}&quot;"`],
    ['Basic azE6', `Basic ${REDACTED}`],
    ['hex 6b31', `hex ${REDACTED}`],
  ])('goes: %s', (input, expected) => {
    expect(r.text(input)).toBe(expected);
  });

  test.each(['k10 desk1 kk1 k1a', 'azEx'])('unrelated text that only contains it stays: %s', (input) => {
    expect(r.text(input)).toBe(input);
  });

  test('JSON stays JSON whatever the secret: values are redacted as strings, never as serialised text', () => {
    const literal = new Redactor(['12', 'true', 'null', 'id']);
    const event = { id: 'id', durationMs: 12, ok: true, none: null, list: [12, 'x 12 y'], nested: { id: 'conn-id' } };
    const out = JSON.parse(JSON.stringify(literal.value(event))) as Record<string, unknown>;
    expect(out).toMatchObject({ durationMs: 12, ok: true, none: null, list: [12, `x ${REDACTED} y`], nested: { [REDACTED]: `conn-${REDACTED}` } });
  });

  test('markup stays markup: tags and character references are never cut', () => {
    const markup = new Redactor(['td', 'amp', 'k"1']);
    const html = '<table class="td"><tr><td title="td">td &amp; k&quot;1</td></tr></table>';
    expect(markup.markup(html)).toBe(`<table class="${REDACTED}"><tr><td title="${REDACTED}">${REDACTED} ${REDACTED} ${REDACTED}</td></tr></table>`);
  });
});
