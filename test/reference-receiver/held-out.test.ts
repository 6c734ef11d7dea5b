import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { judgeReceiver } from './judge.ts';

// The second held-out round of customer-written receivers (test/fixtures/held-out-receivers/: small
// .mjs files written from the spec alone, before the receiver checks were read), each judged in this
// process on an ephemeral loopback port. Conforming ones must pass every check; each faulty one must
// fail exactly the IDs its bug breaks (strict: a SHOULD failure counts). Its class is proven on the
// reference receiver too (src/reference-receiver/faults-round2.ts, the receiver fault matrix).

interface HeldOut {
  start(o: { secret: string; port?: number }): Promise<{ url: string; inspectUrl: string; close(): Promise<void> }>;
}

/** Receiver file → the IDs it must fail ([] for a conforming one). */
const EXPECTED: Record<string, string[]> = {
  'ack-then-process': [],
  'strict-headers': [],
  'body-sha-dedupe': ['RCV-009'],
  'records-cap': ['RCV-001'],
  'empty-batch-crash': ['RCV-001'],
  'first-chunk': ['RCV-001'],
  'ack-unknown-first': ['RCV-002'],
  'async-dedupe-race': ['RCV-009'],
  'stale-after-save': ['RCV-003', 'RCV-004'],
  // Refuses every delivery the kit builds: its repeat too (RCV-008); RCV-007 and RCV-009 are skipped.
  'hash-hex16': ['RCV-001', 'RCV-008'],
  'timestamp-strict': ['RCV-001', 'RCV-008'],
  'timingsafe-throws': ['RCV-006'],
  'timestamp-roundtrip': ['RCV-001'],
  'hash-sha256': ['RCV-001'],
};

describe.concurrent('the held-out customer receivers', () => {
  for (const [name, breaks] of Object.entries(EXPECTED)) {
    test(`${name} ${breaks.length ? `fails exactly ${breaks.join(', ')}` : 'passes every check'}`, async () => {
      const { start } = (await import(`../fixtures/held-out-receivers/${name}.mjs`)) as HeldOut;
      const secret = `whsec_${randomBytes(18).toString('base64url')}`;
      const receiver = await start({ secret, port: 0 });
      try {
        const judged = await judgeReceiver({ url: receiver.url, inspectUrl: receiver.inspectUrl, secret, maxAgeSeconds: 300, responseTimeoutMs: 10_000 });
        if (breaks.length === 0) expect(judged.summary).toBe('');
        else expect(judged.failed, judged.summary).toEqual(breaks);
      } finally {
        await receiver.close();
      }
    });
  }
});
