import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunningReference, SyncExecution } from '../../src/reference/index.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { call, expectError, sleep, start } from './helpers.ts';
import { RUNS_PAGE_SIZE, runsPage } from '../../src/reference/routes/executions-list.ts';
import { createSource, createWebhookSync, idsOf, recordsOf, rows, runOnce, waitForRun } from './webhook-helpers.ts';
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
    expect(run).toMatchObject({ status: 'failed', errors: ['receiver answered 500 to batch 1'], counts: { total: 2, error: 2, insert: 0 } });
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
    // The real service's answer: a message, not the run (the states below show it stop).
    expect(asked.json.data).toEqual({ message: `cancellation of run ${runId} requested` });
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

  test('an ended run is answered 200 with a message saying so, and stays ended', async () => {
    const channel = receiver.channel('cancel-ended');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(1)));
    const { run } = await runOnce(ref, channel, syncId);
    const answer = await cancel(syncId, run.id);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toEqual({ message: `run ${run.id} has already ended (completed)` });
    const read = await call(ref, 'GET', `/api/syncs/${syncId}/executions/${run.id}`);
    expect(read.json.data).toMatchObject({ id: run.id, status: 'completed', completed_at: run.completed_at });
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
    expect(run.errors).toEqual([expect.stringMatching(/^the reference stopped /)]);
    expect(run.completedAt).toEqual(expect.any(String));
  });
});

describe('the run list (GET /api/syncs/{id}/executions), as the real service\'s', () => {
  test('newest first, each run as its read answers it without the capture log, with pagination', async () => {
    const channel = receiver.channel('list');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(1)), { sync_all_records: true });
    const first = (await runOnce(ref, channel, syncId)).run;
    channel.script([500]);
    const second = (await runOnce(ref, channel, syncId)).run;
    const list = await call(ref, 'GET', `/api/syncs/${syncId}/executions`);
    expect(list.status, list.text).toBe(200);
    expect(list.json.pagination).toEqual({});
    expect(list.json.data.map((r: any) => r.id)).toEqual([second.id, first.id]);
    const { requests: _log, ...summary } = second;
    expect(list.json.data[0]).toEqual(summary);
    // A failed run's errors[] holds strings, as the real service's do.
    expect(list.json.data[0]).toMatchObject({ status: 'failed', errors: ['receiver answered 500 to batch 1'] });
    const ascending = await call(ref, 'GET', `/api/syncs/${syncId}/executions?ascending=true&only_completed=true`);
    expect(ascending.json.data.map((r: any) => r.id)).toEqual([first.id, second.id]);
  });

  test('only_completed leaves out runs not ended; a bad flag or token is 400 naming it; an unknown sync 404', async () => {
    const channel = receiver.channel('list-filter');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref, rows(1)));
    const done = (await runOnce(ref, channel, syncId)).run;
    // A run recorded but not under way (no engine drives it): it stays created, whatever the timing.
    const pending = ref.store.addExecution(ref.store.getModelSync(syncId)!, null, { type: 'manual', resync: false });
    expect((await call(ref, 'GET', `/api/syncs/${syncId}/executions`)).json.data.map((r: any) => [r.id, r.status])).toEqual([[pending.id, 'created'], [done.id, 'completed']]);
    expect((await call(ref, 'GET', `/api/syncs/${syncId}/executions?only_completed=true`)).json.data.map((r: any) => r.id)).toEqual([done.id]);
    for (const [query, field] of [['ascending=yes', 'ascending'], ['only_completed=1', 'only_completed'], ['page_token=nope', 'page_token'], ['page_token=', 'page_token']]) {
      const answer = await call(ref, 'GET', `/api/syncs/${syncId}/executions?${query}`);
      expectError(answer, 400, 'validation_error');
      expect(answer.json.metadata.field).toBe(field);
    }
    expectError(await call(ref, 'GET', '/api/syncs/nope/executions'), 404, 'not_found');
  });

  test('pages of 50 chained by next_page_token, stable while runs are added, in either order', () => {
    const made = Array.from({ length: 120 }, (_, i) => ({ ordinal: i + 1, id: `run-${i + 1}`, status: i % 3 === 0 ? 'running' : 'completed' })) as unknown as SyncExecution[];
    const ended = (r: SyncExecution) => r.status === 'completed';
    for (const query of [{}, { ascending: 'true' }, { only_completed: 'true' }, { ascending: 'true', only_completed: 'true' }] as Array<Record<string, string>>) {
      const runs = made.slice(0, 105);
      const atFirst = [...runs];
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const { page, next } = runsPage(runs, token ? { page_token: token } : query, ended);
        expect(page.length).toBeLessThanOrEqual(RUNS_PAGE_SIZE);
        seen.push(...page.map((r) => r.id));
        token = next;
        // A run started between two pages: nothing is repeated or skipped; newest first, the list
        // goes on from where it was (the new run is above it), oldest first it comes at the end.
        runs.push(made[runs.length]!);
      } while (token);
      const listed = (query.ascending ? runs.slice(0, -1) : atFirst).filter((r) => !query.only_completed || ended(r)).map((r) => r.id);
      expect(seen).toEqual(query.ascending ? listed : listed.reverse());
    }
  });
});

describe('a model sync\'s fields[].source is optional, as in the real service', () => {
  test('a field without a source delivers its override_value (null without one); override_value wins over a source', async () => {
    const channel = receiver.channel('no-source');
    const sourceId = await createSource(ref, rows(2));
    const connection = await call(ref, 'POST', '/api/connections', { body: { name: 'receiver', type: 'webhook', configuration: { url: channel.url } } });
    const fields = [
      { source: { model_id: sourceId, field: 'id' }, target: 'id' },
      { target: 'origin', override_value: 'dssc' },
      { target: 'nothing' },
      { source: { model_id: sourceId, field: 'email' }, target: 'email', override_value: 'hidden' },
    ];
    const sync = await call(ref, 'POST', '/api/syncs', { body: { name: 'no source', target: { connection_id: connection.json.data.id, object: 'http' }, fields } });
    expect(sync.status, sync.text).toBe(200);
    expect(sync.json.data.fields).toEqual(fields);
    const { deliveries } = await runOnce(ref, channel, sync.json.data.id);
    expect(recordsOf(deliveries).map((r) => r.fields)).toEqual([
      { id: 'r000', origin: 'dssc', nothing: null, email: 'hidden' },
      { id: 'r001', origin: 'dssc', nothing: null, email: 'hidden' },
    ]);
  });

  test('a sync whose fields read no source is created, and cannot run (400 not_runnable)', async () => {
    const channel = receiver.channel('no-source-at-all');
    const connection = await call(ref, 'POST', '/api/connections', { body: { name: 'receiver', type: 'webhook', configuration: { url: channel.url } } });
    const sync = await call(ref, 'POST', '/api/syncs', { body: { name: 'fixed', target: { connection_id: connection.json.data.id, object: 'http' }, fields: [{ target: 'a', override_value: 'x' }] } });
    expect(sync.status, sync.text).toBe(200);
    expectError(await startRun(sync.json.data.id), 400, 'not_runnable');
  });
});
