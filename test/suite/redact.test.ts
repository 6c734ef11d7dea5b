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
