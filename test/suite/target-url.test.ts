import { describe, expect, test } from 'vitest';
import { parseHttpUrl } from '../../src/runner/target-url.ts';
import { runInProcess } from '../receiver-conformance/in-process.ts';

// A URL's userinfo is a secret to redact; a password with a stray '%' (not percent-encoding) is
// still a password, not a reason to crash every command that takes a URL.

describe('parseHttpUrl', () => {
  test('userinfo with a malformed percent-escape is kept as typed, and registered as a secret', () => {
    const { url, secrets } = parseHttpUrl('--base-url', 'http://user:p%ZZass@127.0.0.1:1/');
    expect(url.host).toBe('127.0.0.1:1');
    expect(secrets).toContain('p%ZZass');
  });

  test('send to such a URL: the receiver is unreachable (exit 3, one line), the password never printed', async () => {
    const run = await runInProcess(['send', '--url', 'http://user:p%ZZass@127.0.0.1:1/', '--secret', 'abcdefgh123'], {});
    expect(run.stderr).not.toContain('internal error');
    expect(run.code, run.stderr).toBe(3);
    expect(run.stdout + run.stderr).not.toContain('p%ZZass');
  });
});
