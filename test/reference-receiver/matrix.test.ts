import { describe, expect, test } from 'vitest';
import { receiverBenignCatalogue, receiverFaultCatalogue } from '../../src/reference-receiver/index.ts';
import { judgeReference } from './judge.ts';

// The proof that every receiver check can fail, and fails only when it should: the RCV checks
// against the reference receiver over real HTTP, clean, with each fault (failing exactly the IDs
// its `breaks` names) and with each benign variant (passing everything). In this process: a CLI
// run per case would cost more than the checks do.

/** The slow faults are judged against a short bound, so that their 1.5-times-the-bound answers cost little. */
const SHORT_BOUND_MS = 2000;

test('the clean reference receiver passes every receiver check', async () => {
  const judged = await judgeReference({});
  expect(judged.summary).toBe('');
  expect(judged.results.map((r) => r.id)).toEqual(['RCV-001', 'RCV-002', 'RCV-003', 'RCV-004', 'RCV-005', 'RCV-006', 'RCV-007', 'RCV-008', 'RCV-009', 'RCV-010']);
});

describe.concurrent('the receiver checks against each reference receiver fault', () => {
  for (const fault of receiverFaultCatalogue()) {
    test(`${fault.name} fails exactly ${fault.breaks.join(', ')}`, async () => {
      const judged = await judgeReference({ fault: fault.name, ...(fault.breaks.includes('RCV-010') ? { responseTimeoutMs: SHORT_BOUND_MS } : {}) });
      expect(judged.failed, judged.summary).toEqual([...fault.breaks].sort());
    });
  }
});

describe.concurrent('the receiver checks under each benign variant of the reference receiver', () => {
  for (const variant of receiverBenignCatalogue()) {
    test(`${variant.name} passes every check`, async () => {
      expect((await judgeReference({ variant: variant.name })).summary).toBe('');
    });
  }
});
