import type { ApiResponse, AuthMode } from '../src/client/http-client.ts';
import { api, apiVersion, connectionBody, profile, redactor, settings, unknownId, Unmet } from '../src/suite/context.ts';
import { expectStatus, fail, is4xx } from '../src/suite/expect.ts';
import { bulkSyncBody, bulkSyncId, cachedSourceId, modelSyncId } from '../src/suite/fixtures.ts';
import { check } from '../src/suite/check.ts';
import { versionLabel, versionsToPair } from '../src/suite/unknown-ids.ts';

// Spec › Authentication 1–3; Endpoints: 'Every endpoint requires authentication'.

interface Probe {
  what: string;
  /** `version`: the X-Service-Version to send (null: none); the run's when undefined. */
  send: (auth: AuthMode, version?: string | null) => Promise<ApiResponse>;
  /**
   * The creation from the profile: only a 2xx shows the operation happened. It names no id, so a
   * 404 or 405 says the operation is not there (a server's "no route", e.g. a base URL that is
   * not the API's), never that an id is unknown.
   */
  creation?: boolean;
}

const NOT_ACCEPTANCE = [401, 403, 407, 429];

/**
 * The answer an authenticated caller gets: to the creation a 2xx; to the listed endpoints a 2xx,
 * or a 4xx that judges the request itself (404 for an unknown id). A 3xx, 401, 403, 407, 429 or
 * 5xx is never acceptance (README › Interpretations: 'accepted').
 */
function accepted(probe: Probe, s: number): boolean {
  if (s >= 200 && s < 300) return true;
  return !probe.creation && s >= 400 && s < 500 && !NOT_ACCEPTANCE.includes(s);
}
const acceptedText = (probe: Probe) => (probe.creation ? '2xx: the connection created' : '2xx, or a 4xx other than 401, 403, 407 and 429');

/**
 * A creation refused for its body (a 4xx that is neither about the key nor "no route") shows
 * neither acceptance nor refusal of the key: the profile's configuration is the target's to judge
 * (the CONN checks do). Such a check is not judged on that probe.
 */
const refusedForItsBody = (probe: Probe, s: number) => probe.creation === true && s >= 400 && s < 500 && ![...NOT_ACCEPTANCE, 404, 405].includes(s);

/** Each probe with the key; fails on an answer that is not acceptance; not judged when the creation only showed a refused body. */
async function judgeKey(mode: AuthMode, label: string): Promise<void> {
  let unshown: string | undefined;
  for (const endpoint of [...(await creation()), ...(await listing403())]) {
    const res = await endpoint.send(mode);
    if (refusedForItsBody(endpoint, res.status)) {
      unshown = `${endpoint.what} with ${label} was answered ${res.status} (the profile's configuration refused), which does not show the key accepted; see the CONN checks`;
      continue;
    }
    if (!accepted(endpoint, res.status)) fail(`${endpoint.what} with ${label}: expected the answer an authenticated caller gets (${acceptedText(endpoint)}), got ${res.status}`, res);
  }
  // The key under every other version value too (Endpoints: every endpoint 'requires
  // authentication ... and accepts the version header'), one probe each in turn.
  for (const { endpoint, version } of await versionWalk()) {
    const res = await endpoint.send(mode, version);
    if (refusedForItsBody(endpoint, res.status)) continue;
    if (!accepted(endpoint, res.status)) fail(`${endpoint.what} with ${label} and ${versionLabel(version)}: expected the answer an authenticated caller gets (${acceptedText(endpoint)}), got ${res.status}`, res);
  }
  if (unshown) throw new Unmet(unshown);
}

/**
 * Each version value other than the run's (the header omitted included), with one probe each
 * in turn: a scheme wired into some versions only (Basic keys taken from a later version on, a
 * legacy router that never checks) shows on a credential × version pair the run's version never
 * reaches. The connection creation goes first: it is the one probe that needs no resource.
 */
async function versionWalk(withCreation = true): Promise<Array<{ endpoint: Probe; version: string | null }>> {
  const creations = withCreation ? (await creation()).filter((p) => p.what.startsWith('POST /api/connections')) : [];
  const probes = [...creations, ...(await listing403())];
  const versions = versionsToPair().filter((v) => v !== apiVersion());
  return probes.length === 0 ? [] : versions.map((version, i) => ({ endpoint: probes[i % probes.length]!, version }));
}

/**
 * The two endpoints whose error responses list 403 (Errors › Status codes per endpoint), on the
 * run's own resources when they exist, else on unknown ids.
 */
async function listing403(): Promise<Probe[]> {
  const bulk = await bulkSyncId().catch(() => undefined);
  const sync = await modelSyncId().catch(() => undefined);
  const bulkId = bulk ?? unknownId('bulk');
  const syncId = sync ?? unknownId('sync');
  const probes: Probe[] = [
    { what: `GET /api/bulk/syncs/{${bulk ? 'id' : 'unknown id'}}/error-handling`, send: (auth, version) => api().get(`/api/bulk/syncs/${encodeURIComponent(bulkId)}/error-handling`, { auth, version }) },
    { what: `PUT /api/syncs/{${sync ? 'id' : 'unknown id'}}/error-handling`, send: (auth, version) => api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, {}, { auth, version }) },
    // Authentication 3 speaks of every request with a missing or insufficient credential, not of
    // well-formed ones only: a target that looks the id up, or validates the body, before the
    // credential answers these 404 or 400 instead, and tells a caller without a key what exists.
    { what: 'PUT /api/syncs/{id}/error-handling with a body of the wrong shape', send: (auth, version) => api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, { subscribers: 'dssc@example.com' }, { auth, version }) },
  ];
  if (bulk) probes.push({ what: 'GET /api/bulk/syncs/{unknown id}/error-handling', send: (auth, version) => api().get(`/api/bulk/syncs/${encodeURIComponent(unknownId('bulk'))}/error-handling`, { auth, version }) });
  if (sync) probes.push({ what: 'PUT /api/syncs/{unknown id}/error-handling', send: (auth, version) => api().put(`/api/syncs/${encodeURIComponent(unknownId('sync'))}/error-handling`, {}, { auth, version }) });
  return probes;
}

/**
 * AUTH-001 and AUTH-002 also judge the one operation a valid key must be able to do whatever the
 * resources: creating a connection from the profile. A 302, 404, 429 or 5xx is not acceptance.
 */
async function creation(): Promise<Probe[]> {
  const out: Probe[] = [];
  const kind = (['relationalDatabase', 'objectStore', 'crm', 'marketing'] as const).find((k) => profile().kinds?.[k]?.configuration);
  if (kind) out.push({ what: `POST /api/connections (${kind})`, send: (auth, version) => api().post('/api/connections', connectionBody(kind), { auth, version }), creation: true });
  // The bulk creation too, once a source is cached (the input space's credential × endpoint): a
  // key table kept per endpoint shows there only.
  const source = await cachedSourceId().catch(() => undefined);
  if (source) out.push({ what: 'POST /api/bulk/syncs', send: async (auth) => api().post('/api/bulk/syncs', await bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore' }), { auth }), creation: true });
  return out;
}

check('AUTH-001 Authorization: Bearer <user API key> is accepted', async () => {
  await judgeKey('bearer', 'the Bearer API key');
});

check('AUTH-002 Authorization: Basic with the organization key, composed as the profile says, is accepted', async (t) => {
  if (!settings().orgKey) t.skip('no organization key was given (--org-key or DSS_ORG_KEY)');
  if (!settings().profile.auth?.basic) t.skip('the Basic composition is not shown and the profile gives no auth.basic');
  await judgeKey('basic', `Basic (${settings().profile.auth?.basic})`);
});

check('AUTH-003 no Authorization header is answered 403 where the spec lists 403', async (t) => {
  for (const endpoint of await listing403()) {
    const res = await endpoint.send('none');
    expectStatus(res, 403, `${endpoint.what} without Authorization`);
  }
  // Under every other version value too: a version whose router skips the check shows only there.
  for (const { endpoint, version } of await versionWalk(false)) {
    const res = await endpoint.send('none', version);
    expectStatus(res, 403, `${endpoint.what} without Authorization, ${versionLabel(version)}`);
  }
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
/** `s` with the character at `i` replaced by another letter or digit, never by itself. */
const changedAt = (s: string, i: number) => s.slice(0, i) + (s[i] === 'x' ? 'y' : 'x') + s.slice(i + 1);
const swapCase = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

/**
 * Credentials that are wrong in each way the spec's 'insufficient' can mean, near misses of the
 * real keys included (the ones a lenient comparison lets through: case-insensitive, prefix,
 * first token only, any scheme); never the real credential itself.
 */
/**
 * Each key under the other scheme (Authentication 1: 'Bearer with a user API key, and Basic with
 * an organization-scoped API key'): the user key in Basic, in either composition (the one the
 * profile names is the organization key's, the other is a near miss anyway), and the organization
 * key as a Bearer token. Neither pairing is a credential the spec lists, so each is 'insufficient'.
 */
function crossScheme(): Array<[string, AuthMode]> {
  const key = settings().apiKey;
  const out: Array<[string, AuthMode]> = [
    ['the user API key under Basic as "<key>:"', { authorization: `Basic ${b64(`${key}:`)}` }],
    ['the user API key under Basic as ":<key>"', { authorization: `Basic ${b64(`:${key}`)}` }],
  ];
  const org = settings().orgKey;
  if (org) out.push(['the organization key under Bearer', { authorization: `Bearer ${org}` }]);
  return out;
}

function wrongCredentials(): Array<[string, AuthMode]> {
  const wrongKey = `dssc-wrong-${settings().runId}`;
  const key = settings().apiKey;
  const out: Array<[string, AuthMode]> = [
    ['a wrong Bearer key', { authorization: `Bearer ${wrongKey}` }],
    ['a wrong Basic credential', { authorization: `Basic ${b64(`${wrongKey}:`)}` }],
    ['an unknown scheme', { authorization: `Token ${wrongKey}` }],
    ['a malformed header', { authorization: 'Bearer' }],
    ['the API key with one character more', { authorization: `Bearer ${key}x` }],
    ['the API key without its last character', { authorization: `Bearer ${key.slice(0, -1)}` }],
    // Of the key's own length: a comparison of a prefix (a key looked up by its first characters)
    // or of a suffix takes one of these, and no key shorter or longer shows it.
    ['the API key with its last character changed', { authorization: `Bearer ${changedAt(key, key.length - 1)}` }],
    ['the API key with its first character changed', { authorization: `Bearer ${changedAt(key, 0)}` }],
    ['the API key followed by another token', { authorization: `Bearer ${key} x` }],
    ['the API key under an unknown scheme', { authorization: `Token ${key}` }],
    // A word before the scheme: a header read by its last two words takes it.
    ['a word before "Bearer <API key>"', { authorization: `Token Bearer ${key}` }],
    ['the API key as a Basic credential without base64', { authorization: `Basic ${key}` }],
    ['an empty Basic credential', { authorization: `Basic ${b64(':')}` }],
  ];
  if (swapCase(key) !== key) out.push(['the API key with its case changed', { authorization: `Bearer ${swapCase(key)}` }]);
  out.push(['an empty Bearer credential', { authorization: 'Bearer ' }], ...crossScheme());
  const org = settings().orgKey;
  const basic = profile().auth?.basic;
  if (org && basic) {
    const composed = (k: string) => `Basic ${b64(basic === 'key-as-username' ? `${k}:` : `:${k}`)}`;
    const wrongPlace = basic === 'key-as-username' ? `:${org}` : `${org}:`;
    out.push(
      ['the organization key in the other place of the Basic composition', { authorization: `Basic ${b64(wrongPlace)}` }],
      ['the organization key in Basic without the colon', { authorization: `Basic ${b64(org)}` }],
      ['the organization key with one character more in Basic', { authorization: composed(`${org}x`) }],
      ['the organization key without its last character in Basic', { authorization: composed(org.slice(0, -1)) }],
      ['the organization key with its last character changed in Basic', { authorization: composed(changedAt(org, org.length - 1)) }],
      // The right Basic credential, but not under the Basic scheme: any other scheme word read as Basic takes it.
      ['the Basic-composed organization key under an unknown scheme', { authorization: composed(org).replace(/^Basic/, 'Token') }],
      ['a word before the organization key\'s Basic credential', { authorization: `X ${composed(org)}` }],
    );
    if (swapCase(org) !== org) out.push(['the organization key with its case changed in Basic', { authorization: composed(swapCase(org)) }]);
  }
  // Near misses are nearly the secret: each is redacted from every output like the key itself.
  for (const [, auth] of out) {
    // The credential is the last word: with a word before the scheme ('Token Bearer <key>') the rest
    // would be 'Bearer <key>', and redacting that whole would hide the scheme in every later exchange.
    const value = typeof auth === 'object' ? (auth.authorization.split(' ').at(-1) ?? '') : '';
    if (value.length >= 8) redactor().add(value);
  }
  return out;
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
  if (source) requests.push(['/api/bulk/syncs', () => bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore' })]);
  if (requests.length === 0) t.skip('no valid request could be built: the profile gives no relational database configuration and no source became ready');
  // Every wrong credential of AUTH-004: a lenient key comparison (or a key table shared by
  // both schemes) shows on every endpoint, not only on those that list 403.
  const cases: Array<[string, AuthMode]> = [['no Authorization', 'none'], ...wrongCredentials()];
  for (const [path, body] of requests) {
    for (const [label, auth] of cases) {
      const res = await api().post(path, await body(), { auth });
      if (!is4xx(res.status)) fail(`POST ${path} with a valid body and ${label} was answered ${res.status}; every endpoint requires authentication`, res);
    }
  }
});
