import type { ApiResponse } from '../src/client/http-client.ts';
import { api, connectionBody, once, profile, unknownId } from '../src/suite/context.ts';
import { fail } from '../src/suite/expect.ts';
import { validate } from '../src/schemas.ts';
import { modelSyncId, readySource } from '../src/suite/fixtures.ts';
import { check } from '../src/suite/check.ts';

// Spec › Errors › Error body (all error statuses). The suite provokes one error of each kind the
// spec lists, on every endpoint, and judges the bodies here, so that a wrong error body is reported
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
    await add('400 on PUT error handling', () => api().put(`/api/syncs/${encodeURIComponent(sync)}/error-handling`, { subscribers: 'not-a-list' }));
    if (profile().kinds?.relationalDatabase) {
      await add('400 on POST connections', () => api().post('/api/connections', { ...connectionBody('relationalDatabase'), name: undefined, configuration: 'not-an-object' }));
    }
    const ready = await readySource().catch(() => undefined);
    if (ready && ready.first.status >= 400) out.push({ what: 'the first answer to a bulk sync on a fresh source', res: ready.first });
    return out;
  });
}

function judge(check: (p: Provoked) => string | undefined): Promise<void> {
  return provoked().then((all) => {
    if (all.length === 0) throw new Error('no error could be provoked');
    const bad = all.map((p) => ({ p, problem: check(p) })).filter((x) => x.problem);
    if (bad.length > 0) fail(bad.map((x) => `${x.p.what}: ${x.problem}`).join('\n'), ...bad.slice(0, 2).map((x) => x.p.res));
  });
}

check('ERR-001 every provoked error has a JSON body of the error shape', async () => {
  await judge(({ res }) => {
    if (res.json === undefined) return 'the body is not JSON';
    const errors = validate('error-body.schema.json', res.json);
    return errors.length > 0 ? `the body does not match the error shape: ${errors.join('; ')}` : undefined;
  });
});

check('ERR-002 an error body\'s status equals the HTTP status', async () => {
  await judge(({ res }) => {
    const status = (res.json as { status?: unknown } | undefined)?.status;
    // A status that is not an integer is ERR-001's finding (the shape), not a second one here.
    if (typeof status !== 'number') return undefined;
    return status === res.status ? undefined : `status ${status} in the body, ${res.status} on the wire`;
  });
});

check('ERR-003 error answers are labelled Content-Type: application/json', async () => {
  await judge(({ res }) => {
    const type = res.headers['content-type'] ?? '';
    return /^application\/(?:[\w.+-]+\+)?json\b/i.test(type) ? undefined : `Content-Type is ${JSON.stringify(type || 'absent')}`;
  });
});
