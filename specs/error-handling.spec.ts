import fc from 'fast-check';
import type { TestContext } from 'vitest';
import { brokenArbitrary } from '../src/generators/invalid.ts';
import { api, apiVersion, fcParams, idOf, need, once, profile, Unmet, unknownId } from '../src/suite/context.ts';
import { dataOf, expectEveryCase, expectSchema, expectStatus, fail } from '../src/suite/expect.ts';
import { negativeCases, NOT_OBJECTS, positiveCases, type CoverageCase } from '../src/generators/coverage.ts';
import type { ApiResponse } from '../src/client/http-client.ts';
import { validate } from '../src/schemas.ts';
import { bulkSyncBody, bulkSyncId, cachedSourceId, createModelSync, modelSyncId } from '../src/suite/fixtures.ts';
import { idsOf, idVersionPairs, unknownIds, versionLabel, walkedOwnShape } from '../src/suite/unknown-ids.ts';
import { nonEmptyLengths, UNSHOWN_LIMIT_FROM, walkListLengths } from '../src/suite/list-lengths.ts';
import { values } from '../src/generators/input-space.ts';
import {
  BULK_SYNC, emptyRemovesAll, FIELDS, idempotent, MODEL_SYNC, modelParams, modelSyncReader, noRule, NotObservable, omittedUnchanged, put, readsBack, replacesList, runModel,
  sameValue, sentApplied, Tally, unwrapFastCheck, Update, type Rule, type Settings,
} from '../src/suite/error-handling-model.ts';
import { observe, unreported } from '../src/suite/error-handling-observe.ts';
import { check, note } from '../src/suite/check.ts';
import { walked } from '../src/suite/input-space-record.ts';

// Spec › GET /api/bulk/syncs/{id}/error-handling; PUT /api/syncs/{id}/error-handling, Rules 1–3.

check('EHB-001 reading a bulk sync\'s error handling answers 200 { data: BulkSyncErrorHandling }', async (t) => {
  const id = await need(t, 'a bulk sync to read', bulkSyncId);
  // The run's bulk sync, and one into each other destination kind the profile gives settings for:
  // the settings of a sync are read by its id, and a lookup that goes through its destination's
  // kind (a table per kind) answers for one kind only.
  const reads: Array<{ what: string; id: string }> = [{ what: 'the run\'s bulk sync', id }];
  const source = profile().bulkSync?.existingId ? undefined : await cachedSourceId().catch(() => undefined);
  for (const kind of ['relationalDatabase', 'objectStore'] as const) {
    if (!source || !profile().kinds?.[kind]?.destinationSettings) continue;
    const res = await api().post('/api/bulk/syncs', await bulkSyncBody(source, { version: apiVersion(), destination: kind, schemas: [] }));
    if (res.status >= 200 && res.status < 300) reads.push({ what: `a bulk sync into a ${kind} destination`, id: idOf(res, 'bulkSync') });
    walked('GET /api/bulk/syncs/{id}/error-handling', { 'destination-kind': kind });
  }
  for (const read of reads) {
    const res = await api().get(`/api/bulk/syncs/${encodeURIComponent(read.id)}/error-handling`);
    expectStatus(res, 200, `GET /api/bulk/syncs/{id}/error-handling of ${read.what}`);
    expectSchema(res.json, 'bulk-sync-error-handling.schema.json#/$defs/response', `the body for ${read.what}`, res);
  }
});

check('EHB-002 reading the error handling of an unknown bulk sync answers 404', async () => {
  // Every shape of unknown id (one shaped like the run's own bulk sync id when there is one), each
  // under every version: a 404 from one lookup path says nothing of the others.
  const own = await bulkSyncId().catch(() => undefined);
  // Ids of the run's other resources (its model sync, its source connection): unknown as bulk syncs.
  const others = await idsOf(modelSyncId, cachedSourceId);
  const cases = idVersionPairs(unknownIds('bulk', own, others)).map(({ unknown, version }) => ({ name: `${unknown.shape} id, ${versionLabel(version)}`, unknown, version }));
  await expectEveryCase('EHB-002', cases, (c) => api().get(`/api/bulk/syncs/${encodeURIComponent(c.unknown.id)}/error-handling`, { version: c.version }), (s) => s === 404, '404 (unknown id)');
  walkedOwnShape('GET /api/bulk/syncs/{id}/error-handling', cases);
});

async function modelBased(t: TestContext, id: string, commands: fc.Arbitrary<Update>[], known?: { start: Settings; steps: Update[] }): Promise<void> {
  const syncId = await need(t, 'a model sync', modelSyncId);
  try {
    const tally = await runModel(MODEL_SYNC, syncId, commands, modelParams(id), known);
    if (tally.vacuous > 0 && tally.vacuous === tally.judged) await note(t, `${id}: no PUT answered any setting, or no read did (data is optional), so no read could disagree with a PUT`);
  } catch (error) {
    const e = unwrapFastCheck(error);
    if (e instanceof NotObservable) t.skip(`not observable: ${e.message}`);
    throw e;
  }
}

// {} is EHS-004's rule, judged there only: a target that refuses it must not fail the others on the seeds that draw it.
const nonEmpty = (b: Settings) => Object.keys(b).length > 0;
const updateBody = MODEL_SYNC.updateBody.filter(nonEmpty);
const updates = (bodies: fc.Arbitrary<Settings>, rule: Rule) => bodies.map((b) => new Update(MODEL_SYNC, b, rule));

check('EHS-001 a field omitted from the PUT body stays unchanged (model-based)', async (t) => {
  // Known steps first, on every seed: each field alone from a known state, so the other three are
  // omitted and judged however few random runs follow (a model that drew only bodies whose fields
  // were never reported would judge nothing).
  const start: Settings = { auto_retry_record_errors: true, notify_on_record_errors: true, subscribers: ['dssc-omit@example.com'], warning_notifications: true };
  // The list alone both ways, emptied first while every boolean is still true: a target that ties
  // the booleans to the list (nobody left to notify) changes them only then.
  const steps = [{ subscribers: [] }, { auto_retry_record_errors: false }, { notify_on_record_errors: false }, { subscribers: ['dssc-omit2@example.com'] }, { warning_notifications: false }].map((b) => new Update(MODEL_SYNC, b, omittedUnchanged));
  await modelBased(t, 'EHS-001', [updates(updateBody, omittedUnchanged)], { start, steps });
});

check('EHS-002 subscribers in the PUT body replaces the whole list (model-based)', async (t) => {
  // Every list length of the input space first (a cap shows only past it), then the model.
  const syncId = await need(t, 'a model sync', modelSyncId);
  await walkListLengths({ resource: MODEL_SYNC, syncId, lengths: nonEmptyLengths(), answer: true, tag: 'ehs2-' });
  const withList = updateBody.filter((b) => Array.isArray(b.subscribers) && b.subscribers.length > 0);
  // Known steps first, on every seed (as EHS-001): a list replaced by a longer one, then by a shorter one.
  const start: Settings = { auto_retry_record_errors: false, notify_on_record_errors: false, subscribers: ['dssc-list1@example.com'], warning_notifications: false };
  const steps = [{ subscribers: ['dssc-list2@example.com', 'dssc-list3@example.com'] }, { subscribers: ['dssc-list4@example.com'] }].map((b) => new Update(MODEL_SYNC, b, replacesList));
  await modelBased(t, 'EHS-002', [updates(withList, replacesList), updates(updateBody, replacesList)], { start, steps });
});

check('EHS-003 subscribers [] removes all subscribers (model-based)', async (t) => {
  // [] after the longest list the target must take, judged on the empty list only.
  const syncId = await need(t, 'a model sync', modelSyncId);
  const longest = Math.max(...nonEmptyLengths().filter((n) => n <= UNSHOWN_LIMIT_FROM));
  await walkListLengths({ resource: MODEL_SYNC, syncId, lengths: [longest, 0], answer: true, judged: (n) => n === 0, tag: 'ehs3-' });
  const empty = updateBody.map((b) => ({ ...b, subscribers: [] }));
  // Known steps first, on every seed (as EHS-001): [] alone, and [] beside a boolean, from a list.
  const start: Settings = { auto_retry_record_errors: false, notify_on_record_errors: false, subscribers: ['dssc-empty1@example.com', 'dssc-empty2@example.com'], warning_notifications: false };
  const steps = [{ subscribers: [] }, { subscribers: ['dssc-empty3@example.com'] }, { subscribers: [], warning_notifications: true }].map((b) => new Update(MODEL_SYNC, b, emptyRemovesAll));
  await modelBased(t, 'EHS-003', [updates(empty, emptyRemovesAll), updates(updateBody, emptyRemovesAll)], { start, steps });
});

const BOOLEANS = ['auto_retry_record_errors', 'notify_on_record_errors', 'warning_notifications'] as const;

check('EHS-009 a boolean sent in the PUT body is applied, also when it equals the current value (model-based)', async (t) => {
  // Bodies that resend the current value are as likely as changes: a target that flips or ignores a field is seen either way.
  // An answer that is not a boolean is EHS-005's finding (the types), not a second one here (sentApplied skips it).
  const booleans = (fc.record(Object.fromEntries(BOOLEANS.map((f) => [f, fc.boolean()])), { requiredKeys: [] }) as fc.Arbitrary<Settings>).filter(nonEmpty);
  // Known steps first, on every seed (as EHS-001): each boolean changed, then sent again unchanged.
  const start: Settings = { auto_retry_record_errors: false, notify_on_record_errors: false, subscribers: [], warning_notifications: false };
  const steps = BOOLEANS.flatMap((f) => [{ [f]: true }, { [f]: true }]).map((b) => new Update(MODEL_SYNC, b, sentApplied));
  await modelBased(t, 'EHS-009', [updates(booleans, sentApplied), updates(updateBody, sentApplied)], { start, steps });
});

/**
 * Known-interesting bodies for the idempotence and read-back checks, in an order in which each one
 * changes the state it is sent to (from IDEMPOTENCE_START): each field alone both ways, the list
 * emptied, one address, many, two that differ only in case, every field, every field null.
 */
const IDEMPOTENCE_START: Settings = { auto_retry_record_errors: false, notify_on_record_errors: false, subscribers: ['dssc-start@example.com'], warning_notifications: false };
const KNOWN_BODIES: Settings[] = [
  ...BOOLEANS.flatMap((f) => [{ [f]: true }, { [f]: false }]),
  { subscribers: [] },
  { subscribers: ['dssc-one@example.com'] },
  { subscribers: ['dssc-a@example.com', 'dssc-b@example.com', 'dssc-c@example.com'] },
  { subscribers: ['Dssc-Case@example.com', 'dssc-case@example.com'] },
  { auto_retry_record_errors: true, notify_on_record_errors: true, subscribers: ['dssc-all@example.com', 'dssc-all2@example.com'], warning_notifications: true },
  { auto_retry_record_errors: null, notify_on_record_errors: null, subscribers: null, warning_notifications: null },
];

check('EHS-010 the same PUT sent twice answers the same settings (model-based)', async (t) => {
  // Each command sends its body twice and compares the answers; plain updates between them vary
  // the state. Null bodies are included: whatever null does (EHS-008), doing it twice changes nothing more.
  const known = { start: IDEMPOTENCE_START, steps: KNOWN_BODIES.map((b) => new Update(MODEL_SYNC, b, idempotent)) };
  await modelBased(t, 'EHS-010', [updates(updateBody, idempotent), updates(updateBody, noRule)], known);
});

check('EHS-011 the read the profile names answers what the last PUT answered (model-based)', async (t) => {
  const reader = modelSyncReader();
  if (!reader) return t.skip('the read of a model sync\'s error handling is not shown and the profile gives no errorHandling.read');
  const rule = readsBack(reader);
  // Every list length of the input space, each read back (a read that pages or caps a list shows only past the cut).
  const syncId = await need(t, 'a model sync', modelSyncId);
  // Read again later after another resource is written: the bulk sync's settings, where the profile declares their write.
  const bulkWrite = profile().errorHandling?.bulkWrite?.path;
  const other = bulkWrite ? await bulkSyncId().catch(() => undefined) : undefined;
  // And after a write that changes another model sync on the same destination connection:
  // settings kept per destination (or per source) instead of per sync show only there.
  const sibling = await siblingModelSyncId();
  const siblingBody = { auto_retry_record_errors: true, subscribers: ['dssc-sibling@example.com'], warning_notifications: true };
  const otherWrites = [...(other ? [BULK_SYNC.path(other)] : []), ...(sibling ? [{ path: MODEL_SYNC.path(sibling), body: siblingBody }] : [])];
  await walkListLengths({ resource: MODEL_SYNC, syncId, lengths: values<number>('list-length'), answer: false, reader, tag: 'ehs11-', otherWrites });
  // From the opposite corner (every boolean true), so that each false is a change the read must show.
  const start: Settings = { auto_retry_record_errors: true, notify_on_record_errors: true, subscribers: ['dssc-start@example.com'], warning_notifications: true };
  // {} is left out: whether it is accepted is EHS-004's rule, judged there only.
  const steps = [...BOOLEANS.map((f) => ({ [f]: false })), ...KNOWN_BODIES].map((b) => new Update(MODEL_SYNC, b, rule));
  await modelBased(t, 'EHS-011', [updates(updateBody, rule)], { start, steps });
});

/**
 * A second model sync made like the run's own (so on the same destination connection), when the
 * profile gives the request to make one; none when it names an existing sync (the suite then makes
 * no model sync).
 */
function siblingModelSyncId(): Promise<string | undefined> {
  const m = profile().modelSync;
  if (m?.existingId || !m?.request) return Promise.resolve(undefined);
  return once('sibling-model-sync', () => createModelSync().catch((error: unknown) => (error instanceof Unmet ? undefined : Promise.reject(error))));
}

check('EHS-004 an empty object as body is valid and changes nothing', async (t) => {
  const syncId = await need(t, 'a model sync', modelSyncId);
  const before = await need(t, 'a known state', () => put(MODEL_SYNC, syncId, { auto_retry_record_errors: true, notify_on_record_errors: false, subscribers: ['dssc-a@example.com'], warning_notifications: true }));
  const res = await api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, {});
  expectStatus(res, 200, 'PUT {}');
  // A field is compared where it was reported before and after (the answer, or the read where the answer leaves it out).
  const after = await observe(FIELDS, MODEL_SYNC.reader(), syncId, (dataOf(res) ?? {}) as Settings);
  const evidence = after.read ? [res, after.read] : [res];
  const tally = new Tally();
  for (const f of FIELDS) {
    if (!(f in before.known.values) || !(f in after.values)) {
      tally.miss(unreported(f, MODEL_SYNC.reader()));
      continue;
    }
    tally.judge();
    const seen = after.fromRead.includes(f) ? ` (${MODEL_SYNC.reader()!.what} reads it; the answer does not report it)` : '';
    if (!sameValue(f, before.known.values[f], after.values[f])) fail(`PUT {} changed ${f} from ${JSON.stringify(before.known.values[f])} to ${JSON.stringify(after.values[f])}${seen}`, ...evidence);
  }
  const nothing = tally.nothingJudged();
  if (nothing) t.skip(`not observable: ${nothing}`);
});

/** Every case is sent; each answer that is not 200 with the response schema's shape is named (the first two in full). */
async function expectEveryAnswer<C extends CoverageCase>(id: string, cases: readonly C[], send: (c: C) => Promise<ApiResponse>, ref: string): Promise<void> {
  const bad: Array<{ c: C; res: ApiResponse; problem: string }> = [];
  for (const c of cases) {
    const res = await send(c);
    const problem = res.status !== 200 ? `answered ${res.status}` : validate(ref, res.json).join('; ');
    if (problem) bad.push({ c, res, problem });
  }
  if (bad.length === 0) return;
  const listed = bad.slice(0, 12).map(({ c, problem }) => `  ${id} ${c.name}: ${problem}`);
  fail([`${bad.length} of ${cases.length} coverage cases were not answered 200 with ${ref}:`, ...listed, ...(bad.length > 12 ? [`  … and ${bad.length - 12} more`] : [])].join('\n'), ...bad.slice(0, 2).map((b) => b.res));
}

check('EHS-005 a valid PUT answers 200 { data: SyncErrorHandling } with the spec\'s types', async (t) => {
  const syncId = await need(t, 'a model sync', modelSyncId);
  // Coverage phase: each field alone, the empty list, a list of one address (a serializer may
  // unwrap it), all of them; then random bodies. Null is EHS-008's rule and {} EHS-004's, judged there only.
  const sample = { auto_retry_record_errors: false, notify_on_record_errors: true, subscribers: ['dssc-cover@example.com', 'dssc-cover2@example.com'], warning_notifications: false };
  const cases: Array<CoverageCase & { contentType?: string }> = [
    ...positiveCases(MODEL_SYNC.updateRef, sample).filter((c) => !c.name.endsWith('= null') && Object.keys(c.value).length > 0),
    { name: 'subscribers with one address', value: { subscribers: ['dssc-cover-one@example.com'] } },
    // Each request Content-Type of the input space: RFC 8259 defines no charset parameter for
    // application/json ('no effect on compliant recipients'), so a labelled body is the same JSON.
    ...values<string>('content-type').filter((ct) => ct !== 'application/json').map((contentType) => ({ name: `sent as Content-Type: ${contentType}`, value: sample, contentType })),
  ];
  const path = MODEL_SYNC.path(syncId);
  await expectEveryAnswer('EHS-005', cases, (c) => api().send({ method: 'PUT', path, body: c.value, ...(c.contentType ? { contentType: c.contentType } : {}) }), MODEL_SYNC.responseRef);
  await fc.assert(
    fc.asyncProperty(updateBody, async (body) => {
      const res = await api().put(path, body);
      expectStatus(res, 200, `PUT ${JSON.stringify(body)}`);
      expectSchema(res.json, MODEL_SYNC.responseRef, 'the body', res);
    }),
    fcParams('EHS-005', Math.min(fcParams('EHS-005').numRuns, 20)),
  );
  await freshSettingsHaveTypes(t);
});

/**
 * The settings a model sync starts with, as the first PUT that leaves them out answers them (Rule
 * 1 keeps them): the run's own model sync never shows them, since every check first PUTs a full
 * known state. So a model sync is made for this when the profile gives the request; not when it
 * names an existing one (the suite then creates no model sync, as modelSyncId does not).
 */
async function freshSettingsHaveTypes(t: TestContext): Promise<void> {
  const m = profile().modelSync;
  if (m?.existingId || !m?.request) return note(t, 'EHS-005: the settings a new model sync starts with were not read (the profile names an existing model sync, or no request to make one)');
  const fresh = await createModelSync().catch((error: unknown) => error instanceof Unmet ? error : Promise.reject(error));
  if (fresh instanceof Unmet) return note(t, `EHS-005: the settings a new model sync starts with were not read: ${fresh.message}`);
  const body = { warning_notifications: false };
  const res = await api().put(MODEL_SYNC.path(fresh), body);
  expectStatus(res, 200, `PUT ${JSON.stringify(body)} to a model sync no PUT had written`);
  expectSchema(res.json, MODEL_SYNC.responseRef, 'the answer of a model sync no PUT had written (the other fields as it started)', res);
}

/** Where negativeCases puts a wrong item of subscribers (its case names show it): alone, between valid addresses, after them. */
const ITEM_POSITIONS = [
  { value: 'alone', test: /^subscribers = \[[^,]*\]$/ },
  { value: 'middle', test: /^subscribers = \[".*", .*, ".*"\]$/ },
  { value: 'last', test: /^subscribers = \["[^"]*", [^,]*\]$/ },
];

check('EHS-006 a PUT body with a field of the wrong type, or not an object, is answered 400', async (t) => {
  const syncId = await need(t, 'a model sync', modelSyncId);
  const path = `/api/syncs/${encodeURIComponent(syncId)}/error-handling`;
  // Coverage phase: every field given every wrong type (near misses included), every list item a
  // wrong type, every body that is not an object; then the random phase explores beyond.
  const cases = [
    ...negativeCases('sync-error-handling-update.schema.json', {}).map((c) => ({ name: c.name, body: JSON.stringify(c.value) })),
    ...NOT_OBJECTS.map((raw) => ({ name: `body ${raw}`, body: raw })),
  ];
  for (const position of ITEM_POSITIONS) if (cases.some((c) => position.test.test(c.name))) walked('PUT /api/syncs/{id}/error-handling', { 'item-position': position.value });
  await expectEveryCase('EHS-006', cases, (c) => api().send({ method: 'PUT', path, rawBody: c.body }), (s) => s === 400, '400');
  await fc.assert(
    fc.asyncProperty(brokenArbitrary('sync-error-handling-update.schema.json'), async ({ value, broken }) => {
      const res = await api().put(path, value);
      expectStatus(res, 400, `a PUT body whose ${broken}`);
    }),
    fcParams('EHS-006', Math.min(fcParams('EHS-006').numRuns, 20)),
  );
});

/** Every valid body shape: an unknown id is 404 whatever the body says (an implementation may look the id up only on some paths). */
const VALID_BODIES: Array<Record<string, unknown>> = [
  {},
  { warning_notifications: true },
  { warning_notifications: false },
  { auto_retry_record_errors: true },
  { notify_on_record_errors: false },
  { subscribers: [] },
  { subscribers: ['dssc-404@example.com'] },
  { auto_retry_record_errors: false, notify_on_record_errors: true, subscribers: ['a@example.com', 'b@example.com'], warning_notifications: true },
];

check('EHS-007 a PUT to an unknown model sync answers 404', async () => {
  // Every valid body to one unknown id (a target may look the id up on some paths only); then every
  // shape of unknown id (one shaped like the run's own model sync id when there is one) under every
  // version, with a body that changes something and with {}.
  const own = await modelSyncId().catch(() => undefined);
  // Ids of the run's other resources (its bulk sync, its source connection): unknown as model syncs.
  const ids = unknownIds('sync', own, await idsOf(bulkSyncId, cachedSourceId));
  const cases = [
    ...VALID_BODIES.map((body) => ({ name: `body ${JSON.stringify(body)}`, id: unknownId('sync'), body, version: undefined as string | null | undefined })),
    ...idVersionPairs(ids).map(({ unknown, version }) => ({ name: `${unknown.shape} id, ${versionLabel(version)}`, id: unknown.id, body: { warning_notifications: true } as Record<string, unknown>, version })),
    ...ids.map((unknown) => ({ name: `${unknown.shape} id, body {}`, id: unknown.id, body: {}, version: undefined })),
  ];
  await expectEveryCase('EHS-007', cases, (c) => api().put(`/api/syncs/${encodeURIComponent(c.id)}/error-handling`, c.body, c.version === undefined ? {} : { version: c.version }), (s) => s === 404, '404 (unknown id)');
  walkedOwnShape('PUT /api/syncs/{id}/error-handling', idVersionPairs(ids));
});

check('EHS-008 null is accepted for each field, with the effect the profile names', async (t) => {
  const meaning = profile().errorHandling?.putNull;
  if (!meaning) t.skip('what null does is not shown and the profile gives no errorHandling.putNull');
  const syncId = await need(t, 'a model sync', modelSyncId);
  const known = { auto_retry_record_errors: true, notify_on_record_errors: true, subscribers: ['dssc-null@example.com'], warning_notifications: true };
  // Each field is judged where it was reported before and after (the answer, or the read where the answer leaves it out).
  const tally = new Tally();
  for (const field of FIELDS) {
    const before = (await put(MODEL_SYNC, syncId, known)).known.values;
    const res = await api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, { [field]: null });
    expectStatus(res, 200, `PUT {"${field}": null}`);
    const after = await observe(FIELDS, MODEL_SYNC.reader(), syncId, (dataOf(res) ?? {}) as Settings);
    if (!(field in after.values) || (meaning === 'unchanged' && !(field in before))) {
      tally.miss(unreported(field, MODEL_SYNC.reader()));
      continue;
    }
    tally.judge();
    const expected = meaning === 'unchanged' ? before[field] : field === 'subscribers' ? [] : false;
    if (!sameValue(field, expected, after.values[field])) {
      fail(`with putNull "${meaning}", {"${field}": null} should leave ${JSON.stringify(expected)}, got ${JSON.stringify(after.values[field])}`, ...(after.read ? [res, after.read] : [res]));
    }
  }
  const nothing = tally.nothingJudged();
  if (nothing) t.skip(`not observable: ${nothing}`);
});

