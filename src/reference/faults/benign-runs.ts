import { ApiError } from '../errors.ts';
import { beforeRoute, editSuccess, ROUTES, type Fault, type ReferenceSeams } from './fault.ts';

// Benign variants of a run's life as the real service shows it (the spec shows no run API at all,
// so every answer here conforms): runs that pass through states under way before their end, a
// start refused with 409 just after a run, and record errors in place of a failed run. The
// adapter must cope with each; the webhook checks must pass under each.

type Data = Record<string, unknown>;

const runIdOf = (request: { params: unknown }) => String((request.params as { execution_id?: unknown }).execution_id);
const syncIdOf = (request: { params: unknown }) => String((request.params as { id?: unknown }).id);

/** The states the first reads of a run answer, whatever it is doing: the real service's states under way. */
const STATES_UNDER_WAY = ['created', 'scheduled', 'queued', 'waiting', 'processing'];

export const runVariants: readonly Fault[] = [
  {
    name: 'runs-pass-through-states',
    breaks: [],
    description: "A run starts 'created' and its first reads answer scheduled, queued, waiting, processing (then running) before its end, as the real service's runs do.",
    apply: ({ app }) => {
      const reads = new Map<string, number>();
      editSuccess(app, 'POST', ROUTES.runs, (data) => {
        data.status = 'created';
        data.created_at = new Date().toISOString();
      });
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
        if (!sync || !last || last.status === 'running' || refused.has(last.id)) return;
        refused.add(last.id);
        throw new ApiError('conflict', `a run of sync ${sync.id} is still being released; start another in a moment`, { sync_id: sync.id });
      });
    },
  },
  {
    name: 'runs-record-errors',
    breaks: [],
    description: "A run whose receiver answered 4xx/5xx (or did not answer) ends 'completed' with counts.error and errors[] (completed with record errors), not 'failed'; every ended run carries counts.",
    apply: (seams) => failedAsCompleted(seams, true),
  },
];

/**
 * Answers a failed run as 'completed' in the real service's shape (counts, errors[],
 * completed_at); with `counted`, its record errors are the records of the batch that failed,
 * without, none (the failure is then shown nowhere).
 */
function failedAsCompleted({ app, config }: ReferenceSeams, counted: boolean): void {
  // Records of the batch a run was sending when it stopped: the ones in error.
  const lastBatch = new Map<string, number>();
  const buildPayload = config.delivery.buildPayload;
  config.delivery.buildPayload = (batch) => {
    lastBatch.set(batch.run.id, batch.records.length);
    return buildPayload(batch);
  };
  editSuccess(app, 'GET', ROUTES.run, (data: Data) => {
    if (data.status !== 'completed' && data.status !== 'failed') return;
    const delivered = typeof data.records_delivered === 'number' ? data.records_delivered : 0;
    const errored = counted && data.status === 'failed' ? Math.max(lastBatch.get(String(data.id)) ?? 1, 1) : 0;
    data.counts = { total: delivered + errored, insert: 0, update: 0, upserts: delivered, delete: 0, error: errored, warnings: 0 };
    data.errors = errored > 0 ? [{ message: String(data.error ?? 'records were not delivered') }] : [];
    data.completed_at = data.finished_at;
    data.status = 'completed';
    data.error = null;
  });
}

/** The boundary of runs-record-errors: the same answer without the record errors. */
export const runFaults: readonly Fault[] = [
  {
    name: 'failure-hidden-as-completed',
    breaks: ['WH-020', 'WH-021'],
    description: "A run whose receiver answered 4xx/5xx ends 'completed' with counts.error 0 and no errors[]: the failure shows nowhere (as runs-record-errors, but uncounted).",
    apply: (seams) => failedAsCompleted(seams, false),
  },
];
