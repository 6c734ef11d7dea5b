import type { Fault } from './fault.ts';

// Held-out webhook faults (issue 18) on runs: modes, answers of the receiver, the capture log.
// See held-out-webhooks.ts.

export const heldOutRunFaults: readonly Fault[] = [
  {
    name: 'skip-backfill-tail-not-baselined',
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
    name: 'change-back-not-sent',
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
    name: 'conflict-answer-completes',
    breaks: ['WH-020'],
    description: 'A 409 Conflict answer is taken as "the receiver has these records already": success.',
    apply: ({ config: { delivery: p } }) => {
      const isFailure = p.isFailure;
      p.isFailure = (status) => status !== 409 && isFailure(status);
    },
  },
  {
    name: 'gateway-timeout-completes',
    breaks: ['WH-021'],
    description: 'A 504 Gateway Timeout is taken as "probably delivered": success.',
    apply: ({ config: { delivery: p } }) => {
      const isFailure = p.isFailure;
      p.isFailure = (status) => status !== 504 && isFailure(status);
    },
  },
  {
    name: 'capture-off-first-run-only',
    breaks: ['WH-022'],
    description: 'Capture off is honoured on the first run of a sync only; later runs log their exchanges.',
    apply: ({ config: { delivery: p } }) => {
      const openLog = p.openLog;
      p.openLog = (sync) => openLog(sync) ?? (sync.executions.length >= 1 ? [] : null);
    },
  },
];
