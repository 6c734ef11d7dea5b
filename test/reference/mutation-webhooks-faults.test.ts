import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mutationWebhookFaults } from '../../src/reference/faults/mutation-webhooks.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { start } from './helpers.ts';
import { createSource, createWebhookSync, rows, runOnce } from './webhook-helpers.ts';

// One probe per fault of faults/mutation-webhooks.ts (mutants of the delivery code the suite once
// let through), over real loopback to the capturing receiver.

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const probes: Record<string, (ref: RunningReference) => Promise<void>> = {
  'capture-off-run-fails': async (ref) => {
    const channel = receiver.channel();
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(5)), { configuration: { record_requests: false } });
    const { run, deliveries } = await runOnce(ref, channel, syncId);
    // The receiver got the batch (and answered 200, its default), yet the run failed.
    expect(deliveries).toHaveLength(1);
    expect(run.status).toBe('failed');
    expect(run.requests).toBeNull();
  },
};

describe('mutation webhook faults', () => {
  test('every fault of mutation-webhooks.ts has a probe here', () => {
    expect(Object.keys(probes).sort()).toEqual(mutationWebhookFaults.map((f) => f.name).sort());
  });

  test.each(mutationWebhookFaults.map((f) => f.name))('%s shows its deviation', async (name) => {
    const ref = await start({ faults: [name] });
    try {
      await probes[name]!(ref);
    } finally {
      await ref.close();
    }
  });
});
