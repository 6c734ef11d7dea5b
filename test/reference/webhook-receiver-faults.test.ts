import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deliveryReceiverFaults, deliveryReceiverVariants } from '../../src/reference/faults/delivery-receiver.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Channel, type Delivery, type Receiver } from '../../src/receiver/index.ts';
import { start } from './helpers.ts';
import { createSource, createWebhookSync, recordsOf, rows, runOnce } from './webhook-helpers.ts';

// One probe per fault of faults/delivery-receiver.ts, over real loopback to the capturing
// receiver: each shows the deviation its fault promises, and that the run still ends.

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** A sync over `count` rows in batches of `batch`, its channel answering `script` then `then`. */
async function runWith(ref: RunningReference, count: number, batch: number, script: number[] = [], then = 200): Promise<{ run: any; deliveries: Delivery[]; channel: Channel }> {
  const channel = receiver.channel();
  channel.script(script, then);
  const source = await createSource(ref, rows(count));
  const { syncId } = await createWebhookSync(ref, channel, source, { configuration: { batch_size: batch } });
  return { ...(await runOnce(ref, channel, syncId)), channel };
}

const stamp = (d: Delivery): number => Date.parse(d.headers['service-signature-timestamp']!);
const statuses = (run: any): unknown[] => run.requests.map((e: any) => e.response?.status ?? e.response?.error ?? null);

const probes: Record<string, (ref: RunningReference) => Promise<void>> = {
  'middle-batch-failure-completes': async (ref) => {
    const middle = await runWith(ref, 5, 2, [200], 410);
    expect(middle.deliveries.map((d) => d.response.status)).toEqual([200, 410]);
    expect(middle.run).toMatchObject({ status: 'completed', errors: [] });
    expect((await runWith(ref, 4, 2, [200], 410)).run.status).toBe('failed');
    expect((await runWith(ref, 5, 2, [], 410)).run.status).toBe('failed');
  },
  'last-batch-failure-completes': async (ref) => {
    expect((await runWith(ref, 5, 2, [200, 200], 503)).run.status).toBe('completed');
    expect((await runWith(ref, 5, 2, [200], 503)).run.status).toBe('failed');
    expect((await runWith(ref, 2, 2, [], 503)).run.status).toBe('failed');
  },
  'single-batch-failure-completes': async (ref) => {
    expect((await runWith(ref, 2, 2, [], 429)).run.status).toBe('completed');
    expect((await runWith(ref, 5, 2, [], 429)).run.status).toBe('failed');
  },
  'default-size-later-batch-failure-completes': async (ref) => {
    const later = await runWith(ref, 201, 100, [200], 410);
    expect(later.deliveries.map((d) => d.response.status)).toEqual([200, 410]);
    expect(later.run.status).toBe('completed');
    expect((await runWith(ref, 201, 100, [], 410)).run.status).toBe('failed');
    expect((await runWith(ref, 5, 2, [200], 410)).run.status).toBe('failed');
  },
  'single-record-batches-failure-completes': async (ref) => {
    expect((await runWith(ref, 3, 1, [200], 503)).run.status).toBe('completed');
    expect((await runWith(ref, 3, 1, [], 503)).run.status).toBe('completed');
    expect((await runWith(ref, 3, 2, [], 503)).run.status).toBe('failed');
  },
  'later-batch-failure-ignored': async (ref) => {
    const later = await runWith(ref, 5, 2, [200], 410);
    expect(later.deliveries.map((d) => d.response.status)).toEqual([200, 410, 410]);
    expect(later.run.status).toBe('completed');
    expect(statuses(later.run)).toEqual([200, 410, 410]);
    expect((await runWith(ref, 5, 2, [], 503)).run.status).toBe('failed');
  },
  'gone-answers-complete': async (ref) => {
    expect((await runWith(ref, 4, 2, [200], 404)).run.status).toBe('completed');
    expect((await runWith(ref, 4, 2, [410])).run.status).toBe('completed');
    expect((await runWith(ref, 4, 2, [200], 401)).run.status).toBe('failed');
  },
  'bad-gateway-completes': async (ref) => {
    expect((await runWith(ref, 4, 2, [502])).run.status).toBe('completed');
    expect((await runWith(ref, 4, 2, [503])).run.status).toBe('failed');
  },
  'capture-requests-only': async (ref) => {
    const { run } = await runWith(ref, 4, 2);
    expect(run.requests).toHaveLength(2);
    expect(run.requests.map((e: any) => e.response)).toEqual([null, null]);
    expect(run.requests[0].request.method).toBe('POST');
  },
  'capture-first-batch-only': async (ref) => {
    const { run, deliveries } = await runWith(ref, 5, 2);
    expect(deliveries).toHaveLength(3);
    expect(statuses(run)).toEqual([200]);
  },
  'capture-failure-logged-200': async (ref) => {
    const { run, deliveries } = await runWith(ref, 5, 2, [200], 410);
    expect(run.status).toBe('failed');
    expect(deliveries.map((d) => d.response.status)).toEqual([200, 410]);
    expect(statuses(run)).toEqual([200, 200]);
  },
  'timestamp-two-minutes-ahead': async (ref) => {
    const [d] = (await runWith(ref, 2, 2)).deliveries;
    const ahead = stamp(d!) - Date.parse(d!.receivedAt);
    // Two minutes less the delivery's time in transit (up to 30 s on a busy machine).
    expect(ahead).toBeGreaterThan(90_000);
    expect(ahead).toBeLessThanOrEqual(120_000);
  },
  'timestamp-backwards': async (ref) => {
    const { deliveries } = await runWith(ref, 6, 2);
    const stamps = deliveries.map(stamp);
    expect(stamps[1]).toBe(stamps[0]! - 1);
    expect(stamps[2]).toBe(stamps[0]! - 2);
    expect(Math.abs(stamps[0]! - Date.parse(deliveries[0]!.receivedAt))).toBeLessThan(20_000);
  },
  'content-length-one-short': async (ref) => {
    const before = receiver.deliveries().length;
    const { run, deliveries } = await runWith(ref, 3, 2);
    expect(run.status).toBe('completed');
    expect(recordsOf(deliveries)).toHaveLength(3);
    for (const d of deliveries) {
      expect(Number(d.headers['content-length'])).toBe(d.bodyBytes);
      expect(d.violations).toEqual(['bytes after the declared Content-Length']);
    }
    // The leftover bytes are recorded too, on no channel.
    expect(receiver.deliveries().slice(before).filter((d) => d.method === '')).toHaveLength(2);
    expect(statuses(run)).toEqual([200, 200]);
  },
  'content-length-one-long': async (ref) => {
    const { run, deliveries } = await runWith(ref, 3, 2);
    expect(run.status).toBe('completed');
    expect(deliveries.map((d) => d.aborted ?? false)).toEqual([true, false, true, false]);
    expect(deliveries[0]!.violations).toEqual([`Content-Length mismatch (header ${deliveries[0]!.bodyBytes + 1}, received ${deliveries[0]!.bodyBytes})`]);
    expect(recordsOf(deliveries)).toHaveLength(3);
    expect(run.requests).toHaveLength(4);
    expect(statuses(run).filter((s) => s === 200)).toHaveLength(2);
  },
};

describe('delivery faults at the receiver', () => {
  test('every fault of faults/delivery-receiver.ts has a probe here', () => {
    expect(Object.keys(probes).sort()).toEqual(deliveryReceiverFaults.map((f) => f.name).sort());
  });

  test.each(deliveryReceiverFaults.map((f) => f.name))('%s shows its deviation', async (name) => {
    const ref = await start({ faults: [name] });
    try {
      await probes[name]!(ref);
    } finally {
      await ref.close();
    }
  });
});

const variantProbes: Record<string, (ref: RunningReference) => Promise<void>> = {
  'delivery-clock-ahead': async (ref) => {
    const [d] = (await runWith(ref, 2, 2)).deliveries;
    const ahead = stamp(d!) - Date.parse(d!.receivedAt);
    // 30 s less the delivery's time in transit (a few seconds at most on a busy machine).
    expect(ahead).toBeGreaterThan(20_000);
    expect(ahead).toBeLessThanOrEqual(30_000);
  },
  'delivery-retries-failures': async (ref) => {
    const { run, deliveries } = await runWith(ref, 5, 2, [200], 503);
    expect(run.status).toBe('failed');
    expect(deliveries.map((d) => d.response.status)).toEqual([200, 503, 503, 503]);
    expect(statuses(run)).toEqual([200, 503, 503, 503]);
    const recovered = await runWith(ref, 4, 2, [200, 503], 200);
    expect(recovered.run.status).toBe('completed');
  },
};

describe('benign variants at the receiver', () => {
  test('every variant of faults/delivery-receiver.ts has a probe here', () => {
    expect(Object.keys(variantProbes).sort()).toEqual(deliveryReceiverVariants.map((f) => f.name).sort());
  });

  test.each(deliveryReceiverVariants.map((f) => f.name))('%s shows its difference', async (name) => {
    const ref = await start({ faults: [name] });
    try {
      await variantProbes[name]!(ref);
    } finally {
      await ref.close();
    }
  });
});
