import type { ApiResponse } from '../src/client/http-client.ts';
import { api, apiVersion, connectionBody, once, profile, unknownId, Unjudgeable } from '../src/suite/context.ts';
import { bulkSyncBody, cachedSourceId, modelSyncId, readySource } from '../src/suite/fixtures.ts';
import { expectEveryCase, is2xx, is4xx } from '../src/suite/expect.ts';
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

// Bodies that are not a JSON request body (Conventions: 'Bodies are JSON'), sent to the two
// creations, whose status tables list 400 alone (500 'not listed'). A body that is no JSON value
// at all is refused; a valid JSON body under another label, or a very large one, may be taken
// (the spec shows neither a Content-Type rule nor a size limit) or refused; none is a 5xx.
const LARGE_BYTES = 2 * 1024 * 1024;

interface BodyCase {
  name: string;
  /** undefined: no body at all (nor Content-Type). */
  raw: string | undefined;
  contentType: string | null;
  /** A 2xx is conforming too: the body is a valid request under another label or size. */
  mayBeTaken: boolean;
}

function bodyCases(valid: Record<string, unknown>, withLarge: boolean): BodyCase[] {
  const json = JSON.stringify(valid);
  const large = () => JSON.stringify({ ...valid, name: `${String(valid.name)}-${'x'.repeat(LARGE_BYTES)}` });
  return [
    { name: 'a body that is not JSON ("{")', raw: '{', contentType: 'application/json', mayBeTaken: false },
    { name: 'an empty body labelled application/json', raw: '', contentType: 'application/json', mayBeTaken: false },
    { name: 'no body at all', raw: undefined, contentType: null, mayBeTaken: false },
    { name: 'the valid JSON body labelled text/plain', raw: json, contentType: 'text/plain', mayBeTaken: true },
    { name: 'the valid JSON body without Content-Type', raw: json, contentType: null, mayBeTaken: true },
    // Once per run (the first creation only): requests.json keeps every body whole.
    ...(withLarge ? [{ name: `the valid body with a name of ${LARGE_BYTES / 1024 / 1024} MiB`, raw: large(), contentType: 'application/json', mayBeTaken: true }] : []),
  ];
}

check('ERR-004 a creation whose body is missing, not JSON, empty, not labelled JSON or very large is answered 4xx (2xx where taken), never 5xx', async (t) => {
  const targets: Array<[string, Record<string, unknown>]> = [];
  if (profile().kinds?.relationalDatabase?.configuration) targets.push(['/api/connections', connectionBody('relationalDatabase')]);
  const source = await cachedSourceId().catch(() => undefined);
  if (source) targets.push(['/api/bulk/syncs', await bulkSyncBody(source, { version: apiVersion(), destination: 'objectStore' })]);
  if (targets.length === 0) t.skip('no valid request could be built: the profile gives no relational database configuration and no source became ready');
  const cases = targets.flatMap(([path, valid], i) => bodyCases(valid, i === 0).map((c) => ({ ...c, name: `POST ${path} with ${c.name}`, path })));
  await expectEveryCase('ERR-004', cases, (c) => api().post(c.path, undefined, { rawBody: c.raw, contentType: c.contentType }), (s, c) => is4xx(s) || (c.mayBeTaken && is2xx(s)), '4xx (2xx for a valid body under another label or size)');
});

// Ids the URL cannot carry as they are (Path parameter 'id (string, required)'; Errors: 404 for an
// unknown id): a malformed percent-escape, and ids longer than a URL usually carries. The target
// may answer 404 (an unknown id), or 400 or 414 (a malformed or too long URL): a 4xx, never 5xx,
// and an answer, not a hang.
check('ERR-005 an id with a malformed percent-escape or of 10,000 characters is answered 4xx, never 5xx', async () => {
  const long = (n: number) => `dssc-${'0123456789abcdef'.repeat(Math.ceil(n / 16))}`.slice(0, n);
  const ids: Array<[string, string]> = [
    ['a malformed percent-escape (%zz)', `dssc-%zz-${unknownId('malformed')}`],
    ['an id of 1,000 characters', long(1000)],
    ['an id of 10,000 characters', long(10_000)],
  ];
  const cases = ids.flatMap(([what, id]) => [
    { name: `GET /api/bulk/syncs/{${what}}/error-handling`, send: () => api().get(`/api/bulk/syncs/${id}/error-handling`) },
    { name: `PUT /api/syncs/{${what}}/error-handling`, send: () => api().put(`/api/syncs/${id}/error-handling`, { warning_notifications: true }) },
  ]);
  await expectEveryCase('ERR-005', cases, (c) => c.send(), is4xx, 'with a 4xx');
});
