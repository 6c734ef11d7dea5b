import type { ApiResponse } from '../src/client/http-client.ts';
import { api, connectionBody, once, profile, unknownId, Unjudgeable } from '../src/suite/context.ts';
import { modelSyncId, readySource } from '../src/suite/fixtures.ts';
import { check } from '../src/suite/check.ts';
import { unknownIds } from '../src/suite/unknown-ids.ts';

// Spec › Errors › Error body (all error statuses). The suite provokes one error of each kind the
// spec lists here; every error answer of the run, these and those any other check saw, is judged
// once, under the Errors requirements, and not as noise under every check that saw an error.

interface Provoked {
  what: string;
  res: ApiResponse;
}

function provoked(): Promise<Provoked[]> {
  return once('provoked-errors', async () => {
    const out: Provoked[] = [];
    const add = async (what: string, send: () => Promise<ApiResponse>) => {
      const res = await send();
      if (res.status >= 400) out.push({ what, res });
    };
    const sync = await modelSyncId().catch(() => unknownId('sync'));
    await add('403 on GET bulk error handling', () => api().get(`/api/bulk/syncs/${unknownId('bulk')}/error-handling`, { auth: 'none' }));
    await add('403 on PUT error handling', () => api().put(`/api/syncs/${encodeURIComponent(sync)}/error-handling`, {}, { auth: 'none' }));
    await add('404 on GET bulk error handling', () => api().get(`/api/bulk/syncs/${unknownId('bulk')}/error-handling`));
    await add('404 on PUT error handling', () => api().put(`/api/syncs/${unknownId('sync')}/error-handling`, { warning_notifications: true }));
    // An unknown id of the usual id shape may be answered by another path (a lookup, not a parse), with its own error body.
    const uuid = unknownIds('errors').find((u) => u.shape === '<uuid-unknown>')!.id;
    await add('404 on GET bulk error handling, UUID-shaped id', () => api().get(`/api/bulk/syncs/${uuid}/error-handling`));
    await add('404 on PUT error handling, UUID-shaped id', () => api().put(`/api/syncs/${uuid}/error-handling`, { warning_notifications: true }));
    await add('400 on PUT error handling', () => api().put(`/api/syncs/${encodeURIComponent(sync)}/error-handling`, { subscribers: 'not-a-list' }));
    if (profile().kinds?.relationalDatabase) {
      await add('400 on POST connections', () => api().post('/api/connections', { ...connectionBody('relationalDatabase'), name: undefined, configuration: 'not-an-object' }));
    }
    const ready = await readySource().catch(() => undefined);
    if (ready && ready.first.status >= 400) out.push({ what: 'the first answer to a bulk sync on a fresh source', res: ready.first });
    return out;
  });
}

/**
 * The fixed set is provoked here, so every ERR rule has answers to judge even in a narrow
 * selection; the judgement itself is made over every error answer the run saw, in every check,
 * when the run's event stream is folded (src/report/error-answers.ts): a check here passes when
 * it provoked something, and the fold puts the rule's result in its place.
 */
async function provokeFixedSet(): Promise<void> {
  const all = await provoked();
  if (all.length === 0) throw new Unjudgeable('no error could be provoked');
}

check('ERR-001 every error answer the run saw has a JSON body of the error shape', provokeFixedSet);

check('ERR-002 every error body the run saw carries the answer\'s HTTP status, if any', provokeFixedSet);

check('ERR-003 every error answer the run saw is labelled Content-Type: application/json', provokeFixedSet);
