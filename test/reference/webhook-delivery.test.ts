import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { USER_AGENT } from '../../src/reference/delivery.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { startReceiver, type Receiver } from '../../src/receiver/index.ts';
import { validate } from '../../src/schemas.ts';
import { call, createConnection, expectError, MODEL_FIELDS, start } from './helpers.ts';
import { body, createSource, createWebhookSync, idsOf, recordsOf, rows, runOnce, SELECTED, waitForRun, writeRows } from './webhook-helpers.ts';

// Spec › Events: sync.records deliveries of the reference, as the capturing receiver gets them.

/** The delivery timeout of the one test about it; the others' reference waits long enough for a busy machine. */
const TIMEOUT_MS = 300;
let ref: RunningReference;
let receiver: Receiver;
beforeAll(async () => {
  [ref, receiver] = await Promise.all([start({ deliveryTimeoutMs: 30_000 }), startReceiver()]);
});
afterAll(async () => {
  await ref.close();
  await receiver.close();
});

/** The reference's documented hash, computed independently: sha256 hex of the name-sorted [name, value] pairs. */
function expectedHash(fields: Record<string, unknown>): string {
  const pairs = Object.keys(fields).sort().map((k) => [k, fields[k]]);
  return createHash('sha256').update(JSON.stringify(pairs)).digest('hex');
}

describe('one delivery', () => {
  test('is a POST with exactly the spec\'s headers, Content-Encoding: gzip, and a gzip JSON body', async () => {
    const channel = receiver.channel('headers');
    const source = await createSource(ref, rows(3));
    const { syncId, secret } = await createWebhookSync(ref, channel, source, { name: 'headers sync' });
    const { run, deliveries } = await runOnce(ref, channel, syncId);
    expect(run).toMatchObject({ status: 'completed', counts: { total: 3, insert: 3, update: 0, error: 0 }, batches_delivered: 1, errors: [] });
    expect(deliveries).toHaveLength(1);
    const d = deliveries[0]!;
    expect(d.method).toBe('POST');
    expect(d.path).toBe(new URL(channel.url).pathname);
    expect(d.violations).toEqual([]);

    const names = d.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    // Host and Connection are the HTTP client's; the rest are the delivery's own.
    expect(names.sort()).toEqual(
      ['accept-encoding', 'authorization', 'connection', 'content-encoding', 'content-length', 'content-type', 'host', 'service-signature-timestamp', 'user-agent'],
    );
    expect(d.headers).toMatchObject({
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'accept-encoding': 'gzip',
      authorization: `Bearer ${secret}`,
      'content-length': String(d.bodyBytes),
      'user-agent': USER_AGENT,
    });
    expect(USER_AGENT).toMatch(/^DSS-Reference\/\d+\.\d+\.\d+/);
    const stamp = d.headers['service-signature-timestamp']!;
    expect(stamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // Current: within the delivery's time in transit, seconds at most on a busy machine (the
    // faults shift the clock by 30 s and more).
    expect(Math.abs(Date.parse(d.receivedAt) - Date.parse(stamp))).toBeLessThan(20_000);
    expect(validate('webhook-delivery-headers.schema.json', d.headers)).toEqual([]);

    expect(d.gzip).toBe(true);
    expect(validate('webhook-delivery-body.schema.json', d.json)).toEqual([]);
    const fields = (n: number) => ({ id: `r00${n}`, email: `u${n}@example.com`, full_name: `User ${n}`, score: n * 10 });
    expect(d.json).toEqual({
      event: 'sync.records',
      object: { id: syncId, name: 'headers sync', records: [0, 1, 2].map((n) => ({ hash: expectedHash(fields(n)), fields: fields(n) })), metadata: null },
    });
  });

  test('carries the Metadata setting under object.metadata, and a missing column as null', async () => {
    const channel = receiver.channel('metadata');
    const source = await createSource(ref, [{ id: 1, email: 'a@example.com' }]);
    const { syncId } = await createWebhookSync(ref, channel, source, { configuration: { metadata: { team: 'data', env: 'test' } } });
    const { deliveries } = await runOnce(ref, channel, syncId);
    expect(body(deliveries[0]!).object.metadata).toEqual({ team: 'data', env: 'test' });
    expect(recordsOf(deliveries)[0]!.fields).toEqual({ id: 1, email: 'a@example.com', full_name: null, score: null });
  });

  test('timestamps are taken per request, and every delivery carries the same secret', async () => {
    const channel = receiver.channel('per-request');
    const source = await createSource(ref, rows(4));
    const { syncId, secret } = await createWebhookSync(ref, channel, source, { configuration: { batch_size: 1 } });
    channel.script([{ status: 200, delayMs: 20 }, { status: 200, delayMs: 20 }, { status: 200, delayMs: 20 }]);
    const { deliveries } = await runOnce(ref, channel, syncId);
    const stamps = deliveries.map((d) => Date.parse(d.headers['service-signature-timestamp']!));
    expect(stamps).toHaveLength(4);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! - stamps[i - 1]!).toBeGreaterThanOrEqual(15);
    expect(new Set(deliveries.map((d) => d.headers.authorization))).toEqual(new Set([`Bearer ${secret}`]));
  });
});

describe('hash', () => {
  test('is the same for the same pairs in any selection order, and changes with any value', async () => {
    const channel = receiver.channel('hash');
    const source = await createSource(ref, rows(5));
    const forward = await createWebhookSync(ref, channel, source);
    const backward = await createWebhookSync(ref, channel, source, { selection: [...SELECTED].reverse() });
    const a = recordsOf((await runOnce(ref, channel, forward.syncId)).deliveries);
    const b = recordsOf((await runOnce(ref, channel, backward.syncId)).deliveries);
    expect(Object.keys(a[0]!.fields)).toEqual(['id', 'email', 'full_name', 'score']);
    expect(Object.keys(b[0]!.fields)).toEqual(['score', 'full_name', 'email', 'id']);
    expect(b.map((r) => r.hash)).toEqual(a.map((r) => r.hash));
    expect(new Set(a.map((r) => r.hash)).size).toBe(5);
    for (const r of a) expect(r.hash).toBe(expectedHash(r.fields));

    await writeRows(ref, source, [{ ...rows(1)[0]!, score: 1 }]);
    const changed = recordsOf((await runOnce(ref, channel, forward.syncId)).deliveries);
    expect(changed.map((r) => r.fields.id)).toEqual(['r000']);
    expect(changed[0]!.hash).not.toBe(a[0]!.hash);
    // A column that is not selected changes nothing delivered.
    await writeRows(ref, source, [{ ...rows(1)[0]!, score: 1, note: 'other' }]);
    expect((await runOnce(ref, channel, forward.syncId)).deliveries).toEqual([]);
  });

  test('tells 1 from "1" and true from "true"', async () => {
    const channel = receiver.channel('hash-types');
    const source = await createSource(ref, [
      { id: 'a', email: 1 },
      { id: 'b', email: '1' },
      { id: 'c', email: true },
      { id: 'd', email: 'true' },
    ]);
    const { syncId } = await createWebhookSync(ref, channel, source, { selection: [{ field: 'email', target: 'v' }] });
    const hashes = recordsOf((await runOnce(ref, channel, syncId)).deliveries).map((r) => r.hash);
    expect(new Set(hashes).size).toBe(4);
  });
});

describe('what a run delivers', () => {
  test('differential by default: everything first, then only new or changed rows; nothing to send is no request', async () => {
    const channel = receiver.channel('differential');
    const source = await createSource(ref, rows(5));
    const { syncId } = await createWebhookSync(ref, channel, source);
    expect(idsOf((await runOnce(ref, channel, syncId)).deliveries)).toEqual(['r000', 'r001', 'r002', 'r003', 'r004']);

    const idle = await runOnce(ref, channel, syncId);
    expect(idle.deliveries).toEqual([]);
    expect(idle.run).toMatchObject({ status: 'completed', counts: { total: 0 }, batches_delivered: 0, requests: [] });

    await writeRows(ref, source, [{ ...rows(3)[2]!, email: 'new@example.com' }, ...rows(1, 5)]);
    const second = await runOnce(ref, channel, syncId);
    expect(idsOf(second.deliveries)).toEqual(['r002', 'r005']);
    expect(second.run.counts).toMatchObject({ total: 2, insert: 1, update: 1 }); // r005 is new, r002 changed
    // Rewriting a row with the values it had is no change.
    await writeRows(ref, source, rows(6).map((r) => (r.id === 'r002' ? { ...r, email: 'new@example.com' } : r)));
    expect((await runOnce(ref, channel, syncId)).deliveries).toEqual([]);
  });

  test('full sync delivers every row on every run', async () => {
    const channel = receiver.channel('full');
    const source = await createSource(ref, rows(4));
    const { syncId } = await createWebhookSync(ref, channel, source, { sync_all_records: true });
    for (let i = 0; i < 2; i++) expect(idsOf((await runOnce(ref, channel, syncId)).deliveries)).toEqual(['r000', 'r001', 'r002', 'r003']);
  });

  test('skip backfill: the first run sends nothing, later runs the differences', async () => {
    const channel = receiver.channel('skip');
    const source = await createSource(ref, rows(4));
    const { syncId } = await createWebhookSync(ref, channel, source, { skip_initial_backfill: true });
    const first = await runOnce(ref, channel, syncId);
    expect(first.deliveries).toEqual([]);
    expect(first.run).toMatchObject({ status: 'completed', counts: { total: 0 } });
    await writeRows(ref, source, [{ ...rows(1)[0]!, score: -1 }, ...rows(2, 4)]);
    expect(idsOf((await runOnce(ref, channel, syncId)).deliveries)).toEqual(['r000', 'r004', 'r005']);
  });

  test('skip backfill with full sync: nothing first, then every row', async () => {
    const channel = receiver.channel('skip-full');
    const source = await createSource(ref, rows(3));
    const { syncId } = await createWebhookSync(ref, channel, source, { skip_initial_backfill: true, sync_all_records: true });
    expect((await runOnce(ref, channel, syncId)).deliveries).toEqual([]);
    expect(idsOf((await runOnce(ref, channel, syncId)).deliveries)).toEqual(['r000', 'r001', 'r002']);
  });

  test('batches hold at most batch_size records, in row order, sent one after another', async () => {
    const channel = receiver.channel('batches');
    const source = await createSource(ref, rows(10));
    const { syncId } = await createWebhookSync(ref, channel, source, { configuration: { batch_size: 3 } });
    const { run, deliveries } = await runOnce(ref, channel, syncId);
    expect(deliveries.map((d) => body(d).object.records.length)).toEqual([3, 3, 3, 1]);
    expect(idsOf(deliveries)).toEqual(rows(10).map((r) => r.id));
    expect(run).toMatchObject({ status: 'completed', counts: { total: 10, insert: 10 }, batches_delivered: 4 });
  });

  test('the default batch size is 100', async () => {
    const channel = receiver.channel('default-batch');
    const source = await createSource(ref, rows(250));
    const { syncId } = await createWebhookSync(ref, channel, source);
    const { deliveries } = await runOnce(ref, channel, syncId);
    expect(deliveries.map((d) => body(d).object.records.length)).toEqual([100, 100, 50]);
  });
});

describe('a failed delivery', () => {
  test.each([400, 503])('a %i fails the run; later batches are not sent, and the next run sends the undelivered rows', async (status) => {
    const channel = receiver.channel(`answer-${status}`);
    const source = await createSource(ref, rows(10));
    const { syncId } = await createWebhookSync(ref, channel, source, { configuration: { batch_size: 3 } });
    channel.script([200, status]);
    const failed = await runOnce(ref, channel, syncId);
    expect(failed.deliveries).toHaveLength(2);
    expect(failed.run).toMatchObject({ status: 'failed', errors: [`receiver answered ${status} to batch 2`], counts: { total: 6, insert: 3, error: 3 }, batches_delivered: 1 });
    expect(failed.run.completed_at).toEqual(expect.any(String));
    const next = await runOnce(ref, channel, syncId);
    expect(next.run.status).toBe('completed');
    expect(idsOf(next.deliveries)).toEqual(rows(10).slice(3).map((r) => r.id));
  });

  test('no answer within the delivery timeout fails the run, and the batch stays undelivered', async () => {
    const own = await start({ deliveryTimeoutMs: TIMEOUT_MS });
    try {
      const channel = receiver.channel('slow');
      const source = await createSource(own, rows(2));
      const { syncId } = await createWebhookSync(own, channel, source);
      // Held 5 s past the timeout: the timeout fires first however late a busy machine runs timers.
      channel.script([{ status: 200, delayMs: TIMEOUT_MS + 5000 }]);
      const slow = await runOnce(own, channel, syncId);
      expect(slow.run).toMatchObject({ status: 'failed', errors: [`batch 1 was not delivered: no answer within ${TIMEOUT_MS} ms`], counts: { total: 2, insert: 0, error: 2 } });
      expect(slow.run.requests).toEqual([expect.objectContaining({ response: { error: `no answer within ${TIMEOUT_MS} ms` } })]);
      expect(idsOf((await runOnce(own, channel, syncId)).deliveries)).toEqual(['r000', 'r001']);
    } finally {
      await own.close();
    }
  });

  test('a receiver that is not listening fails the run with the connection error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise((resolve) => server.close(resolve));
    const source = await createSource(ref, rows(1));
    const { syncId } = await createWebhookSync(ref, { url: `http://127.0.0.1:${port}/hook` }, source);
    const started = await call(ref, 'POST', `/api/syncs/${syncId}/executions`, { body: {} });
    const run = await waitForRun(ref, syncId, started.json.data.id);
    expect(run).toMatchObject({ status: 'failed', errors: ['batch 1 was not delivered: connection refused (ECONNREFUSED)'] });
  });
});

describe('the capture log (Spec › Events › Emission 6)', () => {
  test('holds each request and answer, the secret masked; null when record_requests is false', async () => {
    const channel = receiver.channel('capture');
    const source = await createSource(ref, rows(5));
    const on = await createWebhookSync(ref, channel, source, { configuration: { batch_size: 2 } });
    channel.script([200, 503]);
    const { run, deliveries } = await runOnce(ref, channel, on.syncId);
    expect(run.requests).toHaveLength(2);
    const [first, second] = run.requests;
    expect(first.request).toEqual({
      method: 'POST',
      url: channel.url,
      headers: {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        'Accept-Encoding': 'gzip',
        'Service-Signature-Timestamp': deliveries[0]!.headers['service-signature-timestamp'],
        Authorization: 'Bearer ****',
        'Content-Length': String(deliveries[0]!.bodyBytes),
        'User-Agent': USER_AGENT,
      },
      body_bytes: deliveries[0]!.bodyBytes,
    });
    expect(Date.parse(first.at)).not.toBeNaN();
    expect(first.response).toEqual({ status: 200, body: JSON.stringify({ seq: deliveries[0]!.seq, status: 200 }) });
    expect(second.response.status).toBe(503);
    const answer = await call(ref, 'GET', `/api/syncs/${on.syncId}/executions/${run.id}`);
    expect(answer.text).not.toContain(on.secret);

    const off = await createWebhookSync(ref, channel, source, { configuration: { record_requests: false } });
    const quiet = await runOnce(ref, channel, off.syncId);
    expect(quiet.deliveries).toHaveLength(1);
    expect(quiet.run.requests).toBeNull();
  });

  test('keeps the first 1024 characters of an answer', async () => {
    const big = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('x'.repeat(100_000)));
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    try {
      const source = await createSource(ref, rows(1));
      const { syncId } = await createWebhookSync(ref, { url: `http://127.0.0.1:${(big.address() as AddressInfo).port}/` }, source);
      const started = await call(ref, 'POST', `/api/syncs/${syncId}/executions`, { body: {} });
      const run = await waitForRun(ref, syncId, started.json.data.id);
      expect(run.status).toBe('completed');
      expect(run.requests[0].response).toEqual({ status: 200, body: 'x'.repeat(1024) });
    } finally {
      big.closeAllConnections();
      await new Promise((resolve) => big.close(resolve));
    }
  });
});

describe('runs (extension endpoints)', () => {
  test('a run reads back with every field; ids of runs are per sync', async () => {
    const channel = receiver.channel('shape');
    const source = await createSource(ref, rows(1));
    const { syncId } = await createWebhookSync(ref, channel, source);
    const other = await createWebhookSync(ref, channel, source);
    const { run } = await runOnce(ref, channel, syncId);
    expect(Object.keys(run).sort()).toEqual(
      ['batches_delivered', 'completed_at', 'counts', 'created_at', 'errors', 'id', 'requests', 'started_at', 'status', 'sync_id', 'type', 'updated_at'].sort(),
    );
    expect(run).toMatchObject({ sync_id: syncId, type: 'manual', errors: [], counts: { total: 1, insert: 1, update: 0, upserts: 0, delete: 0, error: 0, warnings: 0 } });
    expect(Date.parse(run.started_at)).toBeGreaterThanOrEqual(Date.parse(run.created_at));
    expect(Date.parse(run.completed_at)).toBeGreaterThanOrEqual(Date.parse(run.started_at));
    expect(run.updated_at).toBe(run.completed_at);
    expectError(await call(ref, 'GET', `/api/syncs/${other.syncId}/executions/${run.id}`), 404, 'not_found');
  });

  test('a second start while a run is running is 409 conflict', async () => {
    const channel = receiver.channel('conflict');
    const source = await createSource(ref, rows(1));
    const { syncId } = await createWebhookSync(ref, channel, source);
    channel.script([{ status: 200, delayMs: 150 }]);
    const first = await call(ref, 'POST', `/api/syncs/${syncId}/executions`, { body: {} });
    expect(first.status).toBe(200);
    const second = await call(ref, 'POST', `/api/syncs/${syncId}/executions`, { body: {} });
    expectError(second, 409, 'conflict');
    expect(second.json.metadata).toEqual({ sync_id: syncId });
    expect((await waitForRun(ref, syncId, first.json.data.id)).status).toBe('completed');
    expect((await call(ref, 'POST', `/api/syncs/${syncId}/executions`, { body: {} })).status).toBe(200);
  });

  test('unknown ids are 404', async () => {
    const channel = receiver.channel('unknown');
    const { syncId } = await createWebhookSync(ref, channel, await createSource(ref));
    expectError(await call(ref, 'POST', '/api/syncs/nope/executions', { body: {} }), 404, 'not_found');
    expectError(await call(ref, 'GET', '/api/syncs/nope/executions/nope'), 404, 'not_found');
    expectError(await call(ref, 'GET', `/api/syncs/${syncId}/executions/nope`), 404, 'not_found');
  });

  test('a sync without a webhook target or without a source cannot run: 400 not_runnable', async () => {
    const webhook = await createConnection(ref, 'webhook');
    const postgres = await createConnection(ref, 'postgresql');
    const source = await createSource(ref, rows(1));
    const fields = [{ source: { model_id: source, field: 'id' }, target: 'id' }];
    for (const target of [{ connection_id: postgres, object: 'public.users' }, { connection_id: webhook, object: 'http' }]) {
      const sync = await call(ref, 'POST', '/api/syncs', { body: { name: 'x', target, fields: target.connection_id === webhook ? MODEL_FIELDS : fields } });
      expect(sync.status, sync.text).toBe(200);
      const answer = await call(ref, 'POST', `/api/syncs/${sync.json.data.id}/executions`, { body: {} });
      expectError(answer, 400, 'not_runnable');
      expect(ref.store.getModelSync(sync.json.data.id)!.executions).toEqual([]);
    }
  });
});
