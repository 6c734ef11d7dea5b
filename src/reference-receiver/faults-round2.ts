import { timingSafeEqual } from 'node:crypto';
import { wrap, type ReceiverDeviation } from './catalogue.ts';
import { BadInput } from './steps.ts';

// Receiver faults of the second held-out round (test/fixtures/held-out-receivers/): each a class
// of customer receiver the checks did not see before, kept as the proof that they now do. Each is
// the reference receiver with one rule broken, like faults.ts; the receiver fault matrix holds
// them to `breaks` exactly.

/** Above this a socket read of loopback TCP hands over the rest in another chunk. */
const ONE_READ_BYTES = 64 * 1024;

/** How long after its answer `dedup-write-after-answer` writes a delivery's hashes: far past the gap between two attempts sent at once. */
const STORE_WRITE_MS = 1000;

export const receiverFaultsRound2: readonly ReceiverDeviation[] = [
  // RCV-001: well-formed deliveries of a value the checks did not send before.
  {
    name: 'refuses-batches-over-100',
    breaks: ['RCV-001'],
    description: 'Reads "at most one batch of records (batch size default 100)" as a cap: refuses (400) a delivery of more than 100 records, though the batch size is overridable and no maximum is shown.',
    apply: (steps) => wrap(steps, 'shape', (shape) => (value) => {
      const delivery = shape(value);
      if (delivery.object.records.length > 100) throw new BadInput('more than 100 records in one delivery');
      return delivery;
    }),
  },
  {
    name: 'crashes-on-empty-batch',
    breaks: ['RCV-001'],
    description: 'Logs each batch by its first record\'s hash: a delivery whose records list is empty crashes it (500).',
    apply: (steps) => wrap(steps, 'process', (process) => (delivery, log, incoming) => {
      void delivery.object.records[0]!.hash.length;
      return process(delivery, log, incoming);
    }),
  },
  {
    name: 'reads-first-chunk-only',
    breaks: ['RCV-001'],
    description: 'Takes the first 64 KiB read of the body for the whole of it: a larger delivery (long field values) is cut and refused (400) as bad gzip.',
    apply: (steps) => wrap(steps, 'decode', (decode) => (incoming) => decode({ ...incoming, body: incoming.body.subarray(0, ONE_READ_BYTES) })),
  },
  {
    name: 'timestamp-millis-only',
    breaks: ['RCV-001'],
    description: 'Takes Service-Signature-Timestamp only in toISOString\'s spelling (three fractional digits, Z): a stamp to the whole second, with more digits or with +00:00 is refused (401).',
    apply: (steps) => wrap(steps, 'checkTimestamp', (check) => (stamp, now, maxAge) =>
      stamp !== undefined && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(stamp) ? 'Service-Signature-Timestamp is not YYYY-MM-DDTHH:MM:SS.sssZ' : check(stamp, now, maxAge)),
  },
  {
    name: 'requires-sha256-hashes',
    breaks: ['RCV-001'],
    description: 'Refuses (400) a record whose hash is not 64 hex digits (a SHA-256), though the spec types hash as a string only.',
    apply: (steps) => wrap(steps, 'shape', (shape) => (value) => {
      const delivery = shape(value);
      if (!delivery.object.records.every((r) => /^[0-9a-f]{64}$/.test(r.hash))) throw new BadInput('a hash is not a SHA-256 hex digest');
      return delivery;
    }),
  },
  // RCV-002: the secret checked only on the bodies it processes.
  {
    name: 'acks-unknown-events-before-auth',
    breaks: ['RCV-002'],
    description: 'Checks the secret only for sync.records: an event type it does not know is acknowledged (200) whatever the Authorization header holds.',
    apply: (steps) => {
      // judge() runs authorize through shape without a pause, so the verdict of this request is the one read.
      let authorized = false;
      wrap(steps, 'authorize', (authorize) => (authorization, secret) => {
        authorized = authorize(authorization, secret);
        return true;
      });
      wrap(steps, 'shape', (shape) => (value) => {
        if (!authorized) throw new BadInput('missing or wrong bearer secret');
        return shape(value);
      });
    },
  },
  {
    name: 'processes-then-checks-secret',
    breaks: ['RCV-002'],
    description: 'Saves the records of every delivery first and checks the secret after: a delivery without the right secret is refused (400), but its records, whatever its event type, are processed.',
    apply: (steps) => {
      let authorized = false;
      wrap(steps, 'authorize', (authorize) => (authorization, secret) => {
        authorized = authorize(authorization, secret);
        return true;
      });
      // Unauthorized bodies go the whole way to process (an unknown event type too), then are refused.
      wrap(steps, 'knows', (knows) => (event) => !authorized || knows(event));
      wrap(steps, 'process', (process) => (delivery, log, incoming) => {
        const added = process(delivery, log, incoming);
        if (!authorized) throw new BadInput('missing or wrong bearer secret');
        return added;
      });
    },
  },
  // RCV-003 and RCV-004: refused in the answer, yet processed.
  {
    name: 'processes-stale-then-refuses',
    breaks: ['RCV-003', 'RCV-004'],
    description: 'Saves the records first "so nothing is lost" and judges the timestamp after: a delivery too old, too far ahead or unstamped is refused (400), but its records are processed.',
    apply: (steps) => {
      let stale: string | undefined;
      wrap(steps, 'checkTimestamp', (check) => (stamp, now, maxAge) => {
        stale = check(stamp, now, maxAge);
        return undefined;
      });
      wrap(steps, 'process', (process) => (delivery, log, incoming) => {
        const added = process(delivery, log, incoming);
        if (stale !== undefined) throw new BadInput(stale);
        return added;
      });
    },
  },
  // RCV-006: a refused credential answered as the receiver's own failure.
  {
    name: '500-on-secret-length',
    breaks: ['RCV-006'],
    description: 'Compares the whole Authorization value with timingSafeEqual, which throws when the lengths differ: a credential of another length is answered 500, not refused with a 4xx.',
    apply: (steps) => wrap(steps, 'authorize', () => (authorization, secret) => timingSafeEqual(Buffer.from(authorization ?? ''), Buffer.from(`Bearer ${secret}`))),
  },
  // RCV-009: a record processed twice when two attempts overlap.
  {
    name: 'dedup-write-after-answer',
    breaks: ['RCV-009'],
    description: `Checks the hashes it has, processes the new ones and writes them to its store behind the answer (${STORE_WRITE_MS} ms later): the same delivery sent twice at once is processed twice.`,
    apply: (steps) => {
      const stored = new Set<string>();
      wrap(steps, 'process', () => (delivery, log) => {
        const fresh = [...new Set(delivery.object.records.map((r) => r.hash))].filter((h) => !stored.has(h));
        log.list.push(...fresh);
        return fresh.length;
      });
      wrap(steps, 'answer', (answer) => async (outcome, signal) => {
        if (outcome.kind === 'accepted') {
          // Written behind, after the answer: a second of window, so the overlap the check makes is
          // seen however busy the machine (a window of a few ms would depend on scheduling).
          const hashes = outcome.delivery.object.records.map((r) => r.hash);
          setTimeout(() => hashes.forEach((h) => stored.add(h)), STORE_WRITE_MS).unref();
        }
        return answer(outcome, signal);
      });
    },
  },
];
