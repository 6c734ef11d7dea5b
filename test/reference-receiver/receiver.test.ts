import { afterAll, beforeAll, expect, test } from 'vitest';
import { request } from 'undici';
import { receiverFaultCatalogue, startReferenceReceiver, type RunningReceiver } from '../../src/reference-receiver/index.ts';
import { runInProcess } from '../receiver-conformance/in-process.ts';
import { recordHash } from '../../src/deliveries/build.ts';
import { processed, send } from './send.ts';

// What the receiver checks do not look at: the reference receiver's own plumbing (the inspection
// endpoint, methods, sizes, its error answers and options). Its conformance is the matrix's.

const SECRET = 'whsec_unit-test-secret-0123456789';
let receiver: RunningReceiver;
beforeAll(async () => {
  receiver = await startReferenceReceiver({ secret: SECRET });
});
afterAll(() => receiver.close());

test('records are listed once each, in order, and a repeat is acknowledged 200 with an empty body', async () => {
  const records = [{ id: 'a' }, { id: 'b' }];
  const first = await send(receiver.url, { secret: SECRET, records });
  const again = await send(receiver.url, { secret: SECRET, records: [{ id: 'b' }, { id: 'c' }] });
  expect([first, again]).toEqual([{ status: 200, body: '' }, { status: 200, body: '' }]);
  expect(await processed(receiver.inspectUrl)).toEqual(['a', 'b', 'c'].map((id) => recordHash({ id })));
});

test('errors say why in one JSON line and never echo the secret', async () => {
  const wrong = await send(receiver.url, { secret: `${SECRET}x` });
  expect(wrong.status).toBe(401);
  expect(wrong.body).not.toContain(SECRET);
  expect((await send(receiver.url, { secret: SECRET, timestamp: new Date(Date.now() - 3_600_000) })).body).toMatch(/more than 300 s away/);
  expect((await send(receiver.url, { secret: SECRET, rawBody: Buffer.from('{}') }))).toEqual({ status: 400, body: '{"message":"the body is not gzip-compressed"}' });
  expect((await send(receiver.url, { secret: SECRET, headers: { 'Content-Encoding': 'br' } })).status).toBe(400);
});

test('other methods are 405, a body over 16 MiB is 413', async () => {
  expect((await request(receiver.url)).statusCode).toBe(405);
  expect((await request(receiver.inspectUrl, { method: 'DELETE' })).statusCode).toBe(405);
  expect((await send(receiver.url, { secret: SECRET, rawBody: Buffer.alloc(17 * 1024 * 1024) })).status).toBe(413);
});

test('a tolerance of 60 s refuses a stamp 2 minutes old', async () => {
  const strict = await startReferenceReceiver({ secret: SECRET, maxAgeSeconds: 60 });
  try {
    expect((await send(strict.url, { secret: SECRET, timestamp: new Date(Date.now() - 120_000) })).status).toBe(401);
    expect((await send(strict.url, { secret: SECRET, timestamp: new Date(Date.now() - 30_000) })).status).toBe(200);
  } finally {
    await strict.close();
  }
});

test('an unknown fault or variant, or an empty secret, is a usage error naming the known ones', async () => {
  await expect(startReferenceReceiver({ secret: SECRET, fault: 'nope' })).rejects.toThrow(/unknown receiver fault "nope"; known: answers-204/);
  await expect(startReferenceReceiver({ secret: SECRET, variant: 'nope' })).rejects.toThrow(/unknown receiver variant/);
  await expect(startReferenceReceiver({ secret: '' })).rejects.toThrow(/non-empty secret/);
});

test('dss-conformance faults --receiver lists the receiver faults and variants', async () => {
  const json = await runInProcess(['faults', '--receiver', '--json']);
  expect(JSON.parse(json.stdout)).toEqual(receiverFaultCatalogue());
  const text = await runInProcess(['faults', '--receiver'], { NO_COLOR: '1' });
  expect(text.stdout).toMatch(/^accepts-secret-prefix +breaks RCV-002$/m);
  expect(text.stdout).toMatch(/benign variants \(the receiver checks must pass under each\):\nanswers-200-with-body /);
});
