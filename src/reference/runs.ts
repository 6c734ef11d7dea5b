import { Agent } from 'undici';
import type { ReferenceConfig } from './config.ts';
import { connectionKind } from './connection-kinds.ts';
import type { DeliveryMode, DeliveryPipeline, PendingRecord, Transport } from './delivery.ts';
import { ApiError } from './errors.ts';
import { readTable, reason, type SourceDatabases } from './source-db.ts';
import { isEnded, type Connection, type ExecutionStatus, type Model, type ModelSync, type Row, type RowKey, type Source, type Store, type SyncExecution, type Value } from './store.ts';

/** What a run needs, found and checked before it starts. */
interface RunPlan {
  sync: ModelSync;
  /** The source's rows with their keys, in order, read anew by each run. */
  rows: () => AsyncGenerator<{ key: RowKey; row: Row }>;
  connection: Connection;
  url: string;
  secret: string;
}

/** What POST /api/syncs/{id}/executions may ask of a run (README › Runs). */
export interface RunOptions {
  type: SyncExecution['type'];
  resync: boolean;
}

/** The source could not be read (a database gone, a table dropped): the run fails with this message. */
class SourceReadError extends Error {}

interface Batch {
  records: PendingRecord[];
  last: boolean;
}

/**
 * Runs of model syncs to their webhook destination (Spec › Events). A run goes through the
 * source's rows once, builds one batch at a time, and sends the batches one after another over a
 * keep-alive connection pool of its own. Each step of a delivery is a function of the pipeline
 * in the config (delivery.ts), read when the run starts.
 */
export class Runs {
  readonly #store: Store;
  readonly #config: ReferenceConfig;
  readonly #databases: SourceDatabases | undefined;
  readonly #agent: Agent;
  readonly #active = new Set<Promise<void>>();
  #closed = false;

  constructor(store: Store, config: ReferenceConfig, databases?: SourceDatabases) {
    this.#store = store;
    this.#config = config;
    this.#databases = databases;
    const timeoutMs = config.deliveryTimeoutMs;
    this.#agent = new Agent({ keepAliveTimeout: 30_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  }

  /**
   * Checks that the sync can run, records the run as created and lets it proceed through the
   * real service's states: the caller gets the run at once and reads its outcome later. Throws
   * not_runnable (400) or conflict (409: the sync's last run has not ended).
   */
  start(sync: ModelSync, options: RunOptions = { type: 'manual', resync: false }): SyncExecution {
    const plan = this.#plan(sync);
    if (sync.executions.some((execution) => !isEnded(execution))) {
      throw new ApiError('conflict', `a run of sync ${sync.id} has not ended yet; start another when it has`, { sync_id: sync.id });
    }
    const pipeline = this.#config.delivery;
    const run = this.#store.addExecution(sync, pipeline.openLog(sync), options);
    const work = this.#proceed(plan, run, pipeline)
      .catch(() => finish(run, 'failed', 'internal error in the reference service'))
      .finally(() => this.#active.delete(work));
    this.#active.add(work);
    return run;
  }

  /**
   * Asks a run to stop: one not ended becomes canceling, and canceled before its next batch (a
   * batch being sent is let finish). An ended run is left as it is.
   */
  cancel(run: SyncExecution): SyncExecution {
    if (!isEnded(run) && run.status !== 'canceling') setState(run, 'canceling');
    return run;
  }

  /** Stops sending: runs under way are interrupted at their next step, and open connections are dropped. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#agent.destroy();
    await Promise.allSettled([...this.#active]);
  }

  #plan(sync: ModelSync): RunPlan {
    const connection = this.#store.getConnection(sync.target.connection_id);
    if (!connection || connectionKind(connection.type)?.specKind !== 'webhook') {
      throw new ApiError('not_runnable', `sync ${sync.id} does not deliver to a webhook connection, the only destination the reference runs`, { sync_id: sync.id });
    }
    const model = sync.sourceId === null ? undefined : this.#store.getModel(sync.sourceId);
    const source = sync.sourceId === null ? undefined : this.#store.getSource(sync.sourceId);
    const rows = model ? this.#modelRows(model, sync) : source && (() => sourceRows(source));
    if (!rows) {
      throw new ApiError('not_runnable', `sync ${sync.id} names no source: its fields need source.model_id (a model made with POST /api/models, or a source made with POST /_reference/sources)`, { sync_id: sync.id });
    }
    return { sync, rows, connection, url: String(connection.configuration.url), secret: String(connection.configuration.secret) };
  }

  /** A model's table, read anew by each run (only the selected columns and the identifier). */
  #modelRows(model: Model, sync: ModelSync): RunPlan['rows'] {
    const databases = this.#databases;
    const store = this.#store;
    return async function* () {
      const connection = store.getConnection(model.connectionId);
      if (!databases || !connection) throw new SourceReadError(`the connection of model ${model.id} is gone`);
      const from = { schema: model.schema, table: model.table, key: model.identifier, columns: sync.selection.flatMap((s) => (s.field === null ? [] : [s.field])) };
      const reading = databases.stream(connection.configuration, (client) => readTable(client, from));
      try {
        for await (const row of reading) yield { key: rowKey(row[model.identifier] ?? null), row };
      } catch (error) {
        throw new SourceReadError(`table ${model.schema}.${model.table} could not be read: ${reason(error, connection.configuration)}`);
      }
    };
  }

  /**
   * created -> queued -> running, one turn of the event loop each (the answer that created the run
   * goes out first), then the delivery. The states are the real service's, so that a client sees
   * them pass; they cost no time worth counting.
   */
  async #proceed(plan: RunPlan, run: SyncExecution, p: DeliveryPipeline): Promise<void> {
    for (const state of ['queued', 'running'] as const) {
      await nextTurn();
      if (this.#stopping(run, 'before it started')) return;
      setState(run, state);
    }
    run.startedAt = run.updatedAt;
    await this.#deliver(plan, run, p);
  }

  /** Ends a run asked to stop (canceled) or caught by close() (interrupted); true when it did. */
  #stopping(run: SyncExecution, when: string): boolean {
    if (run.status === 'canceling') finish(run, 'canceled', null);
    else if (this.#closed) finish(run, 'interrupted', `the reference stopped ${when}`);
    return isEnded(run);
  }

  async #deliver(plan: RunPlan, run: SyncExecution, p: DeliveryPipeline): Promise<void> {
    const transport: Transport = { dispatcher: this.#agent, timeoutMs: this.#config.deliveryTimeoutMs };
    const toSend = pending(plan, run, p);
    try {
      await this.#sendBatches(plan, run, p, transport, toSend);
    } catch (error) {
      if (error instanceof SourceReadError) return finish(run, 'failed', error.message);
      throw error;
    } finally {
      // A run that stops early ends the reading too (a database client is let go).
      await toSend.return(undefined);
    }
  }

  async #sendBatches(plan: RunPlan, run: SyncExecution, p: DeliveryPipeline, transport: Transport, toSend: AsyncGenerator<PendingRecord>): Promise<void> {
    const { sync, connection } = plan;
    let index = 0;
    for await (const { records, last } of batches(toSend, p.batchSize(sync))) {
      index++;
      if (this.#stopping(run, `before batch ${index} was sent`)) return;
      const context = { sync, run, connection, records, index, last };
      const body = p.encodeBody(JSON.stringify(p.buildPayload(context)));
      const request = { method: 'POST', url: plan.url, headers: p.buildHeaders({ ...context, secret: plan.secret, body }), body };
      const at = new Date().toISOString();
      const outcome = await p.sendBatch(request, transport);
      p.capture(run.requests, { at, request, bodyBytes: body.byteLength, outcome });
      if (this.#closed && 'error' in outcome) return finish(run, 'interrupted', `the reference stopped while batch ${index} was being sent`);
      // The remaining batches are not sent: their rows stay undelivered, so the next run sends them.
      const failure = 'error' in outcome ? `batch ${index} was not delivered: ${outcome.error}` : p.isFailure(outcome.status) ? `receiver answered ${outcome.status} to batch ${index}` : null;
      if (failure !== null) {
        // The failed batch's records are the run's record errors; the rows after it were never read.
        run.counts.error += records.length;
        run.counts.total += records.length;
        return finish(run, 'failed', failure);
      }
      for (const record of records) {
        if (sync.deliveredHashes.has(record.key)) run.counts.update++;
        else run.counts.insert++;
        sync.deliveredHashes.set(record.key, record.hash);
      }
      run.counts.total += records.length;
      run.batchesDelivered++;
    }
    // A run asked to cancel after its last batch went out has nothing left to stop: it completed.
    finish(run, 'completed', null);
  }
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function setState(run: SyncExecution, status: ExecutionStatus): void {
  run.status = status;
  run.updatedAt = new Date().toISOString();
}

/** Ends a run once: the first end wins (a cancel that lost to a failure stays failed). */
function finish(run: SyncExecution, status: ExecutionStatus, error: string | null): void {
  if (isEnded(run)) return;
  setState(run, status);
  run.completedAt = run.updatedAt;
  if (error !== null) run.errors.push(error);
}

/** Rows read between two turns of the event loop, so that a long scan does not hold up answers. */
const ROWS_PER_TURN = 2048;

/**
 * The records a run sends, row by row as it gets to them. A 'baseline' run sends nothing and
 * marks every row's hash delivered, so that later runs send only differences.
 */
async function* pending({ sync, rows }: RunPlan, run: SyncExecution, p: DeliveryPipeline): AsyncGenerator<PendingRecord> {
  const mode: DeliveryMode = p.deliveryMode(sync, run);
  for await (const { key, row } of rows()) {
    const fields = p.selectFields(row, sync.selection);
    const hash = p.hashRecord(fields);
    if (mode === 'baseline') sync.deliveredHashes.set(key, hash);
    else if (p.isPending(hash, sync.deliveredHashes.get(key), mode)) yield { key, hash, fields };
  }
}

/** A test-control source's rows, as they are when the run gets to them. */
async function* sourceRows(source: Source): AsyncGenerator<{ key: RowKey; row: Row }> {
  let read = 0;
  for (const [key, row] of source.rows) {
    if (++read % ROWS_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    yield { key, row };
  }
}

/** A table row's key: 1 and "1" stay different keys, as in a test-control source. */
function rowKey(value: Value): RowKey {
  return typeof value === 'string' || typeof value === 'number' ? value : JSON.stringify(value);
}

/** Batches of at most `size` records, one at a time; one record of look-ahead tells the last batch. */
async function* batches(records: AsyncIterator<PendingRecord>, size: number): AsyncGenerator<Batch> {
  let next = await records.next();
  while (!next.done) {
    const batch: PendingRecord[] = [];
    while (!next.done && batch.length < size) {
      batch.push(next.value);
      next = await records.next();
    }
    yield { records: batch, last: next.done === true };
  }
}
