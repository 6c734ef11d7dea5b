import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { deliveryJson, processed, recordOf, send, type DeliveryParts, type Sent } from './send.ts';

// A miniature of the receiver requirements, one probe per RCV ID, to show each reference receiver
// fault doing its harm (and each benign variant doing none) over HTTP without the check engine.
// The kit's own checks (specs/receivers.spec.ts) are what the matrix judges; these are the faults'
// unit tests.

export interface Target {
  url: string;
  inspectUrl: string;
  secret: string;
  /** The answer bound the RCV-010 probe holds deliveries to. */
  boundMs: number;
}

type Probe = (t: Target) => Promise<string[]>;

const fresh = (n = 1) => Array.from({ length: n }, (_, i) => ({ id: `${randomUUID()}`, n: i }));
const is2xx = (s: Sent) => s.status >= 200 && s.status < 300;
const gz = (text: string) => gzipSync(Buffer.from(text));

async function expectStatus(t: Target, label: string, parts: Omit<DeliveryParts, 'secret'> & { secret?: string }, ok: (s: Sent) => boolean): Promise<string[]> {
  const answer = await send(t.url, { secret: t.secret, ...parts });
  return ok(answer) ? [] : [`${label}: ${answer.status}`];
}

const all = async (probes: Promise<string[]>[]) => (await Promise.all(probes)).flat();

/** The well-formed deliveries of RCV-001, as JSON text (a large integer needs text, not a number). */
function wellFormed(): Array<[string, Omit<DeliveryParts, 'secret'>]> {
  const big = JSON.stringify(deliveryJson({ secret: '', records: [{ id: randomUUID(), big: 1 }] })).replace('"big":1', '"big":12345678901234567890');
  return [
    ['one record', { records: fresh() }],
    ['100 records', { records: fresh(100) }],
    ['metadata', { records: fresh(), metadata: { team: 'growth' } }],
    ['empty metadata', { records: fresh(), metadata: {} }],
    ['every JSON type', { records: [{ id: randomUUID(), s: 's', i: 7, f: 1.5, b: true, n: null, o: { a: [1] }, a: ['x', 2] }] }],
    ['non-ASCII', { records: [{ id: randomUUID(), name: 'Zoë Ångström 東京 🚀' }] }],
    ['large integer', { rawBody: gz(big) }],
    ['long names', { records: [{ id: randomUUID(), ['f'.repeat(300)]: 'x'.repeat(5000) }] }],
  ];
}

const MALFORMED: Array<[string, Omit<DeliveryParts, 'secret'>]> = [
  ['not gzip', { rawBody: Buffer.from(JSON.stringify(deliveryJson({ secret: '' }))) }],
  ['truncated gzip', { rawBody: gz(JSON.stringify(deliveryJson({ secret: '' }))).subarray(0, 20) }],
  ['gzip of non-JSON', { rawBody: gz('hello, receiver') }],
  ['no object', { rawBody: gz('{"event":"sync.records"}') }],
  ['records not a list', { rawBody: gz('{"event":"sync.records","object":{"id":"s","name":"n","records":{}}}') }],
];

export const PROBES: Record<string, Probe> = {
  'RCV-001': (t) => all(wellFormed().map(([label, parts]) => expectStatus(t, label, parts, (s) => s.status === 200))),
  'RCV-002': (t) => {
    const near: Array<[string, string | undefined]> = [
      ['missing', undefined], ['wrong', 'Bearer nope'], ['other case', `Bearer ${t.secret.toUpperCase()}`],
      ['prefix', `Bearer ${t.secret.slice(0, -3)}`], ['one more', `Bearer ${t.secret}x`], ['spaces', `Bearer  ${t.secret} x`],
      ['Basic', `Basic ${t.secret}`], ['Token', `Token ${t.secret}`], ['empty', 'Bearer '],
    ];
    return all(near.map(([label, value]) => expectStatus(t, label, { records: fresh(), headers: { authorization: value } }, (s) => !is2xx(s))));
  },
  'RCV-003': (t) => expectStatus(t, 'an hour old', { records: fresh(), ageShiftMs: -3_600_000 }, (s) => !is2xx(s)),
  'RCV-004': (t) => expectStatus(t, 'an hour ahead', { records: fresh(), ageShiftMs: 3_600_000 }, (s) => !is2xx(s)),
  'RCV-005': (t) => all(MALFORMED.map(([label, parts]) => expectStatus(t, label, parts, (s) => !is2xx(s)))),
  'RCV-006': (t) => all([...MALFORMED, ['unknown event', { records: fresh(), event: 'sync.unknown' }] as const].map(([label, parts]) => expectStatus(t, label, parts, (s) => s.status < 500))),
  'RCV-007': async (t) => {
    const records = fresh(2);
    await send(t.url, { secret: t.secret, records, event: 'sync.deleted' });
    const seen = await processed(t.inspectUrl);
    return records.map(recordOf).some((r) => seen.includes(r.hash)) ? ['an unknown event was processed'] : [];
  },
  'RCV-008': async (t) => {
    const body = gz(JSON.stringify(deliveryJson({ secret: '', records: fresh(3) })));
    const headers = { 'service-signature-timestamp': new Date(Date.now() - 5000).toISOString() };
    const first = await send(t.url, { secret: t.secret, rawBody: body, headers });
    const second = await send(t.url, { secret: t.secret, rawBody: body, headers });
    return first.status === 200 && second.status === 200 ? [] : [`answered ${first.status} then ${second.status}`];
  },
  'RCV-009': async (t) => {
    const records = fresh(3);
    await send(t.url, { secret: t.secret, records });
    await send(t.url, { secret: t.secret, records: [...records, ...fresh()] });
    const seen = await processed(t.inspectUrl);
    return records.map(recordOf).some((r) => seen.filter((h) => h === r.hash).length !== 1) ? ['a record was processed twice (or never)'] : [];
  },
  'RCV-010': async (t) => {
    const timed = async (records: number) => {
      const started = performance.now();
      await send(t.url, { secret: t.secret, records: fresh(records) });
      return performance.now() - started;
    };
    const took = [await timed(1), await timed(100)];
    return took.some((ms) => ms > t.boundMs) ? [`answered after ${Math.round(Math.max(...took))} ms`] : [];
  },
};

/** The IDs whose probes find a problem. */
export async function failingProbes(t: Target): Promise<Record<string, string[]>> {
  // Concurrently: every probe sends records of its own, so they cannot see each other's.
  const results = await Promise.all(Object.entries(PROBES).map(async ([id, probe]) => [id, await probe(t)] as const));
  return Object.fromEntries(results.filter(([, problems]) => problems.length > 0));
}
