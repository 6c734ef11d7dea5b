import type { AuthMode } from '../src/client/http-client.ts';
import { api, connectionBody, profile, settings, unknownId } from '../src/suite/context.ts';
import { expectStatus, fail, is4xx } from '../src/suite/expect.ts';
import { bulkSyncBody, bulkSyncId, cachedSourceId, modelSyncId } from '../src/suite/fixtures.ts';
import { check } from '../src/suite/check.ts';

// Spec › Authentication 1–3; Endpoints: 'Every endpoint requires authentication'.

/** The two endpoints whose error responses list 403 (Errors › Status codes per endpoint). */
async function listing403() {
  const bulk = await bulkSyncId().catch(() => unknownId('bulk'));
  const sync = await modelSyncId().catch(() => unknownId('sync'));
  return [
    { what: 'GET /api/bulk/syncs/{id}/error-handling', send: (auth: AuthMode) => api().get(`/api/bulk/syncs/${encodeURIComponent(bulk)}/error-handling`, { auth }) },
    { what: 'PUT /api/syncs/{id}/error-handling', send: (auth: AuthMode) => api().put(`/api/syncs/${encodeURIComponent(sync)}/error-handling`, {}, { auth }) },
  ];
}

const accepted = (s: number) => s !== 401 && s !== 403;

check('AUTH-001 Authorization: Bearer <user API key> is accepted', async (t) => {
  for (const endpoint of await listing403()) {
    const res = await endpoint.send('bearer');
    expectStatus(res, accepted, `${endpoint.what} with the Bearer API key`);
  }
});

check('AUTH-002 Authorization: Basic with the organization key, composed as the profile says, is accepted', async (t) => {
  if (!settings().orgKey) t.skip('no organization key was given (--org-key or DSS_ORG_KEY)');
  if (!settings().profile.auth?.basic) t.skip('the Basic composition is not shown and the profile gives no auth.basic');
  for (const endpoint of await listing403()) {
    const res = await endpoint.send('basic');
    expectStatus(res, accepted, `${endpoint.what} with Basic (${settings().profile.auth?.basic})`);
  }
});

check('AUTH-003 no Authorization header is answered 403 where the spec lists 403', async (t) => {
  for (const endpoint of await listing403()) {
    const res = await endpoint.send('none');
    expectStatus(res, 403, `${endpoint.what} without Authorization`);
  }
});

/** Credentials that are wrong in each way the spec's 'insufficient' can mean; never the real key. */
function wrongCredentials(): Array<[string, AuthMode]> {
  const wrongKey = `dssc-wrong-${settings().runId}`;
  return [
    ['a wrong Bearer key', { authorization: `Bearer ${wrongKey}` }],
    ['a wrong Basic credential', { authorization: `Basic ${Buffer.from(`${wrongKey}:`).toString('base64')}` }],
    ['an unknown scheme', { authorization: `Token ${wrongKey}` }],
    ['a malformed header', { authorization: 'Bearer' }],
  ];
}

check('AUTH-004 a wrong or malformed credential is answered 403 where the spec lists 403', async (t) => {
  for (const endpoint of await listing403()) {
    for (const [label, auth] of wrongCredentials()) {
      const res = await endpoint.send(auth);
      expectStatus(res, 403, `${endpoint.what} with ${label}`);
    }
  }
});

check('AUTH-005 endpoints that do not list 403 still refuse a missing or wrong credential (4xx)', async (t) => {
  // Valid bodies, so that only the credential can be the reason for a refusal.
  const requests: Array<[string, () => Promise<Record<string, unknown>>]> = [];
  if (profile().kinds?.relationalDatabase?.configuration) requests.push(['/api/connections', async () => connectionBody('relationalDatabase')]);
  const source = await cachedSourceId().catch(() => undefined);
  if (source) requests.push(['/api/bulk/syncs', () => bulkSyncBody(source, { version: '2025-09-18', destination: 'objectStore' })]);
  if (requests.length === 0) t.skip('no valid request could be built: the profile gives no relational database configuration and no source became ready');
  const cases: Array<[string, AuthMode]> = [['no Authorization', 'none'], ...wrongCredentials().slice(0, 1)];
  for (const [path, body] of requests) {
    for (const [label, auth] of cases) {
      const res = await api().post(path, await body(), { auth });
      if (!is4xx(res.status)) fail(`POST ${path} with a valid body and ${label} was answered ${res.status}; every endpoint requires authentication`, res);
    }
  }
});
