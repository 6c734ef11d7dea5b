import { describe, expect, test } from 'vitest';
import { REDACTED, Redactor } from '../../src/report/redact.ts';

describe('Redactor', () => {
  const r = new Redactor(['key-123456', 'org-abcdef']);

  test('replaces known secrets, their Basic encoding, and credentials it was never told about', () => {
    const basic = Buffer.from('org-abcdef:').toString('base64');
    expect(r.text(`x key-123456 y ${basic}`)).toBe(`x ${REDACTED} y ${REDACTED}`);
    expect(r.text('authorization: Bearer unknown-token-zzz')).toBe(`authorization: Bearer ${REDACTED}`);
    expect(r.text('{"password":"hunter2","name":"n"}')).toBe(`{"password":"${REDACTED}","name":"n"}`);
    expect(r.text('{"configuration":{"secret":"whsec_1"}}')).toContain(`"secret":"${REDACTED}"`);
  });

  test('redacts secret-named keys in JSON values', () => {
    expect(r.value({ configuration: { cloud_secret_access_key: 'abc', region: 'us' } })).toEqual({ configuration: { cloud_secret_access_key: REDACTED, region: 'us' } });
  });

  test('ignores values too short to be secrets', () => {
    const short = new Redactor(['ab']);
    expect(short.text('abc')).toBe('abc');
  });
});

describe('redaction by value in every encoding, patterns only on credential-shaped tokens', () => {
  const secret = 'pw-Literal-9f3k2';
  const r = new Redactor([secret]);
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  test.each([
    ['as is', secret],
    ['base64', b64(secret)],
    ['base64url', Buffer.from(secret).toString('base64url')],
    ['Basic secret:', b64(`${secret}:`)],
    ['Basic :secret', b64(`:${secret}`)],
    ['hex', Buffer.from(secret).toString('hex')],
    ['URL-encoded', encodeURIComponent(secret)],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
  ])('%s', (_label, form) => {
    expect(r.text(`x ${form} y`)).not.toContain(form);
    expect(JSON.stringify(r.value({ note: `x ${form} y` }))).not.toContain(form);
  });

  test('prose after Bearer and Basic stays; credentials and URL userinfo go', () => {
    const none = new Redactor([]);
    for (const prose of ['Bearer with a user API key', 'Basic with the organization key', 'Bearer token']) expect(none.text(prose)).toBe(prose);
    expect(none.text('Authorization: Bearer sk_live_abc123XYZ')).toBe('Authorization: Bearer [REDACTED]');
    expect(none.text('Basic dXNlcjpwYXNz')).toBe('Basic [REDACTED]');
    expect(none.text('see https://user:hunter2@example.com/x')).toBe('see https://[REDACTED]@example.com/x');
  });

  test('a pair registers both parts and their Basic form', () => {
    const p = new Redactor([]);
    p.addPair('alice-user', 'hunter2-pass');
    const text = p.text(`alice-user hunter2-pass ${b64('alice-user:hunter2-pass')}`);
    expect(text).not.toMatch(/alice-user|hunter2-pass/);
    expect(text).not.toContain(b64('alice-user:hunter2-pass'));
  });
});
