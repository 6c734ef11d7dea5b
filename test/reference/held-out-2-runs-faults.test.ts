import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { heldOut2RunFaults } from '../../src/reference/faults/held-out-2-runs.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { call, start } from './helpers.ts';
import { createSource, createWebhookSync, idsOf, rows, runOnce, writeRows, type SyncOptions, type TestRow } from './webhook-helpers.ts';

// One probe per round-2 held-out run fault in the catalogue (faults/held-out-2-runs.ts), over real
// loopback to the capturing receiver: each shows the deviation its fault promises, beside the
// case where the reference and the fault agree.

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

/** A sync over `initial` to a fresh channel; `run()` runs it once, `put()` writes its error handling. */
async function setup(ref: RunningReference, initial: TestRow[], options: SyncOptions = {}) {
  const channel = receiver.channel();
  const source = await createSource(ref, initial);
  const sync = await createWebhookSync(ref, channel, source, options);
  return {
    ...sync,
    channel,
    run: () => runOnce(ref, channel, sync.syncId),
    write: (changed: TestRow[]) => writeRows(ref, source, changed),
    put: async (body: Record<string, unknown>) => (await call(ref, 'PUT', `/api/syncs/${sync.syncId}/error-handling`, { body })).json.data,
    read: async (runId: string) => (await call(ref, 'GET', `/api/syncs/${sync.syncId}/executions/${runId}`)).json.data,
  };
}

const batchesOf2 = { configuration: { batch_size: 2 } };

const probes: Record<string, (ref: RunningReference) => Promise<void>> = {
  'h2r-repeat-failure-completes': async (ref) => {
    const s = await setup(ref, rows(1));
    s.channel.script([], 500);
    expect((await s.run()).run.status).toBe('failed');
    expect((await s.run()).run.status).toBe('completed');
  },
  'h2r-status-from-last-batch': async (ref) => {
    const s = await setup(ref, rows(5), batchesOf2);
    s.channel.script([500], 200);
    const first = await s.run();
    expect(first.deliveries.map((d) => d.response.status)).toEqual([500, 200, 200]);
    expect(first.run.status).toBe('completed');
    const last = await setup(ref, rows(5), batchesOf2);
    last.channel.script([200, 200], 500);
    expect((await last.run()).run.status).toBe('failed');
  },
  'h2r-capture-log-dropped-by-next-run': async (ref) => {
    const s = await setup(ref, rows(1));
    const first = await s.run();
    expect(first.run.requests).toHaveLength(1);
    await s.write(rows(2).slice(1));
    await s.run();
    expect((await s.read(first.run.id)).requests).toEqual([]);
  },
  'h2r-failed-records-never-retried': async (ref) => {
    const s = await setup(ref, rows(5), batchesOf2);
    expect(await s.put({ auto_retry_record_errors: true })).toMatchObject({ auto_retry_record_errors: true });
    s.channel.script([200], 500);
    expect((await s.run()).run.status).toBe('failed');
    s.channel.script([], 200);
    // r002, r003 were refused: with auto retry on they are owed, but only r004 (never sent) comes.
    expect(idsOf((await s.run()).deliveries)).toEqual(['r004']);
  },
  'h2r-unsent-rows-skipped-after-failure': async (ref) => {
    const s = await setup(ref, rows(5), batchesOf2);
    s.channel.script([200], 500);
    await s.run();
    s.channel.script([], 200);
    expect(idsOf((await s.run()).deliveries)).toEqual(['r002', 'r003']);
  },
  'h2r-full-sync-resumes-after-failure': async (ref) => {
    const s = await setup(ref, rows(5), { ...batchesOf2, sync_all_records: true });
    expect(idsOf((await s.run()).deliveries)).toHaveLength(5);
    s.channel.script([200], 500);
    expect((await s.run()).run.status).toBe('failed');
    s.channel.script([], 200);
    // Every row was delivered by the first run: the "resumed" run has nothing left, where full sync owes all five.
    expect((await s.run()).deliveries).toEqual([]);
    expect(idsOf((await s.run()).deliveries)).toHaveLength(5);
  },
  'h2r-skip-backfill-redone-after-settings-put': async (ref) => {
    const s = await setup(ref, rows(2), { skip_initial_backfill: true });
    expect((await s.run()).deliveries).toEqual([]);
    await s.write(rows(3).slice(2));
    expect(idsOf((await s.run()).deliveries)).toEqual(['r002']);
    await s.put({ notify_on_record_errors: true });
    await s.write(rows(4).slice(3));
    expect((await s.run()).deliveries).toEqual([]);
  },
  'h2r-eh-shared-by-destination': async (ref) => {
    const a = await setup(ref, rows(1));
    // A second sync on the same webhook connection, and one on a connection of its own.
    const sibling = await call(ref, 'POST', '/api/syncs', { body: { name: 'sibling', target: { connection_id: a.connectionId, object: 'http' }, fields: [{ target: 'id' }] } });
    expect(sibling.status, sibling.text).toBe(200);
    const apart = await setup(ref, rows(1));
    await a.put({ subscribers: ['a@example.com'] });
    await apart.put({ subscribers: ['c@example.com'] });
    await call(ref, 'PUT', `/api/syncs/${sibling.json.data.id}/error-handling`, { body: { subscribers: ['b@example.com'] } });
    expect((await a.put({})).subscribers).toEqual(['b@example.com']);
    expect((await apart.put({})).subscribers).toEqual(['c@example.com']);
  },
  'h2r-eh-reset-by-run': async (ref) => {
    const s = await setup(ref, rows(1));
    await s.put({ auto_retry_record_errors: true, subscribers: ['a@example.com'] });
    await s.run();
    expect(await s.put({})).toMatchObject({ auto_retry_record_errors: false, subscribers: [] });
  },
  'h2r-eh-empty-subscribers-mute-flags': async (ref) => {
    const s = await setup(ref, rows(1));
    await s.put({ notify_on_record_errors: true, warning_notifications: true, subscribers: ['a@example.com'] });
    expect(await s.put({ subscribers: [] })).toMatchObject({ notify_on_record_errors: false, warning_notifications: false });
    await s.put({ notify_on_record_errors: true, warning_notifications: true, subscribers: ['a@example.com'] });
    expect(await s.put({ subscribers: [], warning_notifications: true })).toMatchObject({ notify_on_record_errors: false, warning_notifications: true });
  },
};

describe('round-2 held-out run faults', () => {
  test('every catalogued round-2 run fault has a probe here', () => {
    expect(Object.keys(probes).sort()).toEqual(heldOut2RunFaults.map((f) => f.name).sort());
  });

  test.each(heldOut2RunFaults.map((f) => f.name))('%s shows its deviation', async (name) => {
    const ref = await start({ faults: [name] });
    try {
      await probes[name]!(ref);
    } finally {
      await ref.close();
    }
  });
});
