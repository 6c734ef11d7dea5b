import type { DimensionValue } from '../generators/input-space.ts';

// What a check walked of the input space that the request log cannot show (when an outcome was
// observed, a sync's mode, how many batches a run sent, which batch was refused): recorded so that
// `dss-conformance coverage --input-space` reads it from the run. Request-level dimensions
// (version, credential, ids, lengths, shapes) are read from the requests themselves instead.

/** Records that `operation` (a key of input-space.json's operations) was exercised with these values. */
export function walked(operation: string, values: Record<string, DimensionValue>): void {
  void operation;
  void values;
}
