import type { DeliveryOutcome } from '../delivery.ts';
import { editSuccess, ROUTES, type Fault } from './fault.ts';
import { batchOfBody } from './held-out-webhooks.ts';

// Held-out webhook faults (issue 18) on runs: modes, answers of the receiver, run status read
// again, the capture log. See held-out-webhooks.ts.

const runIdOf = (request: { params: unknown }) => String((request.params as { execution_id?: unknown }).execution_id);

/** Bends the receiver's answer to the batches `when` picks, as the engine then sees it. */
function bendOutcome(p: Parameters<Fault['apply']>[0]['config']['delivery'], bend: (o: DeliveryOutcome, last: boolean, index: number) => DeliveryOutcome): void {
  const batches = batchOfBody(p);
  const sendBatch = p.sendBatch;
  p.sendBatch = async (request, transport) => {
    const outcome = await sendBatch(request, transport);
    const batch = batches.get(request.body);
    return batch ? bend(outcome, batch.last, batch.index) : outcome;
  };
}

export const heldOutRunFaults: readonly Fault[] = [
  {
    name: 'ho-full-sync-forgotten-third-run',
    breaks: ['WH-018'],
    description: 'Always-full-sync is honoured on the first two runs only; from the 3rd run on, only differences go out.',
    apply: ({ config: { delivery: p } }) => {
      const deliveryMode = p.deliveryMode;
      p.deliveryMode = (sync, run) => {
        const mode = deliveryMode(sync, run);
        return mode === 'all' && sync.sync_all_records && !run.resync && run.ordinal >= 3 ? 'changes' : mode;
      };
    },
  },
  {
    name: 'ho-skip-backfill-tail-not-baselined',
    breaks: ['WH-019'],
    description: 'The skip-backfill baseline is recorded per full batch: the rows of the partial tail are delivered by the 2nd run though unchanged.',
    apply: ({ config: { delivery: p } }) => {
      const deliveryMode = p.deliveryMode;
      p.deliveryMode = (sync, run) => {
        if (sync.skip_initial_backfill && run.ordinal === 2) {
          const keys = [...sync.deliveredHashes.keys()];
          for (const key of keys.slice(keys.length - (keys.length % p.batchSize(sync)))) sync.deliveredHashes.delete(key);
        }
        return deliveryMode(sync, run);
      };
    },
  },
  {
    name: 'ho-change-back-not-sent',
    breaks: ['WH-017'],
    description: 'Change detection looks a hash up among every hash the sync ever delivered: a row changed back to an earlier value is not sent.',
    apply: ({ config: { delivery: p } }) => {
      const seen = new Set<string>();
      const isPending = p.isPending;
      p.isPending = (hash, lastDelivered, mode) => {
        if (lastDelivered !== undefined) seen.add(lastDelivered);
        if (mode === 'changes' && lastDelivered !== undefined && seen.has(hash)) return false;
        return isPending(hash, lastDelivered, mode);
      };
    },
  },
  {
    name: 'ho-change-in-last-field-ignored',
    breaks: ['WH-017'],
    description: 'The change fingerprint covers every selected field but the last (an off-by-one over the selection): a change only there is not sent.',
    apply: ({ config: { delivery: p } }) => {
      const fingerprint = new Map<string, string>();
      const hashRecord = p.hashRecord;
      p.hashRecord = (fields) => {
        const hash = hashRecord(fields);
        fingerprint.set(hash, JSON.stringify(Object.entries(fields).slice(0, -1)));
        return hash;
      };
      const isPending = p.isPending;
      p.isPending = (hash, lastDelivered, mode) => {
        const was = lastDelivered === undefined ? undefined : fingerprint.get(lastDelivered);
        if (mode === 'changes' && was !== undefined && was === fingerprint.get(hash)) return false;
        return isPending(hash, lastDelivered, mode);
      };
    },
  },
  {
    name: 'ho-failed-run-reads-completed-later',
    breaks: ['WH-020', 'WH-021'],
    description: 'A failed run reads failed once; later reads recompute its status from the batches delivered and say completed.',
    apply: ({ app }) => {
      const reads = new Map<string, number>();
      editSuccess(app, 'GET', ROUTES.run, (data, request) => {
        if (data.status !== 'failed') return;
        const n = (reads.get(runIdOf(request)) ?? 0) + 1;
        reads.set(runIdOf(request), n);
        if (n >= 2) data.status = 'completed';
      });
    },
  },
  {
    name: 'ho-last-batch-4xx-ignored',
    breaks: ['WH-020'],
    description: 'A 4xx to the last batch of a run of several is ignored (the run is taken as done once its last batch is out).',
    apply: ({ config: { delivery: p } }) =>
      bendOutcome(p, (o, last, index) => ('status' in o && o.status >= 400 && o.status < 500 && last && index > 1 ? { status: 200, body: o.body } : o)),
  },
  {
    name: 'ho-409-taken-as-success',
    breaks: ['WH-020'],
    description: 'A 409 Conflict answer is taken as "the receiver has these records already": success.',
    apply: ({ config: { delivery: p } }) => {
      const isFailure = p.isFailure;
      p.isFailure = (status) => status !== 409 && isFailure(status);
    },
  },
  {
    name: 'ho-502-taken-as-success',
    breaks: ['WH-021'],
    description: 'A 502 answer is taken for a proxy hiccup after delivery: success.',
    apply: ({ config: { delivery: p } }) => {
      const isFailure = p.isFailure;
      p.isFailure = (status) => status !== 502 && isFailure(status);
    },
  },
  {
    name: 'ho-504-taken-as-success',
    breaks: ['WH-021'],
    description: 'A 504 Gateway Timeout is taken as "probably delivered": success.',
    apply: ({ config: { delivery: p } }) => {
      const isFailure = p.isFailure;
      p.isFailure = (status) => status !== 504 && isFailure(status);
    },
  },
  {
    name: 'ho-capture-misses-last-exchange',
    breaks: ['WH-022'],
    description: 'The capture log of a run of several batches lacks the last exchange (flushed before it was added).',
    apply: ({ config: { delivery: p } }) => {
      const batches = batchOfBody(p);
      const capture = p.capture;
      p.capture = (log, exchange) => {
        const batch = batches.get(exchange.request.body);
        if (batch && batch.last && batch.index > 1) return;
        capture(log, exchange);
      };
    },
  },
  {
    name: 'ho-capture-off-ignored-second-run',
    breaks: ['WH-022'],
    description: 'Capture off is honoured on the first run of a sync only; later runs log their exchanges.',
    apply: ({ config: { delivery: p } }) => {
      const openLog = p.openLog;
      p.openLog = (sync) => openLog(sync) ?? (sync.executions.length >= 1 ? [] : null);
    },
  },
  {
    name: 'ho-capture-status-always-200',
    breaks: ['WH-022'],
    description: 'The capture log records every response as 200 (the status is logged before the answer is read).',
    apply: ({ config: { delivery: p } }) => {
      const capture = p.capture;
      p.capture = (log, exchange) => capture(log, { ...exchange, outcome: 'status' in exchange.outcome ? { ...exchange.outcome, status: 200 } : exchange.outcome });
    },
  },
];
