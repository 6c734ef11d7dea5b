import fc from 'fast-check';
import type { TestContext } from 'vitest';
import { brokenArbitrary } from '../src/generators/invalid.ts';
import { api, fcParams, need, profile, unknownId } from '../src/suite/context.ts';
import { dataOf, expectEveryCase, expectSchema, expectStatus, fail } from '../src/suite/expect.ts';
import { negativeCases, NOT_OBJECTS, positiveCases } from '../src/generators/coverage.ts';
import { bulkSyncId, modelSyncId } from '../src/suite/fixtures.ts';
import { FIELDS, NotObservable, put, runModel, sameSubscribers, sameValue, unwrapFastCheck, Update, updateBody, type Rule } from '../src/suite/error-handling-model.ts';
import { check } from '../src/suite/check.ts';

// Spec › GET /api/bulk/syncs/{id}/error-handling; PUT /api/syncs/{id}/error-handling, Rules 1–3.

check('EHB-001 reading a bulk sync\'s error handling answers 200 { data: BulkSyncErrorHandling }', async (t) => {
  const id = await need(t, 'a bulk sync to read', bulkSyncId);
  const res = await api().get(`/api/bulk/syncs/${encodeURIComponent(id)}/error-handling`);
  expectStatus(res, 200, 'GET /api/bulk/syncs/{id}/error-handling');
  expectSchema(res.json, 'bulk-sync-error-handling.schema.json#/$defs/response', 'the body', res);
});

check('EHB-002 reading the error handling of an unknown bulk sync answers 404', async () => {
  const res = await api().get(`/api/bulk/syncs/${unknownId('bulk')}/error-handling`);
  expectStatus(res, 404, 'GET error handling of an unknown bulk sync');
});

async function modelBased(t: TestContext, id: string, commands: fc.Arbitrary<Update>[]): Promise<void> {
  const syncId = await need(t, 'a model sync', modelSyncId);
  try {
    await runModel(syncId, commands, fcParams(id));
  } catch (error) {
    const e = unwrapFastCheck(error);
    if (e instanceof NotObservable) t.skip(`not observable: ${e.message}`);
    throw e;
  }
}

const omittedUnchanged: Rule = (sent, before, after) => {
  for (const f of FIELDS) {
    if (f in sent) continue;
    if (f in before && !sameValue(f, before[f], after[f])) return `${f} was omitted but changed from ${JSON.stringify(before[f])} to ${JSON.stringify(after[f])}`;
  }
  return undefined;
};

check('EHS-001 a field omitted from the PUT body stays unchanged (model-based)', async (t) => {
  await modelBased(t, 'EHS-001', [updateBody.map((b) => new Update(b, omittedUnchanged))]);
});

const replacesList: Rule = (sent, _before, after) => {
  const list = sent.subscribers;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return sameSubscribers(list, after.subscribers) ? undefined : `subscribers ${JSON.stringify(list)} should replace the list, but it is ${JSON.stringify(after.subscribers)}`;
};

check('EHS-002 subscribers in the PUT body replaces the whole list (model-based)', async (t) => {
  const withList = updateBody.filter((b) => Array.isArray(b.subscribers) && b.subscribers.length > 0);
  await modelBased(t, 'EHS-002', [withList.map((b) => new Update(b, replacesList)), updateBody.map((b) => new Update(b, replacesList))]);
});

const emptyRemovesAll: Rule = (sent, _before, after) => {
  if (!Array.isArray(sent.subscribers) || sent.subscribers.length > 0) return undefined;
  return sameSubscribers([], after.subscribers) ? undefined : `subscribers [] should remove all subscribers, but the list is ${JSON.stringify(after.subscribers)}`;
};

check('EHS-003 subscribers [] removes all subscribers (model-based)', async (t) => {
  const empty = updateBody.map((b) => ({ ...b, subscribers: [] }));
  await modelBased(t, 'EHS-003', [empty.map((b) => new Update(b, emptyRemovesAll)), updateBody.map((b) => new Update(b, emptyRemovesAll))]);
});

const BOOLEANS = ['auto_retry_record_errors', 'notify_on_record_errors', 'warning_notifications'] as const;

const sentApplied: Rule = (sent, _before, after) => {
  // An answer that is not a boolean is EHS-005's finding (the types), not a second one here.
  for (const f of BOOLEANS) {
    if (typeof sent[f] === 'boolean' && typeof after[f] === 'boolean' && after[f] !== sent[f]) return `${f} was sent as ${String(sent[f])} but the answer holds ${JSON.stringify(after[f])}`;
  }
  return undefined;
};

check('EHS-009 a boolean sent in the PUT body is applied, also when it equals the current value (model-based)', async (t) => {
  // Bodies that resend the current value are as likely as changes: a target that flips or ignores a field is seen either way.
  const booleans = fc.record({ auto_retry_record_errors: fc.boolean(), notify_on_record_errors: fc.boolean(), warning_notifications: fc.boolean() }, { requiredKeys: [] });
  await modelBased(t, 'EHS-009', [booleans.map((b) => new Update(b, sentApplied)), updateBody.map((b) => new Update(b, sentApplied))]);
});

check('EHS-004 an empty object as body is valid and changes nothing', async (t) => {
  const syncId = await need(t, 'a model sync', modelSyncId);
  const before = await need(t, 'a known state', () => put(syncId, { auto_retry_record_errors: true, notify_on_record_errors: false, subscribers: ['dssc-a@example.com'], warning_notifications: true }));
  const res = await api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, {});
  expectStatus(res, 200, 'PUT {}');
  const after = dataOf(res);
  if (!after) return;
  for (const f of FIELDS) if (!sameValue(f, before.data[f], after[f])) fail(`PUT {} changed ${f} from ${JSON.stringify(before.data[f])} to ${JSON.stringify(after[f])}`, res);
});

check('EHS-005 a valid PUT answers 200 { data: SyncErrorHandling } with the spec\'s types', async (t) => {
  const syncId = await need(t, 'a model sync', modelSyncId);
  // Coverage phase: each field alone, the empty list, all of them; then random bodies. Null is
  // EHS-008's rule and {} EHS-004's, judged there only.
  const sample = { auto_retry_record_errors: false, notify_on_record_errors: true, subscribers: ['dssc-cover@example.com', 'dssc-cover2@example.com'], warning_notifications: false };
  const cases = positiveCases('sync-error-handling-update.schema.json', sample).filter((c) => !c.name.endsWith('= null') && Object.keys(c.value).length > 0);
  await expectEveryCase('EHS-005', cases, (c) => api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, c.value), (s) => s === 200, '200');
  await fc.assert(
    fc.asyncProperty(updateBody, async (body) => {
      const res = await api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, body);
      expectStatus(res, 200, `PUT ${JSON.stringify(body)}`);
      expectSchema(res.json, 'sync-error-handling.schema.json#/$defs/response', 'the body', res);
    }),
    fcParams('EHS-005', Math.min(fcParams('EHS-005').numRuns, 20)),
  );
});

check('EHS-006 a PUT body with a field of the wrong type, or not an object, is answered 400', async (t) => {
  const syncId = await need(t, 'a model sync', modelSyncId);
  const path = `/api/syncs/${encodeURIComponent(syncId)}/error-handling`;
  // Coverage phase: every field given every wrong type (near misses included), every list item a
  // wrong type, every body that is not an object; then the random phase explores beyond.
  const cases = [
    ...negativeCases('sync-error-handling-update.schema.json', {}).map((c) => ({ name: c.name, body: JSON.stringify(c.value) })),
    ...NOT_OBJECTS.map((raw) => ({ name: `body ${raw}`, body: raw })),
  ];
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
  for (const body of VALID_BODIES) {
    const res = await api().put(`/api/syncs/${unknownId('sync')}/error-handling`, body);
    expectStatus(res, 404, `PUT ${JSON.stringify(body)} to the error handling of an unknown model sync`);
  }
});

check('EHS-008 null is accepted for each field, with the effect the profile names', async (t) => {
  const meaning = profile().errorHandling?.putNull;
  if (!meaning) t.skip('what null does is not shown and the profile gives no errorHandling.putNull');
  const syncId = await need(t, 'a model sync', modelSyncId);
  const known = { auto_retry_record_errors: true, notify_on_record_errors: true, subscribers: ['dssc-null@example.com'], warning_notifications: true };
  for (const field of FIELDS) {
    const before = await put(syncId, known).catch((e: unknown) => {
      if (e instanceof NotObservable) t.skip(`not observable: ${e.message}`);
      throw e;
    });
    const res = await api().put(`/api/syncs/${encodeURIComponent(syncId)}/error-handling`, { [field]: null });
    expectStatus(res, 200, `PUT {"${field}": null}`);
    const after = dataOf(res);
    if (!after) continue;
    const expected = meaning === 'unchanged' ? before.data[field] : field === 'subscribers' ? [] : false;
    if (!sameValue(field, expected, after[field])) {
      fail(`with putNull "${meaning}", {"${field}": null} should leave ${JSON.stringify(expected)}, got ${JSON.stringify(after[field])}`, res);
    }
  }
});

