import fc from 'fast-check';

import { brokenArbitrary } from '../src/generators/invalid.ts';
import { atPointer } from '../src/profile/profile.ts';
import { api, apiVersion, createConnection, fcParams, need, once, profile, resourceName, Unmet } from '../src/suite/context.ts';
import { expectEveryCase, expectStatus, fail, is2xx, is4xx } from '../src/suite/expect.ts';
import { bulkShapeCases, negativeCases } from '../src/generators/coverage.ts';
import { bulkSyncBody, bulkSyncId, cachedSourceId, isCacheNotReady, kindSourceObjects, modelSyncId, readySource, repeatWhileNotCached, sourceKind, sourceObjects, spellingFor } from '../src/suite/fixtures.ts';
import type { ApiResponse } from '../src/client/http-client.ts';
import { check, note } from '../src/suite/check.ts';
import { values } from '../src/generators/input-space.ts';
import { operationCases } from '../src/generators/all-pairs.ts';
import { classedName } from '../src/suite/webhook-names.ts';
import { idsOf, unknownIds } from '../src/suite/unknown-ids.ts';
import { walked } from '../src/suite/input-space-record.ts';
import { ABSENT, otherSourceKinds, sourceKindWalk, stageEnded, stageVersions, stageWalk, versionLabel, type StageWalk } from '../src/suite/schema-stage.ts';
import type { TestContext } from 'vitest';

// Spec › POST /api/bulk/syncs, Rules 1–2; Errors › Specific cases 1.

check('BULK-001 a fresh source answers 400 "No schemas found", status 400, try again, metadata null', async (t) => {
  const ready = await need(t, 'a fresh source connection', readySource);
  const res = ready.first;
  if (is2xx(res.status)) {
    // The cache was ready before the first request: the rule was not exercised.
    if (profile().schemaCache?.observable) fail('the first bulk sync on a fresh source succeeded; the profile says the target shows the "No schemas found" stage', res);
    t.skip('not observed: the fresh source\'s schemas were cached before the first request (set schemaCache.observable in the profile to make this a failure)');
  }
  expectStatus(res, 400, 'the first bulk sync on a fresh source');
  const problems = noSchemasProblems(res);
  if (problems.length > 0) fail(`the "No schemas found" answer is not as specified: ${problems.join('; ')}`, res);
  // The stage holds whatever the body: a second fresh source, asked with schemas named this time
  // (a target may run the cache check only when it has to pick the objects itself).
  const objects = sourceObjects();
  if (!objects) return;
  const fresh = await need(t, 'a second fresh source connection', () => createConnection(sourceKind()));
  const withSchemas = await api().post('/api/bulk/syncs', await bulkSyncBody(fresh.id, { version: apiVersion(), destination: 'objectStore', schemas: objects }));
  if (is2xx(withSchemas.status)) {
    if (profile().schemaCache?.observable) fail('the first bulk sync with schemas on a fresh source succeeded: the "No schemas found" stage was skipped because schemas were named', withSchemas);
    return;
  }
  expectStatus(withSchemas, 400, 'the first bulk sync with schemas on a fresh source');
  const again = noSchemasProblems(withSchemas);
  if (again.length > 0) fail(`with schemas named, the "No schemas found" answer is not as specified: ${again.join('; ')}`, withSchemas);
});

/** What is wrong with a "No schemas found" answer (Errors › Specific cases 1), if anything. */
function noSchemasProblems(res: ApiResponse): string[] {
  const body = res.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object') return ['the body is not a JSON object'];
  const problems: string[] = [];
  if (body.status !== 400) problems.push(`status is ${JSON.stringify(body.status)}, not 400`);
  if (typeof body.message !== 'string' || !body.message.startsWith('No schemas found')) problems.push(`message ${JSON.stringify(body.message)} does not begin with "No schemas found"`);
  else if (!/try again|retry/i.test(body.message)) problems.push('message does not tell the caller to try again');
  if (!('metadata' in body) || body.metadata !== null) problems.push(`metadata is ${'metadata' in body ? JSON.stringify(body.metadata) : 'absent'}, not null`);
  return problems;
}

check('BULK-002 repeating the request after "No schemas found" reaches 2xx within the bound', async (t) => {
  const ready = await need(t, 'a fresh source connection', readySource);
  if (!is2xx(ready.last.status)) {
    const bound = profile().schemaCache?.timeoutMs ?? 30_000;
    const stage = ready.cached ? 'the "No schemas found" stage ended but the repeated request was not accepted' : 'still "No schemas found"';
    fail(`after ${ready.attempts} attempts over ${ready.waitedMs} ms (bound ${bound} ms) no 2xx: ${stage}; last answer:`, ready.last);
  }
});

// Every other kind the profile offers as a source (its sourceObjects), not only the relational
// one the other bulk checks use: a stage wired to one kind's cache (a discovery that only a
// database passes) never ends for the others.
check('BULK-002 (source kinds) a bulk sync from each source kind the profile gives reaches 2xx within the bound', async (t) => {
  if (otherSourceKinds().length === 0) t.skip('the profile gives sourceObjects and a configuration for no other source kind');
  // Made in the stage walk's phases (src/suite/schema-stage.ts), so these stages overlap the versions'.
  const walks = await sourceKindWalk();
  for (const w of walks) {
    await need(t, `a ${w.kind} source and its bulk sync body`, async () => {
      if (w.error !== undefined) throw w.error;
    });
  }
  for (const w of walks) {
    const last = w.last!;
    if (!is2xx(last.status)) fail(`a bulk sync from a ${w.kind} source: after ${w.attempts} attempts over ${Date.now() - w.started} ms no 2xx (${isCacheNotReady(last) ? 'still "No schemas found"' : 'refused'}); last answer:`, last);
  }
});

// The stage under every value of the version dimension (src/suite/schema-stage.ts): a fresh source
// each, the same request twice at once, then repeated until the stage ends.
for (const version of stageVersions()) {
  const title = version === ABSENT ? 'no X-Service-Version' : version;

  check(`BULK-001 (${title}) the "No schemas found" answer, and the same request repeated at once, are as specified`, async (t) => {
    const w = await walkOf(t, version);
    const label = versionLabel(version);
    const accepted = w.last !== undefined && is2xx(w.last.status);
    if (is2xx(w.first!.status)) {
      if (profile().schemaCache?.observable) fail(`${label}, the first bulk sync on a fresh source succeeded; the profile says the target shows the "No schemas found" stage`, w.first!);
      t.skip(`not observed ${label}: the fresh source's schemas were cached before the first request`);
    }
    // A 400 that is not recognisably the stage's is judged only if the same body was accepted once the stage ended.
    if (!isCacheNotReady(w.first!) && !accepted) t.skip(`not judged ${label}: the request was refused (${w.first!.status}) and never accepted, for another check to judge`);
    walked('POST /api/bulk/syncs', { version, 'stage-observation': 'right away' });
    expectStatus(w.first!, 400, `the first bulk sync on a fresh source ${label}`);
    const problems = noSchemasProblems(w.first!);
    if (problems.length > 0) fail(`${label}, the "No schemas found" answer is not as specified: ${problems.join('; ')}`, w.first!);
    const repeat = w.repeat;
    if (!repeat || is2xx(repeat.status)) return note(t, `${label}, the stage had ended by the repeat (answered ${repeat?.status}): only the first answer was judged`);
    if (!isCacheNotReady(repeat) && !accepted) return note(t, `${label}, the repeat was refused (${repeat.status}) and the request never accepted: the repeat is not judged`);
    walked('POST /api/bulk/syncs', { version, 'stage-observation': 'again later' });
    expectStatus(repeat, 400, `the same bulk sync repeated at once, during the stage, ${label}`);
    const again = noSchemasProblems(repeat);
    if (again.length > 0) fail(`${label}, the same request repeated during the stage got a "No schemas found" answer that is not as specified: ${again.join('; ')}`, repeat);
  });

  check(`BULK-002 (${title}) the "No schemas found" stage of a fresh source ends within the bound, and the repeated request leaves one bulk sync`, async (t) => {
    const w = await walkOf(t, version);
    // A request refused for another reason once the stage ended is the version checks' finding (VER-001 to VER-006).
    if (!stageEnded(w)) {
      const bound = profile().schemaCache?.timeoutMs ?? 30_000;
      fail(`${versionLabel(version)}, after ${w.attempts} attempts over ${w.waitedMs} ms (bound ${bound} ms) still "No schemas found"; last answer:`, w.last!);
    }
    if (!(await leftOne(w))) await note(t, `${versionLabel(version)}: how many bulk syncs the repeats left was not observed (the profile lists no bulk syncs, or the stage was not seen)`);
  });
}

// Rules 1: 'The request is safe to repeat until a 2xx status is returned': the requests refused
// with "No schemas found" leave nothing behind, so a walk's body, sent until a 2xx, made one bulk
// sync. Seen through the profile's list of bulk syncs (listing is not shown), read once every walk
// has ended: a refused request stored all the same shows as a second sync of the walk's name.
// Undefined when the profile gives no list, or the list is not one (nothing to judge).
function bulkSyncsListed(): Promise<{ res: ApiResponse; names: unknown[] } | undefined> {
  return once('bulk-syncs-after-stage', async () => {
    const list = profile().cleanup?.bulkSyncs?.list;
    if (!list) return undefined;
    const res = await api().get(list.path);
    const items = is2xx(res.status) ? atPointer(res.json, list.items) : undefined;
    return Array.isArray(items) ? { res, names: items.map((item) => atPointer(item, list.name ?? '/name')) } : undefined;
  });
}

/** Fails when the walk's request, repeated through the stage to a 2xx, left more than one bulk sync; returns whether it was judged. */
async function leftOne(w: StageWalk): Promise<boolean> {
  if (w.name === undefined || !w.first || !isCacheNotReady(w.first) || !w.last || !is2xx(w.last.status)) return false;
  const listed = await bulkSyncsListed();
  if (!listed) return false;
  const count = listed.names.filter((name) => name === w.name).length;
  if (count > 1) fail(`${versionLabel(w.version)}, the request sent ${w.attempts} times until a 2xx left ${count} bulk syncs named ${JSON.stringify(w.name)} in the profile's list: a request refused with "No schemas found" must leave nothing (Rules 1: 'safe to repeat')`, listed.res);
  return true;
}

async function walkOf(t: TestContext, version: string): Promise<StageWalk> {
  const w = (await need(t, 'fresh source connections', stageWalk)).find((x) => x.version === version)!;
  if (w.unmet || !w.first) t.skip(`precondition not met ${versionLabel(version)}: ${w.unmet}`);
  return w;
}

check('BULK-003 a bulk sync without schemas is accepted', async (t) => {
  const source = await need(t, 'a source with cached schemas', cachedSourceId);
  const body = await need(t, 'a bulk sync body', () => bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore', schemas: [] }));
  delete body.schemas;
  const res = await api().post('/api/bulk/syncs', body);
  expectStatus(res, is2xx, 'POST /api/bulk/syncs without schemas');
});

// The same valid body under each request Content-Type of the input space (as CONN-001), by
// content type × destination kind (every pair): a media-type check on one destination's path only is seen.
check('BULK-003 (content types) a bulk sync labelled application/json with a charset parameter is accepted', async (t) => {
  const source = await need(t, 'a source with cached schemas', cachedSourceId);
  const cases = [];
  for (const row of operationCases('POST /api/bulk/syncs', ['destination-kind', 'content-type'])) {
    const [destination, contentType] = [row['destination-kind'] as 'objectStore' | 'relationalDatabase', String(row['content-type'])];
    if (contentType === 'application/json' || !profile().kinds?.[destination]?.destinationSettings) continue;
    const body = await need(t, `a bulk sync body (${destination} destination)`, () => bulkSyncBody(source, { version: apiVersion(), destination }));
    cases.push({ name: `a bulk sync to a ${destination} destination with Content-Type: ${contentType}`, value: body, contentType });
  }
  if (cases.length === 0) t.skip('the profile gives destinationSettings for no destination kind');
  await expectEveryCase('BULK-003 (content types)', cases, (c) => api().post('/api/bulk/syncs', c.value, { contentType: c.contentType }), is2xx, 'with a 2xx');
});

/** RFC 9110's status for a request size limit, which the spec leaves open (Limits: 'request size limits … not shown'). */
const TOO_LARGE = 413;

// Each value of the string-length dimension as a bulk sync's name (the spec sets no bound on it),
// over both destination kinds (all-pairs, src/generators/all-pairs.ts).
check('BULK-003 (names) a bulk sync named with every length class, and with non-ASCII text, is accepted', async (t) => {
  const source = await need(t, 'a source with cached schemas', cachedSourceId);
  const cases = [];
  for (const row of operationCases('POST /api/bulk/syncs', ['destination-kind', 'string-length'])) {
    const kinds = [row['destination-kind'] as 'objectStore' | 'relationalDatabase', row['destination-kind'] === 'objectStore' ? 'relationalDatabase' : 'objectStore'] as const;
    const destination = kinds.find((k) => profile().kinds?.[k]?.destinationSettings);
    if (!destination) return t.skip('the profile gives destinationSettings for no destination kind');
    const body = await need(t, 'a bulk sync body', () => bulkSyncBody(source, { version: apiVersion(), destination, schemas: [] }));
    delete body.schemas;
    // A one-character name cannot carry the run's prefix: its source and destination connections do.
    body.name = classedName(resourceName('bulk-name'), row['string-length']!);
    cases.push({ name: `a name of ${String(row['string-length'])} (${destination} destination)`, value: body, long: typeof row['string-length'] === 'number' && row['string-length'] > 255 });
  }
  const limited: string[] = [];
  await expectEveryCase('BULK-003 (names)', cases, (c) => api().post('/api/bulk/syncs', c.value), (s, c) => is2xx(s) || (c.long && s === TOO_LARGE && limited.push(c.name) > 0), 'with a 2xx');
  if (limited.length > 0) await note(t, `answered ${TOO_LARGE} (a request size limit, which the spec leaves open; not judged): ${limited.join('; ')}`);
});

check('BULK-004 a bulk sync that names source objects in schemas is accepted', async (t) => {
  const objects = await need(t, 'the source objects (profile kinds.<source>.sourceObjects)', async () => {
    const list = kindSourceObjects(sourceKind());
    if (!list || list.length === 0) throw new Error('not given');
    return list;
  });
  const source = await need(t, 'a source with cached schemas', cachedSourceId);
  // Each object alone, then all of them: a target may take one name but not a list, or not every name.
  const lists = [...objects.map((o) => [o]), ...(objects.length > 1 ? [objects] : [])];
  const cases = await Promise.all(lists.map(async (schemas) => ({ name: `schemas ${JSON.stringify(schemas)}`, value: await need(t, 'a bulk sync body', () => bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore', schemas })) })));
  await expectEveryCase('BULK-004', cases, (c) => api().post('/api/bulk/syncs', c.value), is2xx, 'with a 2xx');
});

// BULK-004 on every other source kind the profile gives objects for, once its stage ended
// (BULK-002 (source kinds)): a target that keeps one object list per kind can miss an object of
// one kind only, which the relational source of the check above never names.
check('BULK-004 (source kinds) a bulk sync from each source kind the profile gives, naming its source objects, is accepted', async (t) => {
  if (otherSourceKinds().length === 0) t.skip('the profile gives sourceObjects and a configuration for no other source kind');
  const cases = [];
  for (const w of await sourceKindWalk()) {
    const sourceId = await need(t, `a ${w.kind} source whose schemas are cached`, async () => {
      if (w.sourceId === undefined || w.last === undefined || !is2xx(w.last.status)) throw new Unmet(`the ${w.kind} source's bulk sync never reached a 2xx (see BULK-002 (source kinds))`);
      return w.sourceId;
    });
    const objects = kindSourceObjects(w.kind as 'crm' | 'marketing' | 'objectStore')!;
    // Each object alone, then all of them (as BULK-004).
    for (const schemas of [...objects.map((o) => [o]), ...(objects.length > 1 ? [objects] : [])]) {
      cases.push({ name: `a ${w.kind} source, schemas ${JSON.stringify(schemas)}`, value: await need(t, 'a bulk sync body', () => bulkSyncBody(sourceId, { version: apiVersion(), destination: 'objectStore', schemas })) });
    }
  }
  await expectEveryCase('BULK-004 (source kinds)', cases, (c) => api().post('/api/bulk/syncs', c.value), is2xx, 'with a 2xx');
});

// The list-length dimension on schemas. The spec bounds the list neither way, so every length is
// valid; a source offers only the profile's objects, so a longer list repeats names. Whether a name
// may repeat is not shown: a two-name list with a repeat goes first, and a target that refuses it
// has the longer lists sent but not judged (their refusal cannot be told from the repeat's).
check('BULK-004 (lengths) schemas lists of every length of the input space are accepted', async (t) => {
  const objects = await need(t, 'the source objects (profile kinds.<source>.sourceObjects)', async () => {
    const list = kindSourceObjects(sourceKind());
    if (!list || list.length === 0) throw new Error('not given');
    return list;
  });
  const source = await need(t, 'a source with cached schemas', cachedSourceId);
  const body = (schemas: string[]) => need(t, 'a bulk sync body', () => bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore', schemas }));
  const listOf = (n: number) => Array.from({ length: n }, (_, i) => objects[i % objects.length]!);
  const repeat = [objects[0]!, objects[0]!];
  const control = await api().post('/api/bulk/syncs', await body(repeat));
  const repeatsTaken = is2xx(control.status);
  const lengths = values<number>('list-length').filter((n) => n === 0 || n > 2);
  const cases = await Promise.all(lengths.map(async (n) => ({ name: `schemas of ${n} name${n === 1 ? '' : 's'}${n > objects.length ? ' (repeated)' : ''}`, value: await body(listOf(n)), judged: n <= objects.length || repeatsTaken, big: n > 100 })));
  const unjudged: string[] = [];
  await expectEveryCase('BULK-004 (lengths)', cases, (c) => api().post('/api/bulk/syncs', c.value), (s, c) => is2xx(s) || ((!c.judged || (c.big && s === TOO_LARGE)) && unjudged.push(`${c.name}: ${s}`) > 0), 'with a 2xx');
  if (!repeatsTaken) await note(t, `a list naming ${objects[0]} twice was answered ${control.status} (whether a name may repeat is not shown): the lists longer than the ${objects.length} objects the profile gives were sent, not judged`);
  if (unjudged.some((u) => u.endsWith(`: ${TOO_LARGE}`))) await note(t, `not judged: ${unjudged.join('; ')} (${TOO_LARGE}: a request size limit, which the spec leaves open)`);
});

check('BULK-005 a bulk sync with a required field missing or of the wrong type is not accepted', async (t) => {
  const source = await need(t, 'a source with cached schemas', cachedSourceId);
  const valid = await need(t, 'a bulk sync body', () => bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore' }));
  const required = ['name', 'source_connection_id', 'destination_connection_id', 'mode', 'schedule'];
  const cases = negativeCases('bulk-sync-request-2023-04-25.schema.json', valid, (k) => required.includes(k));
  // schedule.frequency by every shape, an empty connection id, the destination settings by every shape (coverage.ts).
  const more = bulkShapeCases(valid, spellingFor(apiVersion())).required;
  if (profile().kinds?.relationalDatabase?.destinationSettings) {
    const database = await need(t, 'a bulk sync body', () => bulkSyncBody(source, { version: apiVersion(), destination: 'relationalDatabase' }));
    more.push(...bulkShapeCases(database, spellingFor(apiVersion())).required.filter((c) => c.name.includes('.schema') || c.name === 'destination settings absent').map((c) => ({ ...c, name: `relationalDatabase destination: ${c.name}` })));
  }
  // The whole body of another JSON type: every required field is then missing.
  const whole = [null, [], 'replicate'].map((value) => ({ name: `the whole body ${JSON.stringify(value)}`, value }));
  // A connection id that names no connection gives the required connection no more than an empty
  // one does; in every shape of an unknown id, the target's own shape included, since a lookup
  // takes another path for an id that parses as its own (a UUID column) than for one that does not.
  // Ids of the run's syncs name no connection either (one table of every resource finds them).
  const others = await idsOf(bulkSyncId, modelSyncId);
  const unknown = ['source_connection_id', 'destination_connection_id'].flatMap((field) =>
    unknownIds(`bulk-${field}`, String(valid[field]), others).map((u) => {
      walked('POST /api/bulk/syncs', { 'bulk-sync-field': field, 'unknown-id': u.shape });
      return { name: `${field} an unknown id (${u.shape})`, value: { ...valid, [field]: u.id } };
    }),
  );
  await expectEveryCase('BULK-005', [...cases, ...more, ...whole, ...unknown], (c) => api().post('/api/bulk/syncs', c.value), is4xx, 'with a 4xx');
  const broken = brokenArbitrary('bulk-sync-request-2023-04-25.schema.json', fc.constant(valid)).filter((b) => required.some((k) => b.broken.startsWith(k) || b.broken.endsWith(`${k} missing`)));
  await fc.assert(
    fc.asyncProperty(broken, async ({ value, broken: why }) => {
      const res = await api().post('/api/bulk/syncs', value);
      expectStatus(res, is4xx, `a bulk sync whose ${why}`);
    }),
    fcParams('BULK-005', Math.min(fcParams('BULK-005').numRuns, 15)),
  );
});

// schemas, the one optional field, by every shape: the spec requires no refusal of it (BULK-005
// reads the required fields only), but it lists 400 alone for this endpoint, so a target takes
// such a body or refuses it, and never fails on it.
check('BULK-006 a bulk sync with schemas null, of the wrong type or a lone name is answered 2xx or 4xx', async (t) => {
  const source = await need(t, 'a source with cached schemas', cachedSourceId);
  const objects = kindSourceObjects(sourceKind()) ?? [];
  const valid = await need(t, 'a bulk sync body', () => bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore' }));
  const { optional } = bulkShapeCases(valid, spellingFor(apiVersion()), objects[0]);
  await expectEveryCase('BULK-006', optional, (c) => api().post('/api/bulk/syncs', c.value), (s) => is2xx(s) || is4xx(s), '2xx or 4xx');
});

// Spec › What the service does 1: 'A connection can be a data source or a destination'. The spec
// names destination settings for an object store and a database only, so the other kinds go as
// destinations without them, and the webhook receiver (shown as a destination) goes as a source too:
// a target may take or refuse each, but the endpoint lists 400 alone and 500 is not listed.
check('BULK-007 a bulk sync into a destination of each other kind, or from a webhook source, is answered 2xx or 4xx', async (t) => {
  const source = await need(t, 'a source with cached schemas', cachedSourceId);
  const base = await need(t, 'a bulk sync body', () => bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore' }));
  const { [spellingFor(apiVersion())]: _settings, ...unset } = base;
  const cases = [];
  for (const kind of ['crm', 'marketing', 'webhook'] as const) {
    if (!profile().kinds?.[kind]?.configuration) continue;
    const { id } = await need(t, `a ${kind} connection`, () => createConnection(kind));
    cases.push({ name: `a ${kind} destination`, value: { ...unset, destination_connection_id: id } });
    if (kind === 'webhook') cases.push({ name: 'a webhook source', value: { ...base, source_connection_id: id } });
  }
  if (cases.length === 0) t.skip('the profile gives a configuration for no CRM, marketing or webhook kind');
  await expectEveryCase('BULK-007', cases, (c) => api().post('/api/bulk/syncs', c.value), (s) => is2xx(s) || is4xx(s), '2xx or 4xx');
});
