import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startFixtureReceiver } from './fixture-receiver.ts';
import { runInProcess } from './in-process.ts';

// Bad flags, an unreachable receiver, one that hangs and one that answers garbage: each is one
// line on stderr with its documented exit code, never a stack trace.

const oneLine = (stderr: string) => {
  expect(stderr.trim().split('\n'), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr).toMatch(/^dss-conformance: /);
};

function profile(json: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dssc-rcv-bad-')), 'receiver.json');
  writeFileSync(file, JSON.stringify(json));
  return file;
}

describe('receiver: bad flags are exit 2, one line', () => {
  test.each([
    [['--urll', 'http://x'], /unknown flag --urll \(did you mean --url\?/],
    [['--url', 'localhost:8080', '--secret', 's'], /--url needs a scheme: http:\/\/localhost:8080 or https:\/\/localhost:8080/],
    [['--url', 'http://127.0.0.1:9'], /--secret \(or DSSC_RECEIVER_SECRET, or the profile's secret\) is required with --url/],
    [['--url', 'http://127.0.0.1:9', '--secret', 's', '--fault', 'accepts-any-secret'], /--fault applies to the reference receiver only/],
    [['--fault', 'accepts-any-secrets'], /unknown receiver fault 'accepts-any-secrets' \(did you mean accepts-any-secret\?/],
    [['--variant', 'nope'], /unknown receiver variant 'nope'/],
    [['--seed', '-1'], /--seed must be a number of at least 0, got -1/],
    [['--response-timeout-ms', 'soon'], /--response-timeout-ms must be an integer, got "soon"/],
    [['--only', 'RCV-999'], /--only: unknown requirement ID RCV-999/],
    [['--inspect-url', 'http://127.0.0.1:9/x'], /--inspect-url goes with --url/],
    [['--secret', ''], /--secret is empty/],
    [['--url', 'http://127.0.0.1:9', '--secret', 'line\nbreak'], /--secret holds a control character or one an HTTP header cannot carry/],
  ])('%j', async (args, message) => {
    const run = await runInProcess(['receiver', ...args], { DSSC_RECEIVER_SECRET: undefined });
    expect(run.code, run.stdout + run.stderr).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toMatch(message);
  });

  test.each([
    [{ url: 'http://127.0.0.1:9', secret: 'literal' }, /secret must be \{"\$env": "VARIABLE"\}, not a literal value/],
    [{ url: 'http://127.0.0.1:9', secret: { $env: 'DSSC_TEST_UNSET_VARIABLE' } }, /secret names the variable DSSC_TEST_UNSET_VARIABLE, which is not set/],
    [{ url: 'http://127.0.0.1:9', maxAgeSecond: 60 }, /unknown key 'maxAgeSecond' \(did you mean maxAgeSeconds\?/],
    [{ responseTimeoutMs: -5 }, /responseTimeoutMs must be an integer between 1 and 600000/],
  ])('profile %j', async (json, message) => {
    const run = await runInProcess(['receiver', '--profile', profile(json)]);
    expect(run.code).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain('literal"');
  });
});

describe('receiver: a receiver that cannot be judged is exit 3, one line, and the reports say why', () => {
  test('nothing listens', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    const run = await runInProcess(['receiver', '--url', `http://127.0.0.1:${port}/hook`, '--secret', 's3cret-value']);
    expect(run.code).toBe(3);
    oneLine(run.stderr);
    expect(run.stderr).toContain(`the receiver at http://127.0.0.1:${port}/hook refused the connection: is it listening?`);
    expect(run.result?.aborted?.exitCode).toBe(3);
  });

  test('it hangs: no answer within three times the response bound', async () => {
    const hanging = await startFixtureReceiver('s3cret-value', 'hang');
    try {
      const run = await runInProcess(['receiver', '--url', hanging.url, '--secret', 's3cret-value', '--response-timeout-ms', '100']);
      expect(run.code).toBe(3);
      oneLine(run.stderr);
      expect(run.stderr).toMatch(/gave no answer within 300 ms \(3x --response-timeout-ms\)/);
    } finally {
      await hanging.close();
    }
  });

  test('it answers garbage, not HTTP', async () => {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.end('this is not HTTP at all\r\n\r\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const run = await runInProcess(['receiver', '--url', `http://127.0.0.1:${port}/`, '--secret', 's3cret-value']);
      expect(run.code).toBe(3);
      oneLine(run.stderr);
      expect(run.stderr).toMatch(/answered something that is not HTTP/);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
