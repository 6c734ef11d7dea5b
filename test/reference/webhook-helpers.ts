import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import type { Channel, Delivery } from '../../src/receiver/index.ts';
import { call, sleep } from './helpers.ts';

// Shared steps of the webhook-*.test.ts files: a source, a webhook connection to a receiver
// channel, a model sync over them, and runs read to their end.

export type TestRow = Record<string, string | number | boolean | null>;

/** `count` rows r000..: id (the key), email, name, score, note. */
export function rows(count: number, from = 0): TestRow[] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return { id: `r${String(n).padStart(3, '0')}`, email: `u${n}@example.com`, name: `User ${n}`, score: n * 10, note: `note ${n}` };
  });
}

export const SELECTED = [
  { field: 'id', target: 'id' },
  { field: 'email', target: 'email' },
  { field: 'name', target: 'full_name' },
  { field: 'score', target: 'score' },
];

export async function createSource(ref: RunningReference, initial: TestRow[] = [], key = 'id'): Promise<string> {
  const created = await call(ref, 'POST', '/_reference/sources', { body: { name: 'test source', key } });
  expect(created.status, created.text).toBe(200);
  const id = created.json.data.id as string;
  if (initial.length > 0) await writeRows(ref, id, initial);
  return id;
}

export async function writeRows(ref: RunningReference, sourceId: string, written: TestRow[]): Promise<void> {
  const answer = await call(ref, 'PUT', `/_reference/sources/${sourceId}/rows`, { body: { rows: written } });
  expect(answer.status, answer.text).toBe(200);
}

export interface SyncOptions {
  name?: string;
  selection?: typeof SELECTED;
  configuration?: Record<string, unknown>;
  sync_all_records?: boolean;
  skip_initial_backfill?: boolean;
}

/** A webhook connection to the channel and a model sync over the source; the secret comes from the connection's creation. */
export async function createWebhookSync(ref: RunningReference, channel: { url: string }, sourceId: string, options: SyncOptions = {}): Promise<{ syncId: string; secret: string; connectionId: string }> {
  const connection = await call(ref, 'POST', '/api/connections', { body: { name: 'receiver', type: 'webhook', configuration: { url: channel.url } } });
  expect(connection.status, connection.text).toBe(200);
  const body: Record<string, unknown> = {
    name: options.name ?? 'webhook sync',
    target: { connection_id: connection.json.data.id, object: 'http', configuration: options.configuration ?? {} },
    fields: (options.selection ?? SELECTED).map((f) => ({ source: { model_id: sourceId, field: f.field }, target: f.target })),
  };
  if (options.sync_all_records !== undefined) body.sync_all_records = options.sync_all_records;
  if (options.skip_initial_backfill !== undefined) body.skip_initial_backfill = options.skip_initial_backfill;
  const sync = await call(ref, 'POST', '/api/syncs', { body });
  expect(sync.status, sync.text).toBe(200);
  return { syncId: sync.json.data.id, secret: connection.json.data.configuration.secret, connectionId: connection.json.data.id };
}

/** The states a run ends in (README › Runs). */
export const END_STATES = ['completed', 'failed', 'canceled', 'interrupted'];

/** GET of a run until it has ended. */
export async function waitForRun(ref: RunningReference, syncId: string, runId: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call(ref, 'GET', `/api/syncs/${syncId}/executions/${runId}`);
    expect(answer.status, answer.text).toBe(200);
    if (END_STATES.includes(answer.json.data.status)) return answer.json.data;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${answer.json.data.status} after ${timeoutMs} ms`);
    await sleep(5);
  }
}

/** Starts a run, waits for its end; returns the run and the deliveries the channel got during it. */
export async function runOnce(ref: RunningReference, channel: Channel, syncId: string): Promise<{ run: any; deliveries: Delivery[] }> {
  const before = channel.deliveries().length;
  const started = await call(ref, 'POST', `/api/syncs/${syncId}/executions`, { body: {} });
  expect(started.status, started.text).toBe(200);
  expect(started.json).toEqual({ data: { id: expect.any(String), status: 'created', created_at: expect.any(String) } });
  const run = await waitForRun(ref, syncId, started.json.data.id);
  return { run, deliveries: channel.deliveries().slice(before) };
}

export interface DeliveredRecord {
  hash: string;
  fields: Record<string, unknown>;
}

export const body = (d: Delivery): any => d.json;
export const recordsOf = (ds: Delivery[]): DeliveredRecord[] => ds.flatMap((d) => (body(d)?.object?.records ?? []) as DeliveredRecord[]);
export const idsOf = (ds: Delivery[]): string[] => recordsOf(ds).map((r) => String(r.fields.id));
