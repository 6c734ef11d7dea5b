import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startFixtureReceiver, type FixtureReceiver } from './fixture-receiver.ts';
import { everyOutput, runInProcess, type InProcessRun } from './in-process.ts';

// The receiver's secret never appears in any output, in any encoding: a hostile receiver answers
// every delivery with its Authorization header (raw, base64, hex, URL-encoded, JSON-escaped) and
// the request's headers and body, and the checks quote those answers in their evidence.

const SECRETS = ['q"uo\\te-Secret-0123', 'pl41n-secret-with-no-quotes-xyz'];

/** Every encoding a leaked secret could take in an output. */
function encodings(secret: string): string[] {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const json = (s: string) => JSON.stringify(s).slice(1, -1);
  return [
    secret, b64(secret), b64(`${secret}:`), b64(`:${secret}`), Buffer.from(secret).toString('base64url'), Buffer.from(secret).toString('hex'),
    encodeURIComponent(secret), json(secret), json(json(secret)), json(json(json(secret))),
    secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  ];
}

function expectNoSecret(run: InProcessRun, secret: string): void {
  for (const [file, text] of everyOutput(run)) {
    for (const form of encodings(secret)) expect(text.includes(form), `${file} holds the secret (${JSON.stringify(form.slice(0, 6))}…)`).toBe(false);
  }
}

describe.each(SECRETS)('the secret %j', (secret) => {
  let echo: FixtureReceiver;
  beforeAll(async () => {
    echo = await startFixtureReceiver(secret, 'echo');
  });
  afterAll(() => echo.close());

  test('receiver: in no report, console line or error, whatever the receiver echoes', async () => {
    const run = await runInProcess(['receiver', '--url', echo.url, '--secret', secret, '--inspect-url', echo.inspectUrl, '--seed', '7', '--num-runs', '3', '--max-rps', '1000']);
    expect(run.code, run.stderr).toBe(1);
    // The evidence quotes the echo, redacted: the check still says what came back.
    expect(run.stdout).toMatch(/answered 401 .*\[REDACTED\]/);
    expect(run.stdout).toContain('--secret "$DSSC_RECEIVER_SECRET"');
    expectNoSecret(run, secret);
  });

  test('receiver: the secret from the environment and from a profile variable', async () => {
    const fromEnv = await runInProcess(['receiver', '--url', echo.url, '--seed', '7', '--num-runs', '2', '--max-rps', '1000', '--only', 'RCV-001,RCV-008'], { DSSC_RECEIVER_SECRET: secret });
    expect(fromEnv.code).toBe(1);
    expectNoSecret(fromEnv, secret);
    const profile = join(mkdtempSync(join(tmpdir(), 'dssc-rcv-secret-')), 'receiver.json');
    writeFileSync(profile, JSON.stringify({ url: echo.url, secret: { $env: 'HOOK_SECRET_FOR_TEST' } }));
    const fromProfile = await runInProcess(['receiver', '--profile', profile, '--seed', '7', '--num-runs', '2', '--max-rps', '1000', '--only', 'RCV-001'], { HOOK_SECRET_FOR_TEST: secret });
    expect(fromProfile.code).toBe(1);
    expectNoSecret(fromProfile, secret);
  });

  test('receiver: the secret from a --config file ({"$env": NAME}), with the url from DSS_RECEIVER_URL; one written in the file is refused unquoted', async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'dssc-rcv-config-')), 'receiver.json');
    writeFileSync(config, JSON.stringify({ secret: { $env: 'HOOK_SECRET_FOR_CONFIG' }, 'inspect-url': echo.inspectUrl, seed: 7, 'num-runs': 2, 'max-rps': 1000 }));
    const run = await runInProcess(['receiver', '--config', config, '--only', 'RCV-001,RCV-008'], { HOOK_SECRET_FOR_CONFIG: secret, DSS_RECEIVER_URL: echo.url });
    expect(run.code, run.stderr).toBe(1);
    // The replay line names the variable the file named, never the value.
    expect(run.stdout).toContain(`--url ${echo.url} --secret "$HOOK_SECRET_FOR_CONFIG"`);
    expectNoSecret(run, secret);
    const written = join(mkdtempSync(join(tmpdir(), 'dssc-rcv-config-')), 'receiver.json');
    writeFileSync(written, JSON.stringify({ url: echo.url, secret }));
    const refused = await runInProcess(['receiver', '--config', written]);
    expect(refused.code).toBe(2);
    expectNoSecret(refused, secret);
  });

  test('send: the answers it prints are redacted', async () => {
    const run = await runInProcess(['send', '--url', echo.url, '--secret', secret, '--records', '2']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/-> 401 in \d+ ms .*\[REDACTED\]/);
    expectNoSecret(run, secret);
  });

  test('an error line that quotes the secret is redacted too (a bad --url with it as userinfo)', async () => {
    const run = await runInProcess(['receiver', '--url', `localhost:1/${encodeURIComponent(secret)}`, '--secret', secret]);
    expect(run.code).toBe(2);
    expectNoSecret(run, secret);
  });
});

test('the reference receiver given a secret: never printed', async () => {
  const secret = SECRETS[0]!;
  const run = await runInProcess(['receiver', '--secret', secret, '--fault', 'accepts-any-secret', '--seed', '7', '--num-runs', '3']);
  expect(run.code).toBe(1);
  expectNoSecret(run, secret);
});
