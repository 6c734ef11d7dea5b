import fc from 'fast-check';
import type { TestContext } from 'vitest';
import { brokenArbitrary } from '../src/generators/invalid.ts';
import { BULK_VALID_BODIES, negativeCases, NOT_OBJECTS } from '../src/generators/coverage.ts';
import { api, fcParams, need, profile, unknownId } from '../src/suite/context.ts';
import { expectEveryCase, expectStatus } from '../src/suite/expect.ts';
import { bulkSyncId, modelSyncId } from '../src/suite/fixtures.ts';
import { idsOf, unknownIds } from '../src/suite/unknown-ids.ts';
import { walkListLengths } from '../src/suite/list-lengths.ts';
import { values } from '../src/generators/input-space.ts';
import {
  allOf, answerShape, BULK_READER, BULK_SYNC, MODEL_SYNC, emptyRemovesAll, idempotent, NotObservable, omittedUnchanged, readsBack, replacesList, runModel, sentApplied,
  unwrapFastCheck, Update, type Settings,
} from '../src/suite/error-handling-model.ts';
import { check } from '../src/suite/check.ts';

// The bulk sync's error-handling PUT: the spec lists it among the operations it does not show, so
// these are PROFILE requirements, run when the profile declares the write (errorHandling.bulkWrite).
// The rules are the model-sync PUT's (Spec › PUT /api/syncs/{id}/error-handling, Rules 1–3) over
// BulkSyncErrorHandling, and the spec's GET reads the result.

function declared(t: TestContext): void {
  if (!profile().errorHandling?.bulkWrite) t.skip('the bulk sync error-handling write is not shown and the profile gives no errorHandling.bulkWrite');
}

/** Every rule of the model-sync PUT, the answer's shape, and the spec's GET reading what the PUT answered. */
const updateRules = allOf(answerShape, omittedUnchanged, sentApplied, replacesList, emptyRemovesAll, readsBack(BULK_READER));

/**
 * Known-interesting bodies, in an order in which each changes the state it is sent to: the
 * threshold 0 (a falsy value a truthiness test drops), 1 and a large one, then sent again
 * unchanged; the list emptied, one address, many, two that differ only in case; {}; both fields;
 * both null (what null does is not judged: the model adopts the answer).
 */
const START: Settings = { ingestion_failure_threshold: 60, subscribers: ['dssc-bulk-start@example.com'] };
const KNOWN: Array<[Settings, 'once' | 'twice']> = [
  [{ ingestion_failure_threshold: 0 }, 'once'],
  [{ ingestion_failure_threshold: 1 }, 'once'],
  [{ ingestion_failure_threshold: 86_400 }, 'twice'],
  [{ subscribers: [] }, 'once'],
  [{ subscribers: ['dssc-bulk-one@example.com'] }, 'twice'],
  [{ subscribers: ['dssc-bulk-a@example.com', 'dssc-bulk-b@example.com', 'dssc-bulk-c@example.com'] }, 'once'],
  [{ subscribers: ['Dssc-Bulk-Case@example.com', 'dssc-bulk-case@example.com'] }, 'once'],
  [{}, 'once'],
  [{ ingestion_failure_threshold: 0, subscribers: ['dssc-bulk-both@example.com'] }, 'twice'],
  [{ ingestion_failure_threshold: null, subscribers: null }, 'once'],
];

check('EHB-003 the bulk error-handling PUT the profile declares follows the update rules, and GET reads its result (model-based)', async (t) => {
  declared(t);
  const id = await need(t, 'a bulk sync', bulkSyncId);
  // Every list length of the input space, answer and GET (a cap or a paged read shows only past the cut).
  // Read again later after another resource is written: the model sync's settings, when the run has one.
  const other = await modelSyncId().catch(() => undefined);
  await walkListLengths({ resource: BULK_SYNC, syncId: id, lengths: values<number>('list-length'), answer: true, reader: BULK_READER, tag: 'ehb3-', otherWrites: other ? [MODEL_SYNC.path(other)] : [] });
  const twice = allOf(updateRules, idempotent);
  const steps = KNOWN.map(([body, how]) => new Update(BULK_SYNC, body, how === 'twice' ? twice : updateRules));
  const commands = [BULK_SYNC.updateBody.map((b) => new Update(BULK_SYNC, b, updateRules)), BULK_SYNC.updateBody.map((b) => new Update(BULK_SYNC, b, twice))];
  try {
    await runModel(BULK_SYNC, id, commands, fcParams('EHB-003', Math.min(fcParams('EHB-003').numRuns, 20)), { start: START, steps });
  } catch (error) {
    const e = unwrapFastCheck(error);
    if (e instanceof NotObservable) t.skip(`not observable: ${e.message}`);
    throw e;
  }
});

check('EHB-004 the bulk error-handling PUT answers a wrong type or a non-object 400, and an unknown id 404 for every valid body', async (t) => {
  declared(t);
  const id = await need(t, 'a bulk sync', bulkSyncId);
  const path = BULK_SYNC.path(id);
  const missing = BULK_SYNC.path(unknownId('bulk'));
  // Coverage phase: every field given every wrong type (near misses included: "1", 1.5, a lone
  // address), every list item a wrong type, every body that is not an object; every valid body
  // shape to an unknown id. Then the random phase explores beyond.
  const cases = [
    ...negativeCases(BULK_SYNC.updateRef, {}).map((c) => ({ name: c.name, path, body: JSON.stringify(c.value), status: 400 })),
    ...NOT_OBJECTS.map((raw) => ({ name: `body ${raw}`, path, body: raw, status: 400 })),
    ...BULK_VALID_BODIES.map((b) => ({ name: `unknown id, body ${JSON.stringify(b)}`, path: missing, body: JSON.stringify(b), status: 404 })),
    // Every shape of unknown id, one shaped like the bulk sync's own id included, with {} and a body that changes something.
    ...unknownIds('bulk-put', id, await idsOf(modelSyncId)).flatMap((u) =>
      ['{}', '{"ingestion_failure_threshold":5}'].map((body) => ({ name: `${u.shape} id, body ${body}`, path: BULK_SYNC.path(u.id), body, status: 404 })),
    ),
  ];
  await expectEveryCase('EHB-004', cases, (c) => api().send({ method: 'PUT', path: c.path, rawBody: c.body }), (s, c) => s === c.status, '400 (a wrong type) or 404 (an unknown id)');
  await fc.assert(
    fc.asyncProperty(brokenArbitrary(BULK_SYNC.updateRef), async ({ value, broken }) => {
      const res = await api().put(path, value);
      expectStatus(res, 400, `a bulk PUT body whose ${broken}`);
    }),
    fcParams('EHB-004', Math.min(fcParams('EHB-004').numRuns, 20)),
  );
});
