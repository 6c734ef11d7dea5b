import { createHash, timingSafeEqual } from 'node:crypto';
import { constants as zlibConstants, gunzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { wrap, type ReceiverDeviation } from './catalogue.ts';
import { BadInput, gunzip, looksGzipped, type DeliveryRecord } from './steps.ts';

// Receiver faults: the reference receiver with one rule broken on purpose, each the way a real
// receiver gets it wrong. The receiver checks must fail exactly the IDs in `breaks` (the receiver
// fault matrix, test/reference-receiver/matrix.test.ts); src/reference/README.md lists them.

const bearerValue = (authorization: string | undefined) => /^bearer (.*)$/i.exec(authorization ?? '')?.[1];
const isUnsafeInteger = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v);

export const receiverFaults: readonly ReceiverDeviation[] = [
  // RCV-001: a well-formed delivery answered something else than 200.
  {
    name: 'answers-204',
    breaks: ['RCV-001', 'RCV-008'],
    description: 'Answers an accepted delivery 204 No Content instead of 200 OK.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'accepted' ? { status: 204 } : answer(outcome, signal))),
  },
  {
    name: 'refuses-large-batches',
    breaks: ['RCV-001'],
    description: 'Refuses (400) a delivery of more than 50 records, below the spec\'s default batch size of 100.',
    apply: (steps) => wrap(steps, 'shape', (shape) => (value) => {
      const delivery = shape(value);
      if (delivery.object.records.length > 50) throw new BadInput('too many records');
      return delivery;
    }),
  },
  {
    name: 'rejects-large-integers',
    breaks: ['RCV-001'],
    description: 'Refuses (400) a delivery holding an integer beyond 2^53, which JSON allows and JavaScript cannot hold exactly.',
    apply: (steps) => wrap(steps, 'parse', (parse) => (bytes) => {
      const value = parse(bytes);
      JSON.parse(bytes.toString('utf8'), (_key, v: unknown) => {
        if (isUnsafeInteger(v)) throw new BadInput('an integer is out of range');
        return v;
      });
      return value;
    }),
  },
  {
    name: 'rejects-non-ascii',
    breaks: ['RCV-001'],
    description: 'Refuses (400) a delivery whose JSON holds any byte outside ASCII (non-ASCII text).',
    apply: (steps) => wrap(steps, 'decode', (decode) => (incoming) => {
      const bytes = decode(incoming);
      if (bytes.some((b) => b > 0x7f)) throw new BadInput('non-ASCII input');
      return bytes;
    }),
  },
  {
    name: 'crashes-on-null-fields',
    breaks: ['RCV-001'],
    description: 'Crashes (500) on a record with a null field value, reading every value as a string.',
    apply: (steps) => wrap(steps, 'process', (process) => (delivery, log, incoming) => {
      for (const record of delivery.object.records) for (const v of Object.values(record.fields)) (v as { toString(): string }).toString();
      return process(delivery, log, incoming);
    }),
  },
  {
    name: 'requires-content-encoding',
    breaks: ['RCV-001', 'RCV-005', 'RCV-008'],
    description: 'Reads the body as gzip only when Content-Encoding: gzip is sent (the spec lists no such header), else as plain JSON: refuses (400) every delivery of the spec\'s shape, and takes a plain JSON one.',
    apply: (steps) => wrap(steps, 'decode', () => (incoming) => {
      const encoding = String(incoming.headers['content-encoding'] ?? '').toLowerCase();
      return encoding === 'gzip' ? gunzip(incoming.body) : incoming.body;
    }),
  },
  // RCV-002: a delivery without the right bearer secret answered 2xx.
  {
    name: 'accepts-any-secret',
    breaks: ['RCV-002'],
    description: 'Accepts any Authorization value under the Bearer scheme, an empty one too: the secret is never compared.',
    apply: (steps) => wrap(steps, 'authorize', () => (authorization) => /^bearer\b/i.test(authorization ?? '')),
  },
  {
    name: 'accepts-secret-prefix',
    breaks: ['RCV-002'],
    description: 'Accepts a bearer value that is a non-empty prefix of the secret (compares only the characters given).',
    apply: (steps) => wrap(steps, 'authorize', () => (authorization, secret) => {
      const value = bearerValue(authorization);
      return !!value && secret.startsWith(value);
    }),
  },
  {
    name: 'case-insensitive-secret',
    breaks: ['RCV-002'],
    description: 'Compares the bearer value with the secret ignoring case.',
    apply: (steps) => wrap(steps, 'authorize', () => (authorization, secret) => bearerValue(authorization)?.toLowerCase() === secret.toLowerCase()),
  },
  {
    name: 'accepts-any-scheme',
    breaks: ['RCV-002'],
    description: 'Takes the credential after any scheme (Basic, Token, …): only the last word of Authorization is compared.',
    apply: (steps) => wrap(steps, 'authorize', (authorize) => (authorization, secret) => authorize(`Bearer ${authorization?.trim().split(' ').at(-1) ?? ''}`, secret)),
  },
  {
    name: 'compares-decoded-secret',
    breaks: ['RCV-002'],
    description: 'Compares the base64-decoded bytes of the bearer value and of the secret (constant time, equal lengths): decoding skips characters outside the alphabet, so the secret with a "." inserted is taken.',
    apply: (steps) => wrap(steps, 'authorize', () => (authorization, secret) => {
      const given = Buffer.from(bearerValue(authorization) ?? '', 'base64');
      const stored = Buffer.from(secret, 'base64');
      return given.length > 0 && given.length === stored.length && timingSafeEqual(given, stored);
    }),
  },
  // RCV-003 and RCV-004: the timestamp's age.
  {
    name: 'ignores-timestamp',
    breaks: ['RCV-003', 'RCV-004'],
    description: 'Never looks at Service-Signature-Timestamp.',
    apply: (steps) => wrap(steps, 'checkTimestamp', () => () => undefined),
  },
  {
    name: 'tolerance-in-minutes',
    breaks: ['RCV-003', 'RCV-004'],
    description: 'Reads the tolerance in minutes where it is seconds: 300 becomes five hours.',
    apply: (steps) => wrap(steps, 'checkTimestamp', (check) => (stamp, now, maxAge) => check(stamp, now, maxAge * 60)),
  },
  {
    name: 'rejects-only-future',
    breaks: ['RCV-003'],
    description: 'Subtracts the wrong way round: refuses stamps ahead of the clock and accepts any old one.',
    apply: (steps) => wrap(steps, 'checkTimestamp', (check) => (stamp, now, maxAge) => {
      const problem = check(stamp, now, maxAge);
      return problem !== undefined && stamp !== undefined && Date.parse(stamp) < now ? undefined : problem;
    }),
  },
  {
    name: 'accepts-future-timestamps',
    breaks: ['RCV-004'],
    description: 'Checks only that a stamp is not too old: a stamp an hour ahead passes.',
    apply: (steps) => wrap(steps, 'checkTimestamp', (check) => (stamp, now, maxAge) => {
      const problem = check(stamp, now, maxAge);
      return problem !== undefined && stamp !== undefined && Date.parse(stamp) > now ? undefined : problem;
    }),
  },
  {
    name: 'future-skew-one-day',
    breaks: ['RCV-004'],
    description: 'Allows a day of clock skew ahead of its clock (and the right tolerance behind it).',
    apply: (steps) => wrap(steps, 'checkTimestamp', (check) => (stamp, now, maxAge) => {
      const at = stamp === undefined ? NaN : Date.parse(stamp);
      return at > now && at - now <= 86_400_000 ? undefined : check(stamp, now, maxAge);
    }),
  },
  // RCV-005: malformed input answered 2xx.
  {
    name: 'accepts-plain-json',
    breaks: ['RCV-005'],
    description: 'Reads a body that is not gzip as plain JSON.',
    apply: (steps) => wrap(steps, 'decode', (decode) => (incoming) => (looksGzipped(incoming.body) ? decode(incoming) : incoming.body)),
  },
  {
    name: 'ok-on-bad-input',
    breaks: ['RCV-005'],
    description: 'Answers 200 to input it cannot read (not gzip, not JSON, not the delivery shape), dropping it.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'malformed' ? { status: 200 } : answer(outcome, signal))),
  },
  {
    name: 'lenient-shape',
    breaks: ['RCV-005'],
    description: 'Takes a body without object or records, or with records not a list, as a delivery of no records.',
    apply: (steps) => wrap(steps, 'shape', (shape) => (value) => {
      const v = value as { object?: { records?: unknown } };
      return typeof v.object === 'object' && v.object !== null && Array.isArray(v.object.records) ? shape(value) : { event: 'sync.records', object: { records: [] } };
    }),
  },
  {
    name: 'inflates-without-trailer',
    breaks: ['RCV-005'],
    description: 'Inflates with a sync flush (as a streaming reader that stops at the end of the input does): gzip cut before its CRC and length trailer is taken.',
    apply: (steps) => wrap(steps, 'decode', (decode) => (incoming) => {
      if (!looksGzipped(incoming.body)) return decode(incoming);
      try {
        return gunzipSync(incoming.body, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
      } catch (error) {
        throw new BadInput(`not gzip (${(error as Error).message})`);
      }
    }),
  },
  {
    name: 'records-without-hash-taken',
    breaks: ['RCV-005'],
    description: 'Checks only that each record is an object: a record without hash, or with a number as its hash, is taken.',
    apply: (steps) => wrap(steps, 'shape', (shape) => (value) => {
      const v = value as { object?: { records?: unknown } };
      const records = Array.isArray(v.object?.records) ? v.object.records : undefined;
      if (!records?.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r))) return shape(value);
      return shape({ ...v, object: { ...v.object, records: records.map((r: Record<string, unknown>) => ({ fields: {}, ...r, hash: String(r.hash) })) } });
    }),
  },
  // RCV-006: malformed input or an unknown event answered 5xx.
  {
    name: '500-on-bad-input',
    breaks: ['RCV-006'],
    description: 'Answers 500 to input it cannot read, as if it had failed itself.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'malformed' ? { status: 500 } : answer(outcome, signal))),
  },
  {
    name: 'crashes-on-non-gzip',
    breaks: ['RCV-006'],
    description: 'Lets the decompressor\'s error escape on a body that is not (whole) gzip: 500.',
    apply: (steps) => wrap(steps, 'decode', (decode) => (incoming) => {
      try {
        return decode(incoming);
      } catch (error) {
        throw new Error(`zlib: ${(error as Error).message}`);
      }
    }),
  },
  {
    name: 'crashes-on-bad-shape',
    breaks: ['RCV-005', 'RCV-006'],
    description: 'Trusts the body\'s shape: a body without object.records (or with records not a list) crashes it (500), and a record without a string hash is taken.',
    apply: (steps) => wrap(steps, 'shape', () => (value) => {
      const delivery = value as { object: { records: DeliveryRecord[] } };
      for (const record of delivery.object.records) Object.keys(record.fields);
      return value as never;
    }),
  },
  {
    name: '500-on-unknown-event',
    breaks: ['RCV-006'],
    description: 'Answers 500 to an event type it does not know.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'unknown-event' ? { status: 500 } : answer(outcome, signal))),
  },
  // RCV-007: an unknown event type processed.
  {
    name: 'processes-unknown-events',
    breaks: ['RCV-007'],
    description: 'Processes the records of any event type.',
    apply: (steps) => wrap(steps, 'knows', () => () => true),
  },
  {
    name: 'event-case-insensitive',
    breaks: ['RCV-007'],
    description: 'Takes the event type in any letter case: SYNC.RECORDS and Sync.Records are processed as sync.records.',
    apply: (steps) => wrap(steps, 'knows', (knows) => (event) => knows(event.toLowerCase())),
  },
  {
    name: 'processes-then-refuses-unknown',
    breaks: ['RCV-007'],
    description: 'Processes the records first and only then refuses (400) an event type it does not know.',
    apply: (steps) => {
      let lastEvent = '';
      wrap(steps, 'eventOf', (eventOf) => (value) => (lastEvent = eventOf(value)));
      wrap(steps, 'knows', () => () => true);
      wrap(steps, 'answer', (answer) => (outcome, signal) =>
        outcome.kind === 'accepted' && lastEvent !== 'sync.records' ? { status: 400 } : answer(outcome, signal));
    },
  },
  // RCV-008: the same delivery twice not answered 200 twice.
  {
    name: '409-on-duplicate',
    breaks: ['RCV-008'],
    description: 'Answers 409 Conflict to a delivery whose body it has seen before.',
    apply: (steps) => {
      const bodies = new Set<string>();
      let repeated = false;
      wrap(steps, 'decode', (decode) => (incoming) => {
        const digest = createHash('sha256').update(incoming.body).digest('hex');
        repeated = bodies.has(digest);
        bodies.add(digest);
        return decode(incoming);
      });
      wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'accepted' && repeated ? { status: 409 } : answer(outcome, signal)));
    },
  },
  {
    name: 'refuses-nothing-new',
    breaks: ['RCV-008'],
    description: 'Refuses (400) a delivery all of whose records were processed before.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) =>
      outcome.kind === 'accepted' && outcome.added === 0 && outcome.delivery.object.records.length > 0 ? { status: 400, body: 'nothing new' } : answer(outcome, signal)),
  },
  // RCV-009: a record processed again.
  {
    name: 'processes-duplicates',
    breaks: ['RCV-009'],
    description: 'Processes every record it gets, the ones already processed too (no deduplication).',
    apply: (steps) => wrap(steps, 'process', () => (delivery, log) => {
      for (const { hash } of delivery.object.records) log.list.push(hash);
      return delivery.object.records.length;
    }),
  },
  {
    name: 'dedups-per-delivery',
    breaks: ['RCV-009'],
    description: 'Deduplicates by hash within one delivery only: a record delivered again later is processed again.',
    apply: (steps) => wrap(steps, 'process', (process) => (delivery, log, incoming) => {
      const local = { list: [] as string[], seen: new Set<string>() };
      const added = process(delivery, local, incoming);
      log.list.push(...local.list);
      return added;
    }),
  },
  // RCV-010: an answer later than the bound.
  {
    name: 'slow-on-full-batches',
    breaks: ['RCV-010'],
    description: 'Takes 1.5 times the answer bound to answer a batch of 100 records (each record processed slowly).',
    apply: (steps, { slowMs }) => wrap(steps, 'answer', (answer) => async (outcome, signal) => {
      if (outcome.kind === 'accepted' && outcome.delivery.object.records.length >= 100) await sleep(slowMs, undefined, { signal });
      return answer(outcome, signal);
    }),
  },
  {
    name: 'slow-on-duplicates',
    breaks: ['RCV-010'],
    description: 'Takes 1.5 times the answer bound to answer a delivery that brings no new record (a slow reconciliation of what it already has).',
    apply: (steps, { slowMs }) => wrap(steps, 'answer', (answer) => async (outcome, signal) => {
      if (outcome.kind === 'accepted' && outcome.added === 0 && outcome.delivery.object.records.length > 0) await sleep(slowMs, undefined, { signal });
      return answer(outcome, signal);
    }),
  },
];
