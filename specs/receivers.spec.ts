import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { EVERY_TYPE } from '../src/receiver-conformance/context.ts';
import { NoAnswer, excerpt, type Answer } from '../src/receiver-conformance/http.ts';
import { check, failIfAny, Skip, Unjudgeable, type CheckContext } from '../src/receiver-conformance/registry.ts';
import { recordHash, type BuiltDelivery, type Fields } from '../src/deliveries/build.ts';

// The receiver half of the contract (specs/requirements.json, spec receivers.spec.ts): deliveries
// of the spec's shape, and departures from it, sent to the receiver under test by
// `dss-conformance receiver`. Every check walks its enumerated cases on every seed, then
// fast-check explores beyond them. Run order is file order; RCV-010 comes last and judges every
// answer of the run.

type Case = [label: string, delivery: BuiltDelivery];

/** Sends each case and collects the judge's complaints; a case without an answer makes the check an error unless another failed. */
async function walk(t: CheckContext, cases: Case[], judge: (answer: Answer) => string | undefined): Promise<{ problems: string[]; answers: Map<string, Answer> }> {
  const problems: string[] = [];
  const answers = new Map<string, Answer>();
  let unanswered: NoAnswer | undefined;
  for (const [label, delivery] of cases) {
    try {
      const answer = await t.send(label, delivery);
      answers.set(label, answer);
      const wrong = judge(answer);
      if (wrong) problems.push(`${label}: ${wrong}`);
    } catch (error) {
      if (!(error instanceof NoAnswer)) throw error;
      unanswered ??= error;
    }
  }
  if (unanswered && problems.length === 0) throw unanswered;
  return { problems, answers };
}

const answered = (a: Answer) => `answered ${a.status} ${excerpt(a.body, 80)}`;
const not200 = (a: Answer) => (a.status === 200 ? undefined : `${answered(a)}, not 200`);
const is2xx = (a: Answer) => (a.status >= 200 && a.status < 300 ? `${answered(a)}, a 2xx` : undefined);
const is5xx = (a: Answer) => (a.status >= 500 ? `${answered(a)}, a 5xx` : undefined);

/** Text of `n` characters that gzip cannot shrink much (about 6 bits a character), derived from `seed`. */
function incompressible(seed: string, n: number): string {
  let out = '';
  for (let i = 0; out.length < n; i++) out += createHash('sha256').update(`${seed}:${i}`).digest('base64url');
  return out.slice(0, n);
}

/** A Service-Signature-Timestamp of now, spelled another ISO 8601 UTC way than toISOString's. */
const stampedAs = (t: CheckContext, spell: (iso: string) => string) => t.delivery({ headers: { 'Service-Signature-Timestamp': spell(new Date().toISOString()) } });

/** The records with hashes of another shape than SHA-256 hex: "hash (string)" fixes none. */
const hashedAs = (t: CheckContext, records: Fields[], shape: (sha256Hex: string) => string) => t.delivery({ records, hashes: records.map((r) => shape(recordHash(r))) });

/** The well-formed deliveries RCV-001 walks (also the shapes `send` can make). */
function wellFormed(t: CheckContext): Case[] {
  const run = `dssc-${t.runId}`;
  return [
    ['1 record, no metadata', t.delivery({ records: t.records(1) })],
    ['100 records (the default batch size)', t.delivery({ records: t.records(100) })],
    // The batch size is "overridable per sync" and no maximum is shown: 100 is not a cap.
    ['1000 records (a batch size above the default)', t.delivery({ records: t.records(1000) })],
    // "list of object": an empty list is one (a run with nothing changed).
    ['no records (an empty list)', t.delivery({ records: [] })],
    // About 80 KiB of gzip: more than one read of a socket, so a receiver that takes the first chunk for the body fails.
    ['100 records of 1 KiB of text each (a body larger than one socket read)', t.delivery({ records: t.records(100).map((r) => ({ ...r, notes: incompressible(`${run}:${String(r.dssc_n)}`, 1024) })) })],
    // "ISO 8601 UTC timestamp": not only toISOString's spelling (three fractional digits and Z).
    ['a timestamp to the whole second (no fraction)', stampedAs(t, (iso) => iso.replace(/\.\d+Z$/, 'Z'))],
    ['a timestamp with nanoseconds (nine fractional digits)', stampedAs(t, (iso) => iso.replace(/Z$/, '000000Z'))],
    ['a timestamp with the offset +00:00 for Z', stampedAs(t, (iso) => iso.replace(/Z$/, '+00:00'))],
    ['16-hex-digit hashes', hashedAs(t, t.records(2), (hex) => hex.slice(0, 16))],
    ['hashes that are not hex (base64url)', hashedAs(t, t.records(2), (hex) => Buffer.from(hex, 'hex').toString('base64url'))],
    ['metadata null', t.delivery({ metadata: null })],
    ['metadata empty', t.delivery({ metadata: {} })],
    ['metadata with pairs', t.delivery({ metadata: { team: 'growth', region: 'eu-west-1', 'schlüssel': 'wert' } })],
    ['every JSON value type in fields', t.delivery({ records: t.records(2, EVERY_TYPE) })],
    ['non-ASCII text', t.delivery({ records: t.records(1, { name: 'Zoë Ørsted — 日本語 🎉', 'straße': 'ü' }), syncName: `${run} ünïcødé 同期` })],
    ['integers beyond 2^53 as JSON numbers', t.delivery({ records: t.records(1, { big: 9007199254740993n, negative: -18446744073709551617n }) })],
    ['a 1000-character sync name', t.delivery({ syncName: `${run} `.padEnd(1000, 'n') })],
    ['256-character field names', t.delivery({ records: t.records(1, { ['f'.repeat(256)]: 'long name', ['g'.repeat(255)]: 1 }) })],
    ['a timestamp 10 s old', t.delivery({ timestamp: new Date(Date.now() - 10_000) })],
  ];
}

check('RCV-001 a well-formed delivery is answered 200', async (t) => {
  const { problems } = await walk(t, wellFormed(t), not200);
  failIfAny(problems, 'well-formed deliveries not answered 200');
  // Beyond the enumerated cases: random records of JSON values.
  const record = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 });
  await fc.assert(
    fc.asyncProperty(fc.array(record, { minLength: 1, maxLength: 5 }), async (generated) => {
      const records = generated.map((fields) => ({ ...fields, ...t.records(1)[0] }));
      const answer = await t.send('random records', t.delivery({ records }));
      if (answer.status !== 200) throw new Error(`records ${JSON.stringify(records).slice(0, 300)}: ${answered(answer)}, not 200`);
    }),
    { seed: t.seed, numRuns: t.numRuns, endOnFailure: true },
  );
});

/** The string with its character at `i` replaced by another one ('a', or 'b' where it was 'a'). */
const changeAt = (s: string, i: number) => `${s.slice(0, i)}${s[i] === 'a' ? 'b' : 'a'}${s.slice(i + 1)}`;

/** Swaps the case of every letter: the secret "in other case". */
const swapCase = (s: string) => s.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));

/** RCV-002's enumerated deliveries without the right secret (RCV-006 sends them when RCV-002 did not run). */
function wrongSecrets(t: CheckContext): Case[] {
  const secret = t.target.secret;
  const auth = (value: string | undefined, o: Parameters<CheckContext['delivery']>[0] = {}) => t.delivery({ ...o, headers: { Authorization: value } });
  const cases: Case[] = [
    ['no Authorization header', auth(undefined)],
    ['a wrong secret', auth(`Bearer dssc-wrong-${t.runId}-0123456789`)],
    ['the secret less its last character', auth(`Bearer ${secret.slice(0, -1)}`)],
    ['the secret and one character more', auth(`Bearer ${secret}x`)],
    ['the secret followed by a space and another word', auth(`Bearer ${secret} x`)],
    ['another word, a space, then the secret', auth(`Bearer x ${secret}`)],
    ['the secret without a scheme', auth(secret)],
    ['Basic with the secret', auth(`Basic ${secret}`)],
    ['Token with the secret', auth(`Token ${secret}`)],
    ['Bearer with no value', auth('Bearer')],
    // Same length, one character changed: a comparison of a part only (a prefix, a suffix, a few characters) takes it.
    ['the secret with its middle character changed', auth(`Bearer ${changeAt(secret, Math.floor(secret.length / 2))}`)],
    // A character base64 decoding skips: a receiver comparing the decoded bytes of two base64 strings takes it.
    ['the secret with a "." inserted in the middle', auth(`Bearer ${secret.slice(0, Math.floor(secret.length / 2))}.${secret.slice(Math.floor(secret.length / 2))}`)],
    // The secret is "the only authorization on the request": whatever the body holds, it is checked first.
    ['no Authorization header, an unknown event type', auth(undefined, { event: 'sync.deleted' })],
    ['a wrong secret, an unknown event type', auth(`Bearer dssc-wrong-${t.runId}-0123456789`, { event: 'sync.deleted' })],
    ['a wrong secret, no records', auth(`Bearer dssc-wrong-${t.runId}-0123456789`, { records: [] })],
  ];
  if (swapCase(secret) !== secret) cases.splice(2, 0, ['the secret in other letter case', auth(`Bearer ${swapCase(secret)}`)]);
  if (secret.length <= 1) cases.splice(cases.findIndex(([l]) => l.includes('less its last')), 1);
  return cases;
}

check('RCV-002 a delivery without the right bearer secret is not answered 2xx', async (t) => {
  const secret = t.target.secret;
  const auth = (value: string | undefined) => t.delivery({ headers: { Authorization: value } });
  const cases = wrongSecrets(t);
  const { problems, answers } = await walk(t, cases, is2xx);
  failIfAny(problems, 'deliveries without the right secret were accepted');
  failIfAny(await refusedButProcessed(t, cases, answers), 'deliveries without the right secret were refused but processed');
  await fc.assert(
    fc.asyncProperty(fc.stringMatching(/^[!-~]{1,64}$/).filter((s) => s !== secret), async (wrong) => {
      const answer = await t.send('a random wrong secret', auth(`Bearer ${wrong}`));
      if (answer.status >= 200 && answer.status < 300) throw new Error(`the wrong secret ${JSON.stringify(wrong)}: ${answered(answer)}, a 2xx`);
    }),
    { seed: t.seed, numRuns: t.numRuns, endOnFailure: true },
  );
});

/** RCV-003's deliveries: older than the tolerance, or of an age that cannot be told. */
function tooOld(t: CheckContext): Case[] {
  const max = t.target.maxAgeSeconds;
  const aged = (s: number) => t.delivery({ timestamp: new Date(Date.now() - s * 1000) });
  return [
    ['a timestamp 1 hour old', aged(3600)],
    [`a timestamp twice the tolerance old (${2 * max} s)`, aged(2 * max)],
    ['no Service-Signature-Timestamp header', t.delivery({ headers: { 'Service-Signature-Timestamp': undefined } })],
    ['a Service-Signature-Timestamp that is not a date', t.delivery({ headers: { 'Service-Signature-Timestamp': 'not a date' } })],
  ];
}

/** RCV-004's delivery: stamped well beyond the tolerance ahead. */
function tooNew(t: CheckContext): Case[] {
  const ahead = Math.max(3600, 2 * t.target.maxAgeSeconds);
  return [[`a timestamp ${ahead} s in the future`, t.delivery({ timestamp: new Date(Date.now() + ahead * 1000) })]];
}

/**
 * Refusing is more than the answer: a delivery refused for its credential or its age is not
 * processed either (a receiver that saves first and judges after has taken its records). Seen
 * only through the inspection endpoint, once a well-formed delivery sent after them is listed;
 * otherwise the answers alone are judged, and a note says so.
 */
async function refusedButProcessed(t: CheckContext, cases: Case[], answers: Map<string, Answer>): Promise<string[]> {
  const refused = cases.filter(([label]) => { const a = answers.get(label); return a !== undefined && (a.status < 200 || a.status >= 300); });
  if (refused.length === 0 || !t.target.inspectUrl) return [];
  const control = t.delivery({ records: t.records(1) });
  const answer = await t.send('a well-formed delivery after them', control);
  if (answer.status !== 200) {
    t.note(`whether refused deliveries were processed: not observed (a well-formed delivery was ${answered(answer)})`);
    return [];
  }
  let processed: Set<string>;
  try {
    processed = new Set(await t.processedAfter(control.hashes, 'whether refused deliveries were processed'));
  } catch (error) {
    if (!(error instanceof Skip || error instanceof Unjudgeable)) throw error;
    t.note(`whether refused deliveries were processed: not observed (${error.message})`);
    return [];
  }
  return refused.filter(([, d]) => d.hashes.some((h) => processed.has(h))).map(([label]) => `${label}: refused (answered ${answers.get(label)!.status}), yet its records are listed as processed`);
}

check('RCV-003 a delivery older than the tolerance (maxAgeSeconds) is not answered 2xx', async (t) => {
  const max = t.target.maxAgeSeconds;
  const cases = tooOld(t);
  const { problems, answers } = await walk(t, cases, is2xx);
  failIfAny(problems, `deliveries older than ${max} s (or of unknown age) were accepted`);
  failIfAny(await refusedButProcessed(t, cases, answers), `deliveries older than ${max} s (or of unknown age) were refused but processed`);
});

check('RCV-004 a delivery stamped far in the future is not answered 2xx', async (t) => {
  const cases = tooNew(t);
  const { problems, answers } = await walk(t, cases, is2xx);
  failIfAny(problems, 'a delivery from the future was accepted');
  failIfAny(await refusedButProcessed(t, cases, answers), 'a delivery from the future was refused but processed');
});

/** RCV-005's cases: bodies that are not a delivery, with the right secret and a fresh timestamp. */
function malformed(t: CheckContext): Case[] {
  const good = t.delivery();
  const raw = (label: string, body: Buffer): Case => [label, t.delivery({ rawBody: body })];
  const json = (label: string, text: string): Case => [label, t.delivery({ jsonText: text })];
  const object = { id: `dssc-${t.runId}`, name: 'dssc receiver check' };
  return [
    raw('a body that is not gzip (plain JSON)', Buffer.from(good.text)),
    raw('truncated gzip', good.body.subarray(0, Math.floor(good.body.length / 2))),
    // Every byte of the JSON is there, the CRC and length are not: an inflater that flushes what it has takes it.
    raw('gzip without its 8-byte trailer', good.body.subarray(0, good.body.length - 8)),
    raw('an empty body', Buffer.alloc(0)),
    json('gzip of text that is not JSON', 'this is not JSON {'),
    json('a JSON array', '[]'),
    json('no object member', JSON.stringify({ event: 'sync.records' })),
    json('object null', JSON.stringify({ event: 'sync.records', object: null })),
    json('records not a list', JSON.stringify({ event: 'sync.records', object: { ...object, records: { hash: 'x', fields: {} } } })),
    json('a record that is not an object', JSON.stringify({ event: 'sync.records', object: { ...object, records: ['not a record'] } })),
    // The hash is what a receiver keys a record on (it 'can be used to deduplicate'); a record without fields is
    // not sent: a receiver that only counts or forwards records has no need to look at them.
    json('a record without hash', JSON.stringify({ event: 'sync.records', object: { ...object, records: [{ fields: { a: 1 } }] } })),
    json('a record whose hash is not a string', JSON.stringify({ event: 'sync.records', object: { ...object, records: [{ hash: 12345, fields: { a: 1 } }] } })),
  ];
}

check('RCV-005 malformed input is not answered 2xx', async (t) => {
  const { problems } = await walk(t, malformed(t), is2xx);
  failIfAny(problems, 'malformed deliveries were accepted');
});

/** Deliveries of event types the spec does not define, with fresh records. */
function unknownEvents(t: CheckContext): Case[] {
  return [
    ['event sync.deleted', t.delivery({ event: 'sync.deleted', records: t.records(1) })],
    ['event sync.records.v2', t.delivery({ event: 'sync.records.v2', records: t.records(1) })],
    ['event sync.record', t.delivery({ event: 'sync.record', records: t.records(1) })],
    // JSON strings are compared exactly: the spec's one event type is spelled sync.records.
    ['event SYNC.RECORDS', t.delivery({ event: 'SYNC.RECORDS', records: t.records(1) })],
    ['event Sync.Records', t.delivery({ event: 'Sync.Records', records: t.records(1) })],
    ['no event member', t.delivery({ event: null, records: t.records(1) })],
  ];
}

check('RCV-006 malformed input, unknown event types and refused deliveries are never answered 5xx', async (t) => {
  const { problems } = await walk(t, [...malformed(t), ...unknownEvents(t)], is5xx);
  // A wrong credential or a refused age is the sender's fault as much as a malformed body is. The
  // answers RCV-002 to RCV-004 got (their random wrong secrets included) are judged; sent anew only
  // when those checks did not run (--only, --exclude).
  const refusing = ['RCV-002', 'RCV-003', 'RCV-004'];
  const earlier = t.exchanges().filter((e) => refusing.includes(e.check) && e.status !== undefined && !e.label.startsWith('a well-formed delivery'));
  if (earlier.length > 0) problems.push(...earlier.filter((e) => e.status! >= 500).map((e) => `${e.check} ${e.label}: answered ${e.status}, a 5xx`));
  else problems.push(...(await walk(t, [...wrongSecrets(t), ...tooOld(t), ...tooNew(t)], is5xx)).problems);
  failIfAny(problems, 'input the receiver cannot use was answered as its own failure');
});

check('RCV-007 a delivery of an unknown event type is not processed', async (t) => {
  const unknown = unknownEvents(t);
  const { answers } = await walk(t, unknown, () => undefined);
  // Sent last: once its records are listed, any earlier processing would show too.
  const control = t.delivery({ records: t.records(2) });
  const answer = await t.send('a well-formed delivery after them', control);
  if (answer.status !== 200) throw new Skip(`precondition not met: a well-formed delivery was ${answered(answer)} (see RCV-001)`);
  const processed = new Set(await t.processedAfter(control.hashes, 'what an unknown event did'));
  const problems = unknown.filter(([, d]) => d.hashes.some((h) => processed.has(h))).map(([label]) => `${label}: its records are listed as processed (answered ${answers.get(label)?.status ?? 'nothing'})`);
  failIfAny(problems, 'deliveries of unknown event types were processed');
  t.note(`answers to unknown events: ${[...answers.values()].map((a) => a.status).join(', ')}`);
});

check('RCV-008 the same delivery sent twice is answered 200 both times', async (t) => {
  const delivery = t.delivery({ records: t.records(3) });
  const { problems } = await walk(t, [['the first time', delivery], ['the same bytes again', delivery]], not200);
  failIfAny(problems, 'a repeated delivery was not accepted');
});

check('RCV-009 records already processed (same hash) are not processed again', async (t) => {
  const [a, b, c] = t.records(3);
  const first = t.delivery({ records: [a!, b!] });
  const overlapping = t.delivery({ records: [a!, c!] });
  const { answers } = await walk(t, [['a delivery', first], ['the same delivery again', first], ['a delivery with one of its records and a new one', overlapping]], () => undefined);
  if (answers.get('a delivery')?.status !== 200) throw new Skip('precondition not met: the first delivery was not answered 200 (see RCV-001)');
  // A sender that gave up waiting sends again while the first attempt is still being processed:
  // the same bytes twice at once. A check-then-insert over an asynchronous store takes both.
  const [d] = t.records(1);
  const twin = t.delivery({ records: [d!] });
  const twins = await t.sendTogether(['the same delivery twice at once (first)', 'the same delivery twice at once (second)'], twin);
  const twinTaken = twins.some((r) => r.status === 'fulfilled' && r.value.status === 200);
  const control = t.delivery({ records: t.records(1) });
  if ((await t.send('a well-formed delivery after them', control)).status !== 200) throw new Skip('precondition not met: a well-formed delivery was not answered 200 (see RCV-001)');
  const processed = await t.processedAfter(control.hashes, 'how often a record was processed');
  const count = (h: string) => processed.filter((x) => x === h).length;
  const hashes = { 'the record sent three times': first.hashes[0]!, 'the record sent twice': first.hashes[1]!, 'the new record': overlapping.hashes[1]!, 'the record sent twice at once': twin.hashes[0]! };
  const problems = Object.entries(hashes).filter(([, h]) => count(h) > 1).map(([label, h]) => `${label} is listed ${count(h)} times`);
  failIfAny(problems, 'records were processed again');
  // Two attempts at once may both be refused (a lock answering 409, say): that record then proves nothing.
  const missing = Object.entries(hashes).filter(([label, h]) => count(h) === 0 && (twinTaken || !label.includes('at once'))).map(([label]) => label);
  if (missing.length > 0) throw new Skip(`precondition not met: not listed as processed at all: ${missing.join(', ')}`);
});

check('RCV-010 every delivery is answered within responseTimeoutMs', async (t) => {
  const bound = t.target.responseTimeoutMs;
  try {
    await t.send('a well-formed delivery', t.delivery());
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error;
  }
  const exchanges = t.exchanges();
  const late = exchanges.filter((e) => e.timedOut || (e.status !== undefined && e.ms > bound));
  const judged = exchanges.filter((e) => e.status !== undefined || e.timedOut);
  if (judged.length === 0) throw new NoAnswer('no delivery of the run got an answer', 'other', 0);
  failIfAny(late.slice(0, 20).map((e) => `${e.check} ${e.label}: ${e.timedOut ? `no answer within ${e.ms} ms` : `answered after ${e.ms} ms`}`), `deliveries answered later than ${bound} ms (${late.length} of ${judged.length})`);
  t.note(`${judged.length} answers, the slowest in ${Math.max(...judged.map((e) => e.ms))} ms`);
});
