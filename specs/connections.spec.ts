import fc from 'fast-check';
import type { TestContext } from 'vitest';
import { arbitraryFor } from '../src/generators/from-schema.ts';
import { brokenArbitrary } from '../src/generators/invalid.ts';
import type { ApiResponse } from '../src/client/http-client.ts';
import { atPointer, KIND_NAMES, type KindName } from '../src/profile/profile.ts';
import { validate } from '../src/schemas.ts';
import { api, connectionBody, fcParams, idOf, kindProfile, need, profile, resourceName, Unmet } from '../src/suite/context.ts';
import { expectEveryCase, expectStatus, fail, is2xx } from '../src/suite/expect.ts';
import { boundaryCases, connectionShapeCases, stringFormCases } from '../src/generators/coverage.ts';
import { check, note } from '../src/suite/check.ts';
import { operationCases } from '../src/generators/all-pairs.ts';
import type { DimensionValue } from '../src/generators/input-space.ts';
import { classedName } from '../src/suite/webhook-names.ts';
import { walked } from '../src/suite/input-space-record.ts';

// Spec › Resources › Connection (request to create), configuration by kind; POST /api/connections.

const SPEC_KINDS = ['crm', 'marketing', 'objectStore', 'relationalDatabase'] as const;
const CONFIG_REF = (kind: KindName) => `connection-request.schema.json#/$defs/${kind}`;

/** Configurations to send: generated from the schema when the target takes made-up ones, else the profile's. */
function configurations(kind: KindName): fc.Arbitrary<Record<string, unknown>> {
  const own = kindProfile(kind).configuration;
  if (profile().generatedConfigurations) return arbitraryFor(CONFIG_REF(kind)) as fc.Arbitrary<Record<string, unknown>>;
  if (!own) throw new Unmet(`the profile gives no configuration for kinds.${kind}`);
  return fc.constant(own);
}

function runsFor(kind: KindName): number {
  return profile().generatedConfigurations ? Math.min(fcParams(kind).numRuns, 5) : 1;
}

async function requireKind(t: TestContext, kind: KindName) {
  return need(t, `the ${kind} kind in the profile`, async () => kindProfile(kind));
}

for (const kind of SPEC_KINDS) {
  check(`CONN-001 (${kind}) a valid connection request is accepted`, async (t) => {
    await requireKind(t, kind);
    if (profile().generatedConfigurations && kind !== 'marketing') {
      // The schema's edges (a port of 1 or 65535, a one-letter key) on every seed: random values seldom reach them.
      const base = connectionBody(kind);
      const edges = boundaryCases(CONFIG_REF(kind), base.configuration as Record<string, unknown>, kind !== 'relationalDatabase');
      await expectEveryCase(`CONN-001 (${kind})`, edges, (c) => api().post('/api/connections', { ...base, configuration: c.value }), is2xx, 'with a 2xx');
      // The request log redacts a secret, so its one-character value is recorded here.
      for (const c of edges) for (const secret of ['cloud_secret_access_key', 'password']) if (c.name === `${secret} of length 1`) walked('POST /api/connections', { 'connection-field': `${kind} configuration.${secret}`, 'field-shape': 'boundary' });
      // Every free string field written with dots, hyphens, digits: the random phase writes letters only.
      const forms = stringFormCases(CONFIG_REF(kind), base.configuration as Record<string, unknown>);
      await expectEveryCase(`CONN-001 (${kind})`, forms, (c) => api().post('/api/connections', { ...base, configuration: c.value }), is2xx, 'with a 2xx');
      for (const c of forms) walked('POST /api/connections', { 'string-form': c.form, kind });
    }
    await fc.assert(
      fc.asyncProperty(configurations(kind), async (configuration) => {
        const res = await api().post('/api/connections', connectionBody(kind, configuration));
        expectStatus(res, is2xx, `POST /api/connections for a ${kind} connection`);
      }),
      { ...fcParams(`CONN-001-${kind}`), numRuns: runsFor(kind) },
    );
  });
}

/** RFC 9110's status for a request size limit, which the spec leaves open (Limits: 'request size limits … not shown'). */
const TOO_LARGE = 413;

// Each value of the string-length dimension as a connection's name over the kinds (all-pairs,
// src/generators/all-pairs.ts). The spec bounds the name neither way, and 400 is for the shape
// only: a string of any length is the shape. A one-character name cannot carry the run's prefix,
// so it is sent on the OAuth kinds only, whose redirect_url carries it.
check('CONN-001 (names) a connection named with every length class, and with non-ASCII text, is accepted', async (t) => {
  const available = SPEC_KINDS.filter((k) => profile().kinds?.[k]?.configuration);
  const oauth = available.filter((k) => (k === 'crm' || k === 'marketing') && profile().kinds?.[k]?.oauth !== false);
  if (available.length === 0) t.skip('the profile gives no kind with a configuration');
  const cases: Array<{ name: string; value: Record<string, unknown>; long: boolean }> = [];
  const add = (kind: KindName, c: DimensionValue, extra: Record<string, unknown> = {}) => {
    const body = connectionBody(kind);
    cases.push({ name: `${kind} named with ${String(c)}`, value: { ...body, ...extra, name: classedName(String(body.name), c) }, long: typeof c === 'number' && c > 255 });
  };
  for (const row of operationCases('POST /api/connections', ['kind', 'string-length'])) {
    const [kind, c] = [row.kind as KindName, row['string-length']!];
    if (c === 1) continue;
    add((available as readonly KindName[]).includes(kind) ? kind : available[0]!, c);
  }
  for (const kind of oauth) add(kind, 1, { redirect_url: `${REDIRECT_URLS[0]}/${resourceName(`${kind}-name-1`)}` });
  const limited: string[] = [];
  await expectEveryCase('CONN-001 (names)', cases, (c) => api().post('/api/connections', c.value), (st, c) => is2xx(st) || (c.long && st === TOO_LARGE && limited.push(c.name) > 0), 'with a 2xx');
  if (limited.length > 0) await note(t, `answered ${TOO_LARGE} (a request size limit, which the spec leaves open; not judged): ${limited.join('; ')}`);
});

for (const kind of ['crm', 'marketing'] as const) {
  check(`CONN-002 (${kind}) an OAuth kind's response carries auth_url, a URL`, async (t) => {
    const k = await requireKind(t, kind);
    if (k.oauth === false) t.skip(`the profile says kinds.${kind} does not use OAuth`);
    const res = await api().post('/api/connections', connectionBody(kind));
    expectStatus(res, is2xx, `POST /api/connections for a ${kind} connection`);
    checkAuthUrl(res);
  });
}

function checkAuthUrl(res: Awaited<ReturnType<ReturnType<typeof api>['post']>>): void {
  const pointer = profile().pointers?.authUrl ?? '/data/auth_url';
  const url = atPointer(res.json, pointer);
  if (url === undefined) fail(`no auth_url at ${pointer} of the response`, res);
  const errors = validate('connection-response.schema.json#/$defs/authUrl', url);
  if (errors.length > 0) fail(`auth_url ${JSON.stringify(url)} is not a web URL a person can open: ${errors.join('; ')}`, res);
}

// The same valid body under each request Content-Type of the input space: RFC 8259 defines no
// charset parameter for application/json, and adding one "has no effect on compliant recipients".
// Content type × kind, every pair (the webhook kind too): a media-type check wired into one
// kind's handler only is seen.
check('CONN-001 (content types) a valid connection request labelled application/json with a charset parameter is accepted', async (t) => {
  const kinds = KIND_NAMES.filter((k) => profile().kinds?.[k]?.configuration);
  if (kinds.length === 0) t.skip('the profile names no connection kind');
  const cases: Array<{ name: string; value: Record<string, unknown>; contentType: string }> = [];
  for (const row of operationCases('POST /api/connections', ['kind', 'content-type'])) {
    const [kind, contentType] = [row.kind as KindName, String(row['content-type'])];
    if (contentType === 'application/json' || !kinds.includes(kind)) continue;
    try {
      cases.push({ name: `a ${kind} connection with Content-Type: ${contentType}`, value: connectionBody(kind), contentType });
    } catch (error) {
      // A body the run cannot build (a template naming a source database it has none of): CONN-001 says so.
      if (!(error instanceof Unmet)) throw error;
    }
  }
  await expectEveryCase('CONN-001 (content types)', cases, (c) => api().post('/api/connections', c.value, { contentType: c.contentType }), is2xx, 'with a 2xx');
});

check('CONN-003 the marketing platform kind is accepted with configuration {}', async (t) => {
  await requireKind(t, 'marketing');
  const res = await api().post('/api/connections', connectionBody('marketing', {}));
  expectStatus(res, is2xx, 'POST /api/connections with configuration {}');
});

check('CONN-004 a connection request that breaks the request shape is answered 400', async (t) => {
  await requireKind(t, 'relationalDatabase');
  // Kind × every field of that kind: a rule that holds for one kind only is seen (coverage.ts).
  const bases: Partial<Record<KindName, Record<string, unknown>>> = {};
  for (const k of SPEC_KINDS) {
    if (!profile().kinds?.[k]?.configuration) continue;
    try {
      bases[k] = connectionBody(k);
    } catch (error) {
      // A body the run cannot build (a template naming a source database it has none of): CONN-001 says so.
      if (!(error instanceof Unmet) || k === 'relationalDatabase') throw error;
    }
  }
  const kinds = Object.keys(bases) as KindName[];
  const cases = connectionShapeCases(bases, 'relationalDatabase');
  await expectEveryCase('CONN-004', cases, (c) => api().post('/api/connections', c.value), (s) => s === 400, '400');
  const broken = fc.constantFrom(...kinds).chain((kind) => {
    const valid = fc.constant(null).map(() => connectionBody(kind));
    return fc.oneof(
      brokenArbitrary('connection-request.schema.json', valid),
      ...(kind === 'marketing'
        ? []
        : [
            brokenArbitrary(CONFIG_REF(kind), fc.constant(bases[kind]!.configuration as Record<string, unknown>)).map(({ value, broken: why }) => ({
              value: { ...connectionBody(kind), configuration: value },
              broken: `configuration: ${why}`,
            })),
          ]),
    ).map(({ value, broken: why }) => ({ value, broken: `${kind}: ${why}` }));
  });
  await fc.assert(
    fc.asyncProperty(broken, async ({ value, broken: why }) => {
      const res = await api().post('/api/connections', value);
      expectStatus(res, 400, `a connection request whose ${why}`);
    }),
    fcParams('CONN-004', Math.min(fcParams('CONN-004').numRuns, 20)),
  );
});

/** The common encodings a secret can be echoed in: a secret is a secret in any spelling. */
function secretForms(secret: string): Array<[string, string]> {
  const bytes = Buffer.from(secret, 'utf8');
  return [
    ['as sent', secret],
    ['base64', bytes.toString('base64').replace(/=+$/, '')],
    ['base64url', bytes.toString('base64url')],
    ['hex', bytes.toString('hex')],
    ['URL-encoded', encodeURIComponent(secret)],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
  ];
}

/** Where the answer holds the secret in some encoding: the body or a header, case-insensitively for hex. */
function echoed(secret: string, res: ApiResponse): string | undefined {
  const places: Array<[string, string]> = [['the body', res.text], ...Object.entries(res.headers).map(([k, v]): [string, string] => [`header ${k}`, v])];
  for (const [form, value] of secretForms(secret)) {
    for (const [place, text] of places) {
      if (form === 'hex' ? text.toLowerCase().includes(value) : text.includes(value)) return `${form}, in ${place}`;
    }
  }
  return undefined;
}

check('CONN-005 secrets sent by the caller are not echoed in the creation response', async (t) => {
  const cases: Array<[KindName, string]> = [['objectStore', 'cloud_secret_access_key'], ['relationalDatabase', 'password']];
  let checked = 0;
  for (const [kind, field] of cases) {
    if (!profile().kinds?.[kind]) continue;
    const body = connectionBody(kind);
    const secret = (body.configuration as Record<string, unknown>)[field];
    if (typeof secret !== 'string' || secret.length < 4) continue;
    const res = await api().post('/api/connections', body);
    expectStatus(res, is2xx, `POST /api/connections for a ${kind} connection`);
    const where = echoed(secret, res);
    if (where) fail(`the response echoes the ${field} that was sent (${where}; shown redacted)`, res);
    checked += 1;
  }
  if (checked === 0) t.skip('the profile names no object store or relational database kind with a secret configured');
});

check('CONN-006 the creation response holds the new connection id where the profile says', async (t) => {
  await requireKind(t, 'relationalDatabase');
  const res = await api().post('/api/connections', connectionBody('relationalDatabase'));
  expectStatus(res, is2xx, 'POST /api/connections');
  try {
    idOf(res, 'connection');
  } catch (error) {
    fail((error as Error).message, res);
  }
});

/** A plain redirect URL, and one with a port, a path and a query: both are URLs (Spec › Connection: redirect_url). */
const REDIRECT_URLS = ['https://dssc.example.com/oauth/done', 'https://dssc.example.com:8443/oauth/done?from=dssc&step=2'];

for (const kind of ['crm', 'marketing'] as const) {
  check(`CONN-007 (${kind}) an OAuth kind with redirect_url is accepted and returns auth_url`, async (t) => {
    const k = await requireKind(t, kind);
    if (k.oauth === false) t.skip(`the profile says kinds.${kind} does not use OAuth`);
    for (const redirect of REDIRECT_URLS) {
      const res = await api().post('/api/connections', { ...connectionBody(kind), redirect_url: redirect });
      expectStatus(res, is2xx, `POST /api/connections for a ${kind} connection with redirect_url ${redirect}`);
      checkAuthUrl(res);
    }
  });
}

// A type no kind has: a lowercase string the target has no kind for (the full list of types is
// not shown), or a kind's own identifier spelled otherwise (capitals, surrounding space), which the
// spec's "lowercase identifier" does not name either. The target may take it (a lenient lookup) or
// refuse it, but POST /api/connections lists 400 alone and 500 is not listed. Sent with each kind's
// configuration from the profile: a target may look the kind up before or after reading it.
// "constructor" is a lowercase identifier too, and one every JavaScript object holds by
// inheritance: a kind table read by plain property access finds it.
const UNKNOWN_TYPES = [
  { value: '<unknown-lowercase>', type: () => 'dssc-no-such-kind', label: 'type "dssc-no-such-kind"' },
  { value: '<unknown-lowercase>', type: () => 'constructor', label: 'type "constructor"' },
  { value: '<kind-other-case>', type: (own: string) => own.charAt(0).toUpperCase() + own.slice(1), label: 'its own type capitalised' },
  { value: '<kind-other-case>', type: (own: string) => own.toUpperCase(), label: 'its own type in capitals' },
  { value: '<kind-padded>', type: (own: string) => ` ${own} `, label: 'its own type between spaces' },
] as const;

check('CONN-008 a connection request whose type names no kind is answered 2xx or 4xx, never 5xx', async (t) => {
  const kinds = SPEC_KINDS.filter((k) => profile().kinds?.[k]?.configuration);
  if (kinds.length === 0) t.skip('the profile gives no configuration for any kind');
  const cases = kinds.flatMap((kind) => {
    const body = connectionBody(kind);
    const own = String(body.type);
    return UNKNOWN_TYPES.map((u) => ({ name: `${u.label} with the ${kind} configuration`, value: { ...body, type: u.type(own) }, walkedValue: u.value }))
      .filter((c) => c.value.type !== own);
  });
  for (const c of cases) walked('POST /api/connections', { 'unknown-type': c.walkedValue });
  await expectEveryCase('CONN-008', cases, (c) => api().post('/api/connections', c.value), (s) => is2xx(s) || (s >= 400 && s < 500), '2xx or 4xx');
});
