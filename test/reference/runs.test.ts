import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference, SyncExecution } from '../../src/reference/index.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { call, expectError, sleep, start } from './helpers.ts';
import { createSource, createWebhookSync, idsOf, rows, runOnce, waitForRun } from './webhook-helpers.ts';
import type { Channel } from '../../src/receiver/index.ts';

/**
 * Until the channel's first delivery has arrived: from then on the run is under way, and stays so
 * while the receiver holds its answer. A fixed sleep instead would race the run's start on a busy
 * machine.
 */
async function firstDelivery(channel: Channel): Promise<void> {
  for (const until = Date.now() + 60_000; channel.deliveries().length === 0; ) {
    if (Date.now() > until) throw new Error('no delivery arrived within 60 s');
    await sleep(10);
  }
}

// Runs in the real service's shapes (README › Runs): the states a run passes through, what a read
// carries, the start flags, cancel, and a run the reference stops under.

let ref: RunningReference;
let receiver: Receiver;
/** Every status each run was set to, in order, recorded on the store's runs as they are made. */
const history = new Map<string, string[]>();

beforeAll(async () => {
  [ref, receiver] = await Promise.all([start(), startReceiver()]);
  recordStates(ref);
});
afterAll(async () => {
  await ref.close();
  await receiver.close();
});

function recordStates(target: RunningReference): void {
  const add = target.store.addExecution.bind(target.store);
  target.store.addExecution = (...args) => {
    const run: SyncExecution = add(...args);
    const seen = [run.status as string];
    history.set(run.id, seen);
    let status = run.status;
    Object.defineProperty(run, 'status', {
      enumerable: true,
      get: () => status,
      set: (value: SyncExecution['status']) => {
        status = value;
        seen.push(value);
      },
    });
    return run;
  };
}

const startRun = (syncId: string, body: unknown = {}) => call(ref, 'POST', `/api/syncs/${syncId}/executions`, { body });
const cancel = (syncId: string, runId: string) => call(ref, 'POST', `/api/syncs/${syncId}/executions/${runId}/cancel`, { body: {} });

describe('states', () => {
  test('a run answers created at its start, then passes queued and running to completed', async () => {
    const channel = receiver.channel('states');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(2)));
    const { run } = await runOnce(ref, channel, syncId);
    expect(history.get(run.id)).toEqual(['created', 'queued', 'running', 'completed']);
  });

  test('a failed delivery ends the run failed, after running', async () => {
    const channel = receiver.channel('states-failed');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(2)));
    channel.script([500]);
    const { run } = await runOnce(ref, channel, syncId);
    expect(history.get(run.id)).toEqual(['created', 'queued', 'running', 'failed']);
    expect(run).toMatchObject({ status: 'failed', errors: [{ message: 'receiver answered 500 to batch 1' }], counts: { total: 2, error: 2, insert: 0 } });
  });

  test('while a run has not ended it reads running with started_at set and completed_at null; a start is 409', async () => {
    const channel = receiver.channel('states-slow');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(1)));
    // The answer held 3 s: time for the reads below however busy the machine.
    channel.script([{ status: 200, delayMs: 3000 }]);
    const started = await startRun(syncId);
    await firstDelivery(channel);
    const read = await call(ref, 'GET', `/api/syncs/${syncId}/executions/${started.json.data.id}`);
    expect(read.json.data).toMatchObject({ status: 'running', started_at: expect.any(String), completed_at: null });
    expectError(await startRun(syncId), 409, 'conflict');
    const ended = await waitForRun(ref, syncId, started.json.data.id);
    expect(ended).toMatchObject({ status: 'completed', counts: { total: 1, insert: 1 } });
    expect(ended.created_at).toBe(started.json.data.created_at);
  });
});

describe('start flags', () => {
  test('test: true records a test run, which otherwise runs as any other', async () => {
    const channel = receiver.channel('test-flag');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(3)));
    const started = await startRun(syncId, { test: true });
    expect(started.json.data.status).toBe('created');
    const run = await waitForRun(ref, syncId, started.json.data.id);
    expect(run).toMatchObject({ type: 'test', status: 'completed', counts: { total: 3 } });
    expect((await runOnce(ref, channel, syncId)).run).toMatchObject({ type: 'manual', counts: { total: 0 } });
  });

  test('resync: true sends every record once, differences resume after it', async () => {
    const channel = receiver.channel('resync');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(3)));
    await runOnce(ref, channel, syncId);
    const started = await startRun(syncId, { resync: true });
    const before = channel.deliveries().length;
    await waitForRun(ref, syncId, started.json.data.id);
    expect(idsOf(channel.deliveries().slice(before))).toEqual(['r000', 'r001', 'r002']);
    expect(idsOf((await runOnce(ref, channel, syncId)).deliveries)).toEqual([]);
  });

  test('a flag of the wrong type is 400 naming it, and starts nothing; unknown fields are ignored', async () => {
    const channel = receiver.channel('flags-bad');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(1)));
    for (const [body, field] of [[{ test: 'yes' }, '/test'], [{ resync: 1 }, '/resync']] as const) {
      const answer = await startRun(syncId, body);
      expectError(answer, 400, 'validation_error');
      expect(answer.json.metadata.field).toBe(field);
    }
    expect(ref.store.getModelSync(syncId)!.executions).toEqual([]);
    const ok = await startRun(syncId, { identities: ['a'], fetch_mode: 'full' });
    expect(ok.status, ok.text).toBe(200);
    await waitForRun(ref, syncId, ok.json.data.id);
  });
});

describe('cancel (POST /api/syncs/{id}/executions/{eid}/cancel)', () => {
  test('a run not ended becomes canceling, and canceled before its next batch', async () => {
    const channel = receiver.channel('cancel');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(6)), { configuration: { batch_size: 2 } });
    channel.script([{ status: 200, delayMs: 1500 }]);
    const started = await startRun(syncId);
    const runId = started.json.data.id;
    await firstDelivery(channel);
    const asked = await cancel(syncId, runId);
    expect(asked.status, asked.text).toBe(200);
    expect(asked.json.data).toMatchObject({ id: runId, status: 'canceling', completed_at: null });
    const run = await waitForRun(ref, syncId, runId);
    expect(run).toMatchObject({ status: 'canceled', batches_delivered: 1, counts: { total: 2, error: 0 }, errors: [] });
    expect(history.get(runId)).toEqual(['created', 'queued', 'running', 'canceling', 'canceled']);
    expect(channel.deliveries()).toHaveLength(1);
    // The undelivered rows go out with the next run.
    expect(idsOf((await runOnce(ref, channel, syncId)).deliveries)).toEqual(['r002', 'r003', 'r004', 'r005']);
  });

  test('a run canceled before it started sends nothing', async () => {
    const own = await start();
    try {
      // A cancel in the same turn as the start (no HTTP client can be that quick): the run is
      // canceling from its creation, as cancel() leaves it.
      const add = own.store.addExecution.bind(own.store);
      own.store.addExecution = (...args) => Object.assign(add(...args), { status: 'canceling' as const });
      const channel = receiver.channel('cancel-early');
      const { syncId } = await createWebhookSync(own, channel, await createSource(own, rows(2)));
      const started = await call(own, 'POST', `/api/syncs/${syncId}/executions`, { body: {} });
      const run = await waitForRun(own, syncId, started.json.data.id);
      expect(run).toMatchObject({ status: 'canceled', started_at: null, completed_at: expect.any(String), counts: { total: 0 }, batches_delivered: 0 });
      expect(channel.deliveries()).toEqual([]);
    } finally {
      await own.close();
    }
  });

  test('an ended run is answered as it is (200), and stays ended', async () => {
    const channel = receiver.channel('cancel-ended');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(1)));
    const { run } = await runOnce(ref, channel, syncId);
    const answer = await cancel(syncId, run.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({ id: run.id, status: 'completed', completed_at: run.completed_at });
  });

  test('unknown ids are 404', async () => {
    const channel = receiver.channel('cancel-unknown');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref));
    expectError(await cancel('nope', 'nope'), 404, 'not_found');
    expectError(await cancel(syncId, 'nope'), 404, 'not_found');
  });
});

describe('a run the reference stops under', () => {
  test('ends interrupted, with why in errors[]', async () => {
    const own = await start({ deliveryTimeoutMs: 5000 });
    const channel = receiver.channel('interrupted');
    const { syncId } = await createWebhookSync(own, channel, await createSource(own, rows(4)), { configuration: { batch_size: 2 } });
    channel.script([{ status: 200, delayMs: 3000 }]);
    const started = await call(own, 'POST', `/api/syncs/${syncId}/executions`, { body: {} });
    await firstDelivery(channel);
    const run = own.store.getExecution(own.store.getModelSync(syncId)!, started.json.data.id)!;
    await own.close();
    expect(run.status).toBe('interrupted');
    expect(run.errors).toEqual([{ message: expect.stringMatching(/^the reference stopped /) }]);
    expect(run.completedAt).toEqual(expect.any(String));
  });
});
