import { api, apiVersion, connectionBody, need, once, profile, unknownId, Unmet } from '../src/suite/context.ts';
import { values } from '../src/generators/input-space.ts';
import type { KindName } from '../src/profile/profile.ts';
import { expectEveryCase, expectStatus, is2xx, is4xx } from '../src/suite/expect.ts';
import { bulkSyncBody, bulkSyncId, cachedSourceId, modelSyncId, otherSpelling, spellingFor } from '../src/suite/fixtures.ts';
import { check } from '../src/suite/check.ts';
import { walked } from '../src/suite/input-space-record.ts';
import type { ApiResponse } from '../src/client/http-client.ts';

// Spec › Versioning; Resources › Bulk sync (destination_configuration / dest_configuration).

/** The known versions of the input-space model; '<absent>' (no header) is VER-005's. */
const VERSIONS = values('version').filter((v): v is string => typeof v === 'string' && v !== '<absent>');
const KINDS = values<KindName>('kind');

/** A connection of the kind created under the run's own version: a refusal there is CONN-001's, not a version's. */
const underRunVersion = (kind: KindName) => once(`ver-baseline:${kind}`, () => api().post('/api/connections', connectionBody(kind)));

/** Connection creation of every kind the profile configures, under `version`: accepted wherever the run's version accepts it. */
async function connectionsUnder(version: string): Promise<void> {
  for (const kind of KINDS) {
    if (!profile().kinds?.[kind]?.configuration) continue;
    // A body the run cannot build (a template naming a source database it has none of) is CONN-001's to report.
    const baseline = await underRunVersion(kind).catch((error: unknown) => (error instanceof Unmet ? undefined : Promise.reject(error)));
    if (!baseline || !is2xx(baseline.status)) continue;
    const res = await api().post('/api/connections', connectionBody(kind), { version });
    expectStatus(res, is2xx, `POST /api/connections for a ${kind} connection with X-Service-Version ${version} (accepted under ${apiVersion()})`);
  }
}

for (const version of VERSIONS) {
  check(`VER-001 (${version}) the version is accepted on every endpoint`, async () => {
    // Without the run's own resources, an unknown id's 404 shows the version got past version handling.
    const bulk = await bulkSyncId().catch(() => undefined);
    const read = await api().get(`/api/bulk/syncs/${encodeURIComponent(bulk ?? unknownId('bulk'))}/error-handling`, { version });
    expectStatus(read, bulk ? 200 : 404, `GET ${bulk ? 'a bulk sync\'s' : 'an unknown bulk sync\'s'} error handling with X-Service-Version ${version}`);
    // A version may be wired into the reads only: a write is asked too.
    const sync = await modelSyncId().catch(() => undefined);
    const write = await api().put(`/api/syncs/${encodeURIComponent(sync ?? unknownId('sync'))}/error-handling`, { warning_notifications: true }, { version });
    expectStatus(write, sync ? 200 : 404, `PUT ${sync ? 'a model sync\'s' : 'an unknown model sync\'s'} error handling with X-Service-Version ${version}`);
    // Version × kind, every pair (two dimensions: all-pairs is the product). Bulk sync creation under
    // each version is VER-002, VER-003 and VER-006, for both destination kinds.
    await connectionsUnder(version);
  });
}

// Both destination kinds: a target that reads the spelling right for one destination only is seen.
// The kind is recorded with walked(): the request log shows only the destination's id.
const DESTINATIONS = ['objectStore', 'relationalDatabase'] as const;

for (const version of ['2025-09-18', '2024-02-08', '2023-04-25'] as const) for (const destination of DESTINATIONS) {
  check(`VER-002 (${version}, ${destination}) a bulk sync with destination_configuration is accepted`, async (t) => {
    const source = await need(t, 'a source with cached schemas', cachedSourceId);
    const body = await need(t, `a ${destination} destination`, () => bulkSyncBody(source, { version, destination, spelling: 'destination_configuration' }));
    const res = await api().post('/api/bulk/syncs', body, { version });
    expectStatus(res, is2xx, `POST /api/bulk/syncs under ${version} with destination_configuration for a ${destination} destination`);
    walked('POST /api/bulk/syncs', { version, kind: destination });
  });
}

const HEADER_SPELLINGS = ['lowercase', 'spec'] as const;

for (const destination of DESTINATIONS) {
  check(`VER-003 (2022-12-12, ${destination}) a bulk sync with dest_configuration is accepted`, async (t) => {
    const source = await need(t, 'a source with cached schemas', cachedSourceId);
    // Header names in lower case and as the spec writes them (X-Service-Version): a target that
    // reads the version from one spelling only serves the other as if the header were absent.
    for (const headerSpelling of HEADER_SPELLINGS) {
      const body = await need(t, `a ${destination} destination`, () => bulkSyncBody(source, { version: '2022-12-12', destination, spelling: 'dest_configuration' }));
      const res = await api().post('/api/bulk/syncs', body, { version: '2022-12-12', headerSpelling });
      expectStatus(res, is2xx, `POST /api/bulk/syncs under 2022-12-12 (header names ${headerSpelling === 'spec' ? 'as the spec writes them' : 'in lower case'}) with dest_configuration for a ${destination} destination`);
      walked('POST /api/bulk/syncs', { version: '2022-12-12', kind: destination, 'header-spelling': headerSpelling });
    }
  });
}

// Every version, both destination kinds: a target that checks the spelling under some versions
// only, or for one destination only, is seen. A kind the profile gives destinationSettings for is
// taken as needing them (README › Interpretations).
for (const version of VERSIONS) for (const destination of DESTINATIONS) {
  check(`VER-004 (${version}, ${destination}) the other version's spelling alone is not taken silently`, async (t) => {
    const right = spellingFor(version);
    const wrong = otherSpelling(right);
    const source = await need(t, 'a source with cached schemas', cachedSourceId);
    const body = await need(t, 'a destination that needs settings', () => bulkSyncBody(source, { version, destination, spelling: wrong }));
    const res = await api().post('/api/bulk/syncs', body, { version });
    expectStatus(res, is4xx, `POST /api/bulk/syncs under ${version} spelled ${wrong} (the version spells it ${right})`);
  });
}

for (const destination of DESTINATIONS) {
  check(`VER-005 (${destination}) without X-Service-Version the profile's default version is served`, async (t) => {
    const version = profile().versions?.default;
    if (!version) t.skip('what the service does when the header is omitted is not shown, and the profile gives no versions.default');
    const spelling = await need(t, `the spelling of ${version}`, async () => spellingFor(version!));
    const source = await need(t, 'a source with cached schemas', cachedSourceId);
    const body = await need(t, `a ${destination} destination`, () => bulkSyncBody(source, { version: version!, destination, spelling }));
    const res = await api().post('/api/bulk/syncs', body, { version: null });
    expectStatus(res, is2xx, `POST /api/bulk/syncs without X-Service-Version to a ${destination} destination, spelled as ${version} spells it (${spelling})`);
    walked('POST /api/bulk/syncs', { version: '<absent>', kind: destination });
  });
}

check('VER-005 without X-Service-Version every other endpoint answers as under the default version', async (t) => {
  const version = profile().versions?.default;
  if (!version) t.skip('what the service does when the header is omitted is not shown, and the profile gives no versions.default');
  // The same request under the default version, then without the header: both a 2xx (the spec shows
  // no creation status), or the same status.
  const same = async (what: string, send: (v: string | null) => Promise<ApiResponse>) => {
    const under = await send(version!);
    const without = await send(null);
    expectStatus(without, (s) => s === under.status || (is2xx(s) && is2xx(under.status)), `${what} without X-Service-Version (answered ${under.status} under ${version})`);
  };
  const bulk = await bulkSyncId().catch(() => unknownId('bulk'));
  await same('GET a bulk sync\'s error handling', (v) => api().get(`/api/bulk/syncs/${encodeURIComponent(bulk)}/error-handling`, { version: v }));
  const sync = await modelSyncId().catch(() => unknownId('sync'));
  await same('PUT a model sync\'s error handling', (v) => api().put(`/api/syncs/${encodeURIComponent(sync)}/error-handling`, { warning_notifications: true }, { version: v }));
  for (const kind of KINDS) {
    if (!profile().kinds?.[kind]?.configuration) continue;
    try {
      connectionBody(kind);
    } catch (error) {
      if (error instanceof Unmet) continue;
      throw error;
    }
    await same(`POST /api/connections for a ${kind} connection`, (v) => api().post('/api/connections', connectionBody(kind), { version: v }));
  }
});

for (const destination of DESTINATIONS) {
  check(`VER-006 (2021-05-23, ${destination}) the spelling the profile names is accepted`, async (t) => {
    const spelling = profile().versions?.spelling2021;
    if (!spelling) t.skip('the spelling of 2021-05-23 is not shown and the profile gives no versions.spelling2021');
    const source = await need(t, 'a source with cached schemas', cachedSourceId);
    const body = await need(t, `a ${destination} destination`, () => bulkSyncBody(source, { version: '2021-05-23', destination, spelling: spelling! }));
    const res = await api().post('/api/bulk/syncs', body, { version: '2021-05-23' });
    expectStatus(res, is2xx, `POST /api/bulk/syncs under 2021-05-23 with ${spelling} to a ${destination} destination`);
    walked('POST /api/bulk/syncs', { version: '2021-05-23', kind: destination });
  });
}

/**
 * Values that are not known versions, near misses first: the day after the newest, the day before
 * one, a date past every version and one before all of them, and words. A target that pins an
 * unknown date to the nearest version (as some date-versioned APIs do) is seen.
 */
const UNKNOWN_VERSIONS = ['2025-09-19', '2024-02-07', '2099-01-01', '1999-01-01', 'latest', 'v1'];

/** A calendar date (YYYY-MM-DD) that exists. */
const isDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && new Date(Date.parse(`${v}T00:00:00Z`) || 0).toISOString().startsWith(v);

check('VER-007 an unknown X-Service-Version is answered with the profile\'s status', async (t) => {
  const { unknownStatus: status, unknownDates } = profile().versions ?? {};
  // A date-versioned target may pin a date to the newest known version not after it (the
  // profile's unknownDates); a date before every version, and a word, are still unknown.
  const pinned = (v: string) => unknownDates === 'nearest-earlier' && isDate(v) && VERSIONS.some((known) => known <= v);
  const judged = UNKNOWN_VERSIONS.filter((v) => pinned(v) || status !== undefined);
  if (judged.length === 0) t.skip('the answer to an unknown version is not shown and the profile gives no versions.unknownStatus');
  const id = await need(t, 'a bulk sync to read', bulkSyncId);
  const cases = judged.map((version) => ({ name: `X-Service-Version ${version}`, version, pinned: pinned(version) }));
  const expected = [...(cases.some((c) => c.pinned) ? ['200 (served as the newest known version before it)'] : []), ...(status !== undefined ? [String(status)] : [])].join(' or ');
  await expectEveryCase('VER-007', cases, (c) => api().get(`/api/bulk/syncs/${encodeURIComponent(id)}/error-handling`, { version: c.version }), (s, c) => (c.pinned ? s === 200 : s === status), expected);
});
