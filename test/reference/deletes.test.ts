import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { call, CONFIGURATIONS, expectError, start } from './helpers.ts';

// The real service's deletes and lists, which the kit uses to leave nothing behind: each kind
// deletes with 204, answers 404 for an id it does not have (again, or never), and lists what it
// holds with when each was made.

let ref: RunningReference;
beforeAll(async () => {
  ref = await start();
});
afterAll(() => ref.close());

describe('deletes and lists', () => {
  test('a connection is listed with its creation time, deleted once (204), then unknown (404)', async () => {
    const made = await call(ref, 'POST', '/api/connections', { body: { name: 'dssc-0000abcd-hook-1', type: 'webhook', configuration: { url: 'https://x.invalid/h' } } });
    expect(made.status).toBe(200);
    const id = made.json.data.id as string;
    const listed = await call(ref, 'GET', '/api/connections');
    expect(listed.status).toBe(200);
    const item = (listed.json.data as Array<{ id: string; name: string; created_at: string }>).find((c) => c.id === id);
    expect(item?.name).toBe('dssc-0000abcd-hook-1');
    expect(Date.parse(item!.created_at)).not.toBeNaN();
    expect((await call(ref, 'DELETE', `/api/connections/${id}`)).status).toBe(204);
    expectError(await call(ref, 'DELETE', `/api/connections/${id}`), 404, 'not_found');
    expect((await call(ref, 'GET', `/api/connections/${id}`)).status).toBe(404);
    expect(((await call(ref, 'GET', '/api/connections')).json.data as Array<{ id: string }>).some((c) => c.id === id)).toBe(false);
  });

  test('every kind answers its list, and 404 to a delete of an id it does not have', async () => {
    for (const path of ['/api/connections', '/api/models', '/api/syncs', '/api/bulk/syncs']) {
      expect(Array.isArray((await call(ref, 'GET', path)).json.data)).toBe(true);
      expectError(await call(ref, 'DELETE', `${path}/dssc-missing`), 404, 'not_found');
    }
  });

  test('deletes need the credential, as every endpoint', async () => {
    const made = await call(ref, 'POST', '/api/connections', { body: { name: 'n', type: 's3', configuration: CONFIGURATIONS.s3 } });
    const id = made.json.data.id as string;
    expect((await call(ref, 'DELETE', `/api/connections/${id}`, { auth: null })).status).toBe(403);
    expect((await call(ref, 'GET', '/api/connections', { auth: null })).status).toBe(403);
    expect((await call(ref, 'DELETE', `/api/connections/${id}`)).status).toBe(204);
  });
});
