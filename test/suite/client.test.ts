import { createServer } from 'node:net';
import nock from 'nock';
import { afterEach, describe, expect, test } from 'vitest';
import { formatExchange } from '../../src/client/format.ts';
import { ApiClient, TransportError } from '../../src/client/http-client.ts';
import { Redactor } from '../../src/report/redact.ts';

const redactor = new Redactor(['api-key-123456', 'org-key-123456']);
const client = (baseUrl = 'http://dssc.test', timeoutMs = 2000) =>
  new ApiClient({ baseUrl, apiKey: 'api-key-123456', orgKey: 'org-key-123456', version: '2025-09-18', timeoutMs, redactor });

afterEach(() => nock.cleanAll());

describe('ApiClient', () => {
  test('sends the version header, Bearer by default, Basic with the org key as user name', async () => {
    const bearer = nock('http://dssc.test').matchHeader('authorization', 'Bearer api-key-123456').matchHeader('x-service-version', '2025-09-18').get('/api/x').reply(200, {});
    const basic = nock('http://dssc.test', { badheaders: ['x-service-version'] })
      .matchHeader('authorization', `Basic ${Buffer.from('org-key-123456:').toString('base64')}`)
      .get('/api/y')
      .reply(200, {});
    expect((await client().get('/api/x')).status).toBe(200);
    expect((await client().get('/api/y', { auth: 'basic', version: null })).status).toBe(200);
    expect(bearer.isDone() && basic.isDone()).toBe(true);
  });

  test('honours Retry-After on 429, then returns the answer', async () => {
    nock('http://dssc.test').get('/api/x').reply(429, {}, { 'retry-after': '0' }).get('/api/x').reply(200, { data: { ok: true } });
    const res = await client().get('/api/x');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { ok: true } });
  });

  test('keeps a body that is not JSON as text, with json undefined', async () => {
    nock('http://dssc.test').get('/api/x').reply(502, '<html>bad gateway</html>', { 'content-type': 'text/html' });
    const res = await client().get('/api/x');
    expect(res.status).toBe(502);
    expect(res.json).toBeUndefined();
    expect(res.text).toContain('bad gateway');
  });

  test('a refused connection is a TransportError saying so', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    await new Promise((r) => server.close(r));
    nock.enableNetConnect('127.0.0.1');
    const error = await client(`http://127.0.0.1:${port}`).get('/api/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect((error as Error).message).toContain('connection refused');
  });

  test('a target that does not answer in time is a TransportError naming the timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as { port: number };
    nock.enableNetConnect('127.0.0.1');
    try {
      const error = await client(`http://127.0.0.1:${port}`, 100).get('/api/x').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TransportError);
      expect((error as Error).message).toContain('no answer within 100 ms');
    } finally {
      silent.close();
    }
  });

  test('an exchange as failure messages show it never holds a key', async () => {
    nock('http://dssc.test').post('/api/connections').reply(400, { key: 'validation_error', echoed: 'api-key-123456' });
    const res = await client().post('/api/connections', { configuration: { password: 'p4ssw0rd!' } }, { auth: 'basic' });
    const text = formatExchange(res.exchange, redactor);
    expect(text).not.toContain('api-key-123456');
    expect(text).not.toContain(Buffer.from('org-key-123456:').toString('base64'));
    expect(text).not.toContain('p4ssw0rd!');
    expect(text).toContain('< 400');
  });
});
