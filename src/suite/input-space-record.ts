import type { DimensionValue } from '../generators/input-space.ts';
import { logWalked } from './context.ts';

// What a check walked of the input space that the request log cannot show (when an outcome was
// observed, a sync's mode, how many batches a run sent, which batch was refused): recorded so that
// `dss-conformance coverage --input-space` reads it from the run. Request-level dimensions
// (version, credential, ids, lengths, shapes) are read from the requests themselves instead.
// Each call is one line appended to the run's raw request log (it survives an interruption); the
// runner renders walked.json from it at the end of the run.

/** Records that `operation` (a key of input-space.json's operations) was exercised with these values. */
export function walked(operation: string, values: Record<string, DimensionValue>): void {
  try {
    logWalked(operation, values);
  } catch {
    // Outside a run (no reports folder to write to) there is nothing to record.
  }
}
