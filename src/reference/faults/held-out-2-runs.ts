import { DEFAULT_BATCH_SIZE } from '../delivery.ts';
import { copyBulkErrorHandling, copySyncErrorHandling, DEFAULT_SYNC_ERROR_HANDLING, type BulkSyncErrorHandling, type ModelSync, type RowKey, type SyncErrorHandling, type SyncExecution } from '../store.ts';
import { wrapStore, type Fault } from './fault.ts';
import { compareKeys, editRunAnswers, ignoreFailures, judgeRows, onExchange, previousRun, recordCompleted } from './held-out-2-runs-seams.ts';

// Round-2 held-out faults on the stateful side of syncs (held-out hunt, round 2): runs, their
// states on a later read, sync modes over several batches and runs, what a run does after a
// failed batch, and the error-handling settings over several writes. Written from the spec alone,
// before reading the suite; each shows under one value of some dimension (which batch fails,
// which run, a second sync, a second write, a later read). These are the ones the suite missed
// and catches since (the input-space dimensions preceded-by and after-refusal, WH-024, the reads
// after another sync's write); the ones it caught at once are in held-out-2-runs-caught.ts.

export const FAILED_WORDS = 'Spec › Events › Emission 3 "Any 4xx or 5xx answer from the receiver makes the sync appear as failed"; Errors › Specific cases 2 "the sync is recorded as failed"';

/** How long after its end a failed run still reads failed under h2r-failed-run-decays. */
const DECAY_MS = 1500;

export const heldOut2RunFaults: readonly Fault[] = [
  {
    name: 'h2r-repeat-failure-completes',
    breaks: ['WH-020', 'WH-021'],
    description: `A run whose previous run (same sync) failed is recorded completed when it fails too: the vendor reports only a change of health. ${FAILED_WORDS}.`,
    apply: ({ store, config: { delivery: p } }) =>
      onExchange(p, ({ batch, failed }) => {
        const sync = store.getModelSync(batch.sync.id);
        if (failed && sync && previousRun(sync, batch.run)?.status === 'failed') recordCompleted(batch.run);
      }),
  },
  {
    name: 'h2r-status-from-last-batch',
    breaks: ['WH-020', 'WH-021', 'WH-024'],
    description: `A failed batch that is not the run's last is passed over (its records counted delivered) and the run goes on: the run's status is its last batch's. ${FAILED_WORDS}.`,
    apply: ({ config: { delivery: p } }) => ignoreFailures(p, ({ batch }) => !batch.last),
  },
  {
    name: 'h2r-capture-log-dropped-by-next-run',
    breaks: ['WH-022'],
    description: 'The sync history keeps only the newest run\'s log: once another run of the sync started, an earlier run\'s capture log reads empty. Spec › Events › Emission 6 "each request and its response are logged in the sync history".',
    apply: ({ app, store }) =>
      editRunAnswers(app, (data) => {
        const sync = store.getModelSync(String(data.sync_id));
        if (sync && Array.isArray(data.requests) && sync.executions.at(-1)?.id !== data.id) data.requests = [];
      }),
  },
  {
    name: 'h2r-failed-records-never-retried',
    breaks: ['WH-024'],
    description: 'The records of a failed batch are marked delivered, whatever auto_retry_record_errors says: with it true, the next run does not retry them. Spec › SyncErrorHandling "auto_retry_record_errors: Whether failed records are retried automatically on the next run".',
    apply: ({ config: { delivery: p } }) =>
      onExchange(p, ({ batch, failed }) => {
        if (failed) for (const record of batch.records) batch.sync.deliveredHashes.set(record.key, record.hash);
      }),
  },
  {
    name: 'h2r-unsent-rows-skipped-after-failure',
    breaks: ['WH-024'],
    description: 'After a failed batch the source cursor is moved to the end: the next run retries the failed batch but skips (and marks delivered) the never-delivered rows that came after it. Spec › What the service does 3 "only new or changed rows are delivered after the first run. The first run delivers everything in the source".',
    apply: ({ store, config: { delivery: p } }) => {
      const failedAt = new WeakMap<ModelSync, { keys: Set<RowKey>; last: RowKey }>();
      const resuming = new WeakMap<SyncExecution, { keys: Set<RowKey>; last: RowKey }>();
      onExchange(p, ({ batch, failed }) => {
        const last = batch.records.at(-1);
        if (failed && last) failedAt.set(batch.sync, { keys: new Set(batch.records.map((r) => r.key)), last: last.key });
      });
      const deliveryMode = p.deliveryMode;
      p.deliveryMode = (sync, run) => {
        const at = failedAt.get(sync);
        failedAt.delete(sync);
        if (at && previousRun(sync, run)?.status === 'failed') resuming.set(run, at);
        return deliveryMode(sync, run);
      };
      judgeRows(store, p, ({ sync, run, key }, hash, lastDelivered, original) => {
        const at = resuming.get(run);
        if (at && lastDelivered === undefined && !at.keys.has(key) && (compareKeys(key, at.last) ?? 0) > 0) {
          sync.deliveredHashes.set(key, hash);
          return false;
        }
        return original();
      });
    },
  },
  {
    name: 'h2r-full-sync-resumes-after-failure',
    breaks: ['WH-024'],
    description: 'With "Always do a full sync", the run after a failed run resumes: it sends only the rows not delivered yet, not everything. Spec › Webhook settings "Always do a full sync … every run syncs everything in the source".',
    apply: ({ config: { delivery: p } }) => {
      const deliveryMode = p.deliveryMode;
      p.deliveryMode = (sync, run) => {
        const mode = deliveryMode(sync, run);
        return mode === 'all' && previousRun(sync, run)?.status === 'failed' ? 'changes' : mode;
      };
    },
  },
  {
    name: 'h2r-skip-backfill-redone-after-settings-put',
    breaks: ['WH-019'],
    description: 'A PUT of a skip-backfill sync\'s error-handling settings re-creates its job: the next run is a first run again and sends nothing, changes included. Spec › Webhook settings "only later differences are synced"; Spec › What the service does 3.',
    apply: ({ store, config: { delivery: p } }) => {
      const again = new Set<string>();
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const answer = original(id, patch);
        if (answer) again.add(id);
        return answer;
      });
      const deliveryMode = p.deliveryMode;
      p.deliveryMode = (sync, run) => {
        if (sync.skip_initial_backfill && run.ordinal > 1 && again.delete(sync.id)) return 'baseline';
        return deliveryMode(sync, run);
      };
    },
  },
  {
    name: 'h2r-eh-shared-by-destination',
    breaks: ['EHS-011'],
    description: 'Model-sync error handling is stored per destination connection: a PUT on one sync changes every sync delivering to the same connection. Spec › PUT /api/syncs/{id}/error-handling "Updates the error-handling settings of a model sync"; Rules 1 "A field that is omitted stays unchanged".',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        const answer = original(id, patch);
        const sync = store.getModelSync(id);
        if (answer && sync) {
          for (const other of store.modelSyncs.values()) if (other !== sync && other.target.connection_id === sync.target.connection_id) other.errorHandling = copySyncErrorHandling(answer);
        }
        return answer;
      }),
  },
  {
    name: 'h2r-eh-reset-by-run',
    breaks: ['WH-024'],
    description: 'Starting a run re-saves the sync from its run template: its error-handling settings go back to the defaults. Spec › PUT /api/syncs/{id}/error-handling Rules 1 "A field that is omitted stays unchanged".',
    apply: ({ store }) =>
      wrapStore(store, 'addExecution', (original) => (sync, requests, options) => {
        sync.errorHandling = copySyncErrorHandling(DEFAULT_SYNC_ERROR_HANDLING);
        return original(sync, requests, options);
      }),
  },
  {
    name: 'h2r-eh-empty-subscribers-mute-flags',
    breaks: ['EHS-001'],
    description: 'Emptying the subscribers list also turns notify_on_record_errors and warning_notifications off (no one is left to notify). Spec › PUT Rules 1 "A field that is omitted stays unchanged".',
    apply: ({ store }) =>
      wrapStore(store, 'updateSyncErrorHandling', (original) => (id, patch) => {
        // Only the flags the PUT omits are muted: one it sends is taken as sent.
        const muted: Partial<SyncErrorHandling> = patch.subscribers?.length === 0 ? { notify_on_record_errors: false, warning_notifications: false } : {};
        return original(id, { ...muted, ...patch });
      }),
  },
];

/**
 * Still missed, kept out of the catalogue. h2r-failed-run-decays changes a run only after time
 * has passed, and the suite never waits (later.ts): a re-read on a loaded machine may come late
 * enough to see it (seed 1 did once), so it is no stable fault. h2r-model-page-boundary-row-skipped
 * shows only over a source longer than the target's page (here 1000 rows); the suite's longest is
 * 250 rows plus the edge rows, and a page size is not shown.
 */
export const heldOut2RunStillMissed: readonly Fault[] = [
  {
    name: 'h2r-failed-run-decays',
    breaks: [],
    description: `A failed run reads failed at once, but as completed (errors []) once it ended more than ${DECAY_MS} ms ago: the status is recomputed from a short-lived job table. ${FAILED_WORDS}.`,
    apply: ({ app }) =>
      editRunAnswers(app, (data) => {
        if (data.status === 'failed' && typeof data.completed_at === 'string' && Date.now() - Date.parse(data.completed_at) > DECAY_MS) {
          data.status = 'completed';
          data.errors = [];
        }
      }),
  },
  {
    name: 'h2r-model-page-boundary-row-skipped',
    breaks: [],
    description: 'A run reads a source in pages of 1000 and skips the first row of the second page (an off-by-one in its offset): row 1001 is never delivered. Spec › What the service does 3 "The first run delivers everything in the source".',
    apply: ({ store, config: { delivery: p } }) => judgeRows(store, p, ({ place, mode }, _hash, _last, original) => (mode !== 'baseline' && place === 1001 ? false : original())),
  },
];
