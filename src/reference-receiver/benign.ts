import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { wrap, type ReceiverDeviation } from './catalogue.ts';
import { sameSecret } from '../reference/auth.ts';

// Benign variants: the reference receiver made conforming-but-unusual in one way each. Every
// receiver check must pass under each (test/reference-receiver/matrix.test.ts): a check that
// fails here asks more than the spec does.

const json = (status: number, body: unknown) => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Within any sensible bound, and well inside the default 10 s even on a busy machine. */
const WITHIN_BOUND_MS = 200;

export const receiverBenignVariants: readonly ReceiverDeviation[] = [
  {
    name: 'answers-200-with-body',
    breaks: [],
    description: 'Answers an accepted delivery 200 with a JSON body counting the records.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) =>
      outcome.kind === 'accepted' ? json(200, { received: outcome.delivery.object.records.length, new: outcome.added }) : answer(outcome, signal)),
  },
  {
    name: 'bad-secret-403',
    breaks: [],
    description: 'Answers a missing or wrong secret 403 Forbidden instead of 401.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'unauthorized' ? json(403, { error: 'forbidden' }) : answer(outcome, signal))),
  },
  {
    name: 'bad-secret-400',
    breaks: [],
    description: 'Answers a missing or wrong secret 400 with a plain-text body.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) =>
      outcome.kind === 'unauthorized' ? { status: 400, headers: { 'content-type': 'text/plain' }, body: 'bad credentials' } : answer(outcome, signal)),
  },
  {
    name: 'challenge-401',
    breaks: [],
    description: 'Answers a bad secret 401 with a WWW-Authenticate: Bearer challenge and no body.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) =>
      outcome.kind === 'unauthorized' ? { status: 401, headers: { 'www-authenticate': 'Bearer realm="webhooks"' } } : answer(outcome, signal)),
  },
  {
    name: 'stale-422',
    breaks: [],
    description: 'Answers a timestamp out of tolerance 422 instead of 401.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'stale' ? json(422, { error: outcome.reason }) : answer(outcome, signal))),
  },
  {
    name: 'tolerance-60s',
    breaks: [],
    description: 'Accepts timestamps up to 60 s away instead of 300 s ("a few minutes" is not a number).',
    apply: (steps) => wrap(steps, 'checkTimestamp', (check) => (stamp, now, maxAge) => check(stamp, now, Math.min(maxAge, 60))),
  },
  {
    name: 'malformed-422',
    breaks: [],
    description: 'Answers input it cannot read 422 Unprocessable Content instead of 400.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'malformed' ? json(422, { error: outcome.reason }) : answer(outcome, signal))),
  },
  {
    name: 'unknown-event-400',
    breaks: [],
    description: 'Refuses (400) an event type it does not know, without processing it, instead of acknowledging it 200.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'unknown-event' ? json(400, { error: `unknown event ${outcome.event}` }) : answer(outcome, signal))),
  },
  {
    name: 'unknown-event-202',
    breaks: [],
    description: 'Acknowledges an event type it does not know with 202 Accepted, without processing it.',
    apply: (steps) => wrap(steps, 'answer', (answer) => (outcome, signal) => (outcome.kind === 'unknown-event' ? { status: 202 } : answer(outcome, signal))),
  },
  {
    name: 'slow-within-bound',
    breaks: [],
    description: `Answers every delivery it accepts after ${WITHIN_BOUND_MS} ms (it processes before answering).`,
    apply: (steps) => wrap(steps, 'answer', (answer) => async (outcome, signal) => {
      if (outcome.kind === 'accepted') await sleep(WITHIN_BOUND_MS, undefined, { signal });
      return answer(outcome, signal);
    }),
  },
  {
    name: 'processes-in-reverse',
    breaks: [],
    description: 'Processes the records of a batch last to first (the spec gives records no order).',
    apply: (steps) => wrap(steps, 'process', (process) => (delivery, log, incoming) =>
      process({ ...delivery, object: { ...delivery.object, records: [...delivery.object.records].reverse() } }, log, incoming)),
  },
  {
    name: 'gzip-by-magic-only',
    breaks: [],
    description: 'Ignores Content-Encoding entirely and reads the body as gzip by its first bytes.',
    apply: (steps) => wrap(steps, 'decode', (decode) => (incoming) => decode({ ...incoming, headers: { ...incoming.headers, 'content-encoding': undefined } })),
  },
  {
    name: 'closes-connections',
    breaks: [],
    description: 'Answers every request with Connection: close (no keep-alive) and extra headers.',
    apply: (steps) => wrap(steps, 'answer', (answer) => async (outcome, signal) => {
      const given = await answer(outcome, signal);
      return { ...given, headers: { ...given.headers, connection: 'close', 'x-request-id': 'r-1', 'cache-control': 'no-store' } };
    }),
  },
  {
    name: 'chunked-shouting-answers',
    breaks: [],
    description: 'Answers with a chunked body ("ok") and no Content-Length, its header names in capitals.',
    apply: (steps) => wrap(steps, 'answer', (answer) => async (outcome, signal) => {
      const given = await answer(outcome, signal);
      const headers = Object.fromEntries(Object.entries(given.headers ?? {}).map(([n, v]) => [n.toUpperCase(), v]));
      return { ...given, headers: { ...headers, 'TRANSFER-ENCODING': 'chunked', 'X-RECEIVER': 'variant' }, body: given.body ?? 'ok' };
    }),
  },
  {
    name: 'bearer-exact-case',
    breaks: [],
    description: 'Takes the scheme only as the spec spells it, "Bearer": "bearer <secret>" is refused.',
    apply: (steps) => wrap(steps, 'authorize', () => (authorization, secret) => {
      const value = /^Bearer ([^ ]+)$/.exec(authorization ?? '')?.[1];
      return value !== undefined && sameSecret(value, secret);
    }),
  },
  {
    name: 'processes-after-answering',
    breaks: [],
    description: `Answers first and processes each delivery ${WITHIN_BOUND_MS} ms later (a queue behind the endpoint), in the order received.`,
    apply: (steps) => wrap(steps, 'process', (process) => (delivery, log, incoming) => {
      setTimeout(() => process(delivery, log, incoming), WITHIN_BOUND_MS).unref();
      return delivery.object.records.length;
    }),
  },
  {
    name: 'dedups-by-fields',
    breaks: [],
    description: 'Deduplicates by the content of the fields (its own digest of them), not by the hash the delivery carries.',
    apply: (steps) => {
      const digests = new Set<string>();
      const digest = (fields: Record<string, unknown>) => createHash('sha256').update(JSON.stringify(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : 1)))).digest('hex');
      wrap(steps, 'process', () => (delivery, log) => {
        let added = 0;
        for (const { hash, fields } of delivery.object.records) {
          const d = digest(fields);
          if (digests.has(d)) continue;
          digests.add(d);
          log.list.push(hash);
          added++;
        }
        return added;
      });
    },
  },
];
