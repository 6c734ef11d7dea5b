import { ApiError } from '../errors.ts';
import { isEnded } from '../store.ts';
import { beforeRoute, editSuccess, ROUTES, type Fault, type ReferenceSeams } from './fault.ts';

// Benign variants of a run's life as the real service shows it (the spec shows no run API at all,
// so every answer here conforms). The reference's own runs already pass through created, queued
// and running within a few ms; these stretch or bend that: states under way that last several
// reads, a start refused with 409 just after a run, and a failed run's end under a word of the
// target's own that the profile maps to failed.
// The adapter must cope with each; the webhook checks must pass under each.

type Data = Record<string, unknown>;

const runIdOf = (request: { params: unknown }) => String((request.params as { execution_id?: unknown }).execution_id);
const syncIdOf = (request: { params: unknown }) => String((request.params as { id?: unknown }).id);

/** The states the first reads of a run answer, whatever it is doing: the real service's states under way. */
const STATES_UNDER_WAY = ['created', 'scheduled', 'queued', 'waiting', 'processing'];

export const runVariants: readonly Fault[] = [
  {
    name: 'runs-pass-through-states',
    breaks: [],
    description: "A run's first reads answer created, scheduled, queued, waiting, processing before its real state, whatever it is doing, as the real service's slow runs do (the reference's own states pass within a few ms).",
    apply: ({ app }) => {
      const reads = new Map<string, number>();
      editSuccess(app, 'GET', ROUTES.run, (data, request) => {
        const n = reads.get(runIdOf(request)) ?? 0;
        reads.set(runIdOf(request), n + 1);
        if (n < STATES_UNDER_WAY.length) data.status = STATES_UNDER_WAY[n];
      });
    },
  },
  {
    name: 'runs-busy-after-end',
    breaks: [],
    description: 'The first start of a sync after one of its runs ended answers 409 conflict (the run is still being released), as the real service may; the next start is accepted.',
    apply: ({ app, store }) => {
      const refused = new Set<string>();
      beforeRoute(app, 'POST', ROUTES.runs, (request) => {
        const sync = store.getModelSync(syncIdOf(request));
        const last = sync?.executions.at(-1);
        if (!sync || !last || !isEnded(last) || refused.has(last.id)) return;
        refused.add(last.id);
        throw new ApiError('conflict', `a run of sync ${sync.id} is still being released; start another in a moment`, { sync_id: sync.id });
      });
    },
  },
  {
    name: 'runs-completed-with-errors',
    breaks: [],
    description: "A run whose receiver answered 4xx/5xx (or did not answer) ends 'completed_with_errors', with its counts.error and errors[]: a word of the target's own, which the reference profile maps to failed (adapter.declarative.statuses.failed).",
    apply: ({ app }) =>
      editSuccess(app, 'GET', ROUTES.run, (data: Data) => {
        if (data.status === 'failed') data.status = 'completed_with_errors';
      }),
  },
];

/**
 * Answers a failed run as 'completed', the real service's "completed with record errors"; with
 * `counted`, its counts.error (the records of the batch that failed) and errors[] stay, without,
 * they are cleared (the failure is then shown nowhere).
 */
function failedAsCompleted({ app }: ReferenceSeams, counted: boolean): void {
  editSuccess(app, 'GET', ROUTES.run, (data: Data) => {
    if (data.status !== 'failed') return;
    if (counted) data.status = 'completed';
    else clearFailure(data);
  });
}

/** A run's answer as if it had completed with nothing failed. */
function clearFailure(data: Data): void {
  data.status = 'completed';
  const counts = data.counts as { total: number; error: number };
  counts.total -= counts.error;
  counts.error = 0;
  data.errors = [];
}

/**
 * A run's end answered otherwise than it was: a failed run as 'completed' (the spec's "recorded
 * as failed" needs an end the profile maps to failed, which record errors under 'completed' are
 * not: README › Interpretations), or a completed run rewritten once its end was first read.
 */
export const runFaults: readonly Fault[] = [
  {
    name: 'failure-hidden-as-completed',
    breaks: ['WH-020', 'WH-021'],
    description: "A run whose receiver answered 4xx/5xx ends 'completed' with counts.error 0 and no errors[]: the failure shows nowhere.",
    apply: (seams) => failedAsCompleted(seams, false),
  },
  {
    name: 'runs-record-errors',
    breaks: ['WH-020', 'WH-021'],
    description: "A run whose receiver answered 4xx/5xx ends 'completed' with its counts.error and errors[] (completed with record errors): the records are shown failed, the run is not (an earlier, more lenient reading took this as the run appearing failed).",
    apply: (seams) => failedAsCompleted(seams, true),
  },
  {
    name: 'failed-run-reads-completed-later',
    breaks: ['WH-020', 'WH-021'],
    description: "A failed run answers 'failed' to the read that first sees it ended, and 'completed' (counts.error 0, no errors[]) to every read after that: the failure is not kept.",
    apply: ({ app }) => {
      const seenEnded = new Set<string>();
      editSuccess(app, 'GET', ROUTES.run, (data: Data, request) => {
        if (data.status !== 'failed') return;
        const id = runIdOf(request);
        if (!seenEnded.has(id)) return void seenEnded.add(id);
        clearFailure(data);
      });
    },
  },
  {
    name: 'completed-run-reads-failed-later',
    breaks: ['WH-017', 'WH-018', 'WH-019'],
    description: "A completed run answers 'completed' to the read that first sees it ended, and 'failed' to every read after that: a finished run is rewritten (only a second read shows it).",
    apply: ({ app }) => {
      const seenEnded = new Set<string>();
      editSuccess(app, 'GET', ROUTES.run, (data: Data, request) => {
        if (data.status !== 'completed') return;
        const id = runIdOf(request);
        if (!seenEnded.has(id)) return void seenEnded.add(id);
        data.status = 'failed';
      });
    },
  },
  {
    name: 'completed-run-errors-counted-later',
    breaks: ['WH-017', 'WH-018', 'WH-019'],
    description: "A completed run that delivered records answers with counts.error 0 to the read that first sees it ended, and with every record counted an error afterwards (still 'completed'): its record counts change once it is read again.",
    apply: ({ app }) => {
      const seenEnded = new Set<string>();
      editSuccess(app, 'GET', ROUTES.run, (data: Data, request) => {
        const counts = data.counts as { total: number; error: number } | undefined;
        if (data.status !== 'completed' || !counts || counts.total === 0) return;
        const id = runIdOf(request);
        if (!seenEnded.has(id)) return void seenEnded.add(id);
        counts.error = counts.total;
      });
    },
  },
  {
    name: 'completed-run-failed-by-empty-next-run',
    breaks: ['WH-017', 'WH-019'],
    description: "Once a later run of the sync has ended having delivered nothing (no change to send), a completed earlier run answers 'failed' (the empty run is taken as a sign the earlier one's records were lost): only a run read again after another run of its sync that sends nothing shows it.",
    apply: ({ app, store }) =>
      editSuccess(app, 'GET', ROUTES.run, (data: Data, request) => {
        if (data.status !== 'completed') return;
        const runs = store.getModelSync(syncIdOf(request))?.executions ?? [];
        const at = runs.findIndex((r) => r.id === runIdOf(request));
        if (at !== -1 && runs.slice(at + 1).some((r) => r.status === 'completed' && r.batchesDelivered === 0)) data.status = 'failed';
      }),
  },
  {
    name: 'failed-run-completed-by-next-run',
    breaks: ['WH-020', 'WH-021'],
    description: "A run's end is read from its sync's latest run: once a later run of the sync has completed, a failed earlier run answers 'completed' (counts.error 0, no errors[]).",
    apply: ({ app, store }) =>
      editSuccess(app, 'GET', ROUTES.run, (data: Data, request) => {
        if (data.status !== 'failed') return;
        const latest = store.getModelSync(syncIdOf(request))?.executions.at(-1);
        if (latest && latest.id !== runIdOf(request) && latest.status === 'completed') clearFailure(data);
      }),
  },
];
