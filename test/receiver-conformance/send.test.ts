import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceReceiver, type RunningReceiver } from '../../src/reference-receiver/index.ts';
import { runInProcess } from './in-process.ts';

// `dss-conformance send`, the tool a receiver's developer runs while writing it, against the
// reference receiver.

const SECRET = 'send-test-secret-0123456789';

async function processed(r: RunningReceiver): Promise<string[]> {
  return ((await (await fetch(r.inspectUrl)).json()) as { processed: string[] }).processed;
}

describe('dss-conformance send', () => {
  let receiver: RunningReceiver;
  beforeAll(async () => {
    receiver = await startReferenceReceiver({ secret: SECRET });
  });
  afterAll(() => receiver.close());

  test('sends the records in batches and prints each answer: status, time, the start of its body', async () => {
    const run = await runInProcess(['send', '--url', receiver.url, '--secret', SECRET, '--records', '5', '--batch-size', '2', '--metadata', 'team=growth', '--metadata', 'region=eu=1']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe(`dss-conformance: sending 5 records in 3 deliveries to ${receiver.url}`);
    expect(lines.slice(1).map((l) => l.replace(/\d+ bytes/, 'N bytes').replace(/in \d+ ms/, 'in T ms'))).toEqual([
      '#1 2 records, N bytes gzip -> 200 in T ms (empty body)',
      '#2 2 records, N bytes gzip -> 200 in T ms (empty body)',
      '#3 1 records, N bytes gzip -> 200 in T ms (empty body)',
    ]);
    expect(await processed(receiver)).toHaveLength(5);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });

  test('a wrong secret: the answer is printed, exit 1; the secret from the environment', async () => {
    const run = await runInProcess(['send', '--url', receiver.url], { DSSC_RECEIVER_SECRET: 'not-the-secret-0123' });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/#1 3 records, \d+ bytes gzip -> 401 in \d+ ms/);
  });

  test('another event type', async () => {
    const run = await runInProcess(['send', '--url', receiver.url, '--secret', SECRET, '--event', 'sync.other', '--records', '1']);
    expect(run.stdout).toMatch(/#1 1 records, .* -> (200|400) in \d+ ms/);
  });

  test.each([
    [[], /send needs --url/],
    [['--url', 'http://127.0.0.1:9'], /send needs --secret \(or DSSC_RECEIVER_SECRET\)/],
    [['--url', 'http://127.0.0.1:9', '--secret', 's', '--records', '0'], /--records must be between 1 and 1000000, got 0/],
    [['--url', 'http://127.0.0.1:9', '--secret', 's', '--metadata', 'novalue'], /--metadata must be KEY=VALUE, got "novalue"/],
    [['--url', 'http://127.0.0.1:9', '--secret', 's', '--batch'], /unknown flag --batch \(did you mean --batch-size\?/],
  ])('bad flags %j: exit 2, one line', async (args, message) => {
    const run = await runInProcess(['send', ...args], { DSSC_RECEIVER_SECRET: undefined });
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  test('an unreachable receiver: exit 3, one line', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise((r) => server.close(r));
    const run = await runInProcess(['send', '--url', `http://127.0.0.1:${port}/`, '--secret', SECRET]);
    expect(run.code).toBe(3);
    expect(run.stderr.trim()).toBe(`dss-conformance: delivery #1: the receiver at http://127.0.0.1:${port}/: connection refused`);
  });
});
