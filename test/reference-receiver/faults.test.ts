import { describe, expect, test } from 'vitest';
import { receiverBenignCatalogue, receiverFaultCatalogue, startReferenceReceiver, type ReferenceReceiverOptions } from '../../src/reference-receiver/index.ts';
import { failingProbes } from './probes.ts';

// Each receiver fault, over HTTP, does the harm its `breaks` names and no other (by the probes in
// probes.ts, a miniature of the RCV checks); each benign variant and the clean receiver do none.

const SECRET = 'whsec_Q2hhbmdlTWUhIDEyMzQ1Njc4OTA';
/** The probes' answer bound, and the slow faults' delay just beyond it. */
const BOUND_MS = 3000;

async function failing(opts: Omit<ReferenceReceiverOptions, 'secret'>): Promise<Record<string, string[]>> {
  const receiver = await startReferenceReceiver({ secret: SECRET, slowMs: BOUND_MS + 500, ...opts });
  try {
    return await failingProbes({ ...receiver, secret: SECRET, boundMs: BOUND_MS });
  } finally {
    await receiver.close();
  }
}

test('the clean reference receiver passes every probe', async () => {
  expect(await failing({})).toEqual({});
});

describe.concurrent('each receiver fault', () => {
  for (const fault of receiverFaultCatalogue()) {
    test(`${fault.name} breaks exactly ${fault.breaks.join(', ')}`, async () => {
      const found = await failing({ fault: fault.name });
      expect(Object.keys(found).sort(), JSON.stringify(found)).toEqual([...fault.breaks].sort());
    });
  }
});

describe.concurrent('each receiver benign variant', () => {
  for (const variant of receiverBenignCatalogue()) {
    test(`${variant.name} breaks nothing`, async () => {
      expect(await failing({ variant: variant.name })).toEqual({});
    });
  }
});

test('an unknown fault or variant is a usage error naming the known ones', async () => {
  await expect(startReferenceReceiver({ secret: SECRET, fault: 'nope' })).rejects.toThrow(/unknown receiver fault "nope"; known: answers-204/);
  await expect(startReferenceReceiver({ secret: SECRET, variant: 'nope' })).rejects.toThrow(/unknown receiver variant/);
});
