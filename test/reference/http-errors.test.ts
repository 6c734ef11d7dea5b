import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { call, createModelSync, expectError, start } from './helpers.ts';

let ref: RunningReference;
let small: RunningReference;
let model: string;

beforeAll(async () => {
  [ref, small] = await Promise.all([start(), start({ bodyLimitBytes: 1024 })]);
  model = await createModelSync(ref);
});
afterAll(() => Promise.all([ref.close(), small.close()]));

// Every route that takes a body, and what it expects.
const bodyRoutes = () => [
  { method: 'POST', path: '/api/connections' },
  { method: 'POST', path: '/api/bulk/syncs' },
  { method: 'POST', path: '/api/syncs' },
  { method: 'PUT', path: `/api/syncs/${model}/error-handling` },
  { method: 'PUT', path: '/api/bulk/syncs/x/error-handling' },
];

describe('error answers are always JSON of the error shape', () => {
  test('an unknown route is 404 not_found', async () => {
    expectError(await call(ref, 'GET', '/api/nothing'), 404, 'not_found');
    expectError(await call(ref, 'DELETE', '/api/connections'), 404, 'not_found');
    expectError(await call(ref, 'GET', '/'), 404, 'not_found');
  });

  test('a malformed URL is 400 bad_request', async () => {
    expectError(await call(ref, 'GET', '/api/%E0%A4%A'), 400, 'bad_request');
  });

  test.each([
    ['malformed JSON', '{"name": ', 'invalid_json'],
    ['an empty body labelled JSON', '', 'invalid_json'],
    ['a prototype-poisoning body', '{"__proto__": {"x": 1}}', 'invalid_json'],
  ])('%s is 400 %s on every body route', async (_label, raw, key) => {
    for (const { method, path } of bodyRoutes()) {
      expectError(await call(ref, method, path, { raw, headers: { 'content-type': 'application/json' } }), 400, key);
    }
  });

  test.each([
    ['a JSON array', [1, 2]],
    ['a JSON string', 'text'],
    ['JSON null', null],
    ['a JSON number', 42],
  ])('%s where an object is expected is 400 validation_error on the whole body', async (_label, body) => {
    for (const { method, path } of bodyRoutes()) {
      const answer = await call(ref, method, path, { raw: JSON.stringify(body) });
      expectError(answer, 400, 'validation_error');
      expect(answer.json.metadata).toEqual({ field: '' });
      expect(answer.json.message).toBe('request body must be object');
    }
  });

  test.each([
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'a=1'],
    ['application/xml', '<a/>'],
  ])('a body sent as %s is 415 unsupported_media_type', async (type, raw) => {
    for (const { method, path } of bodyRoutes()) {
      expectError(await call(ref, method, path, { raw, headers: { 'content-type': type } }), 415, 'unsupported_media_type');
    }
  });

  test('a body with an empty Content-Type is 415 unsupported_media_type', async () => {
    const answer = await call(ref, 'POST', '/api/connections', { raw: '{}', headers: { 'content-type': '' } });
    expectError(answer, 415, 'unsupported_media_type');
  });

  test('application/json with a charset parameter is JSON', async () => {
    const answer = await call(ref, 'PUT', `/api/syncs/${model}/error-handling`, { raw: '{}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(answer.status).toBe(200);
  });

  test('a body over the limit is 400 body_too_large', async () => {
    const raw = JSON.stringify({ name: 'x'.repeat(2048), type: 'hubspot', configuration: {} });
    expectError(await call(small, 'POST', '/api/connections', { raw }), 400, 'body_too_large');
    expect(small.store.connections.size).toBe(0);
  });

  test('a body over the default 1 MiB limit is 400 body_too_large', async () => {
    const raw = JSON.stringify({ name: 'x'.repeat(1024 * 1024), type: 'hubspot', configuration: {} });
    expectError(await call(ref, 'POST', '/api/connections', { raw }), 400, 'body_too_large');
  });

  test('a GET ignores the Content-Type', async () => {
    const answer = await call(ref, 'GET', `/api/syncs/${model}/error-handling`, { headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(200);
  });
});
