import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BatchContext, DeliveryMode, DeliveryOutcome, DeliveryPipeline, Fields } from '../delivery.ts';
import type { FieldSelection, ModelSync, Row, RowKey, Store, SyncExecution } from '../store.ts';
import { isObject } from '../validation.ts';
import { editSuccess, isRoute, ROUTES } from './fault.ts';

// Seams of the round-2 held-out run faults (held-out-2-runs.ts): what a vendor's run engine
// gets wrong is mostly *which* batch, row or run it looks at, so these hand a fault the batch,
// the row and the run it is on, through the delivery pipeline's own steps.

type Body = Record<string, unknown>;

/** One exchange of a run as the capture step sees it, with the batch it was for. */
export interface Exchange {
  batch: BatchContext;
  outcome: DeliveryOutcome;
  /** The receiver answered, and its status fails a run (or there was no answer at all). */
  failed: boolean;
}

/**
 * Calls `see` for every exchange, after the receiver's answer and before the run engine acts on
 * it (the capture step runs just before the failure test, with no await between them). The batch
 * is found by its headers object, which the engine hands unchanged from buildHeaders to capture.
 */
export function onExchange(p: DeliveryPipeline, see: (exchange: Exchange) => void): void {
  const batches = new WeakMap<object, BatchContext>();
  const { buildHeaders, capture, isFailure } = p;
  p.buildHeaders = (batch) => {
    const headers = buildHeaders(batch);
    batches.set(headers, batch);
    return headers;
  };
  p.capture = (log, exchange) => {
    const batch = batches.get(exchange.request.headers);
    if (batch) see({ batch, outcome: exchange.outcome, failed: 'error' in exchange.outcome || isFailure(exchange.outcome.status) });
    capture(log, exchange);
  };
}

/** Ends a run `completed` before the engine records its failure (the engine's first end wins). */
export function recordCompleted(run: SyncExecution): void {
  const now = new Date().toISOString();
  run.status = 'completed';
  run.updatedAt = now;
  run.completedAt = now;
}

/**
 * Makes the engine go on past a failed answer, as if it were a success: `ignore` is asked in the
 * capture step, and the failure test that follows it at once answers "no failure".
 */
export function ignoreFailures(p: DeliveryPipeline, ignore: (exchange: Exchange) => boolean): void {
  let ignoring = false;
  onExchange(p, (exchange) => {
    ignoring = exchange.failed && !('error' in exchange.outcome) && ignore(exchange);
  });
  const isFailure = p.isFailure;
  p.isFailure = (status) => {
    if (ignoring) {
      ignoring = false;
      return false;
    }
    return isFailure(status);
  };
}

/** The row being judged, with its sync, its run, its key and its 1-based place in the run's read. */
export interface RowAt {
  sync: ModelSync;
  run: SyncExecution;
  key: RowKey;
  /** 1-based: the row's place in this run's read of the source. */
  place: number;
  mode: DeliveryMode;
}

/**
 * Wraps isPending with the row it is asked about. The engine calls selectFields, hashRecord and
 * isPending for one row with no await between them, and a sync has one run at a time, so the
 * row last selected (and the sync whose selection it was) is the one being judged.
 */
export function judgeRows(store: Store, p: DeliveryPipeline, judge: (row: RowAt, hash: string, lastDelivered: string | undefined, original: () => boolean) => boolean, onBaseline?: (row: RowAt, hash: string) => void): void {
  const syncs = new WeakMap<readonly FieldSelection[], ModelSync>();
  const places = new WeakMap<SyncExecution, number>();
  const modes = new WeakMap<SyncExecution, DeliveryMode>();
  let current: RowAt | undefined;
  const syncOf = (selection: readonly FieldSelection[]) => {
    let sync = syncs.get(selection);
    if (!sync) {
      sync = [...store.modelSyncs.values()].find((s) => s.selection === selection);
      if (sync) syncs.set(selection, sync);
    }
    return sync;
  };
  const { deliveryMode, selectFields, hashRecord, isPending } = p;
  p.deliveryMode = (sync, run) => {
    const mode = deliveryMode(sync, run);
    modes.set(run, mode);
    return mode;
  };
  p.selectFields = (row, selection) => {
    const sync = syncOf(selection);
    const run = sync?.executions.at(-1);
    if (sync && run) {
      const place = (places.get(run) ?? 0) + 1;
      places.set(run, place);
      current = { sync, run, key: keyOf(store, sync, row), place, mode: modes.get(run) ?? 'changes' };
    } else current = undefined;
    return selectFields(row, selection);
  };
  p.hashRecord = (fields: Fields) => {
    const hash = hashRecord(fields);
    if (current?.mode === 'baseline') onBaseline?.(current, hash);
    return hash;
  };
  p.isPending = (hash, lastDelivered, mode) => {
    const original = () => isPending(hash, lastDelivered, mode);
    return current ? judge(current, hash, lastDelivered, original) : original();
  };
}

/** The row's key, as the engine makes it: the model's identifier or the test-control source's key column. */
function keyOf(store: Store, sync: ModelSync, row: Row): RowKey {
  const id = sync.sourceId ?? '';
  const column = store.getModel(id)?.identifier ?? store.getSource(id)?.key ?? '';
  const value = row[column] ?? null;
  return typeof value === 'string' || typeof value === 'number' ? value : JSON.stringify(value);
}

/** The run before this one of the same sync, if any. */
export const previousRun = (sync: ModelSync, run: SyncExecution): SyncExecution | undefined => sync.executions[run.ordinal - 2];

/** Edits every answer of a run: its read, and its entry in the sync's run list. */
export function editRunAnswers(app: FastifyInstance, edit: (data: Body, request: FastifyRequest) => void): void {
  editSuccess(app, 'GET', ROUTES.run, edit);
  app.addHook('preSerialization', async (request, reply, payload: unknown) => {
    if (reply.statusCode < 400 && isRoute(request, 'GET', ROUTES.runs) && isObject(payload) && Array.isArray(payload.data)) {
      for (const entry of payload.data) if (isObject(entry)) edit(entry, request);
    }
    return payload;
  });
}

/** Orders two keys of one type; keys of different types are not ordered (undefined). */
export function compareKeys(a: RowKey, b: RowKey): number | undefined {
  if (typeof a !== typeof b) return undefined;
  return a < b ? -1 : a > b ? 1 : 0;
}
