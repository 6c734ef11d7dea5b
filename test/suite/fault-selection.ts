import requirements from '../../specs/requirements.json' with { type: 'json' };

// What a fault's run selects (--only), shared by the fault matrix (test/suite/fault-matrix.test.ts)
// and its several-seed bench (bench/fault-seeds.ts), so that the bench measures the runs npm test
// judges. A fault's run selects the requirements it breaks (--only EHS-001,EHS-004, as a report's
// replay line does); the checks of those requirements run as in a whole run. What each row
// proves: every requirement the fault names fails, and nothing else selected does. What it does
// not prove: that the fault breaks nothing beyond its list (that the other checks of its area
// still pass under it). The matrix proved that for the areas other than webhooks until the
// 6-minute `npm test` of issue 15: a whole area cost ~0.5 to 0.8 s of CPU a fault more than the
// fault's own checks (11 faults: 29.7 s against 20.7 s; 9 faults in one warm process: 15.3 s
// against 9.1 s), 70 to 110 s over the matrix's 144 such faults; webhook faults had run their own
// requirements since 2026-11-24 (a webhooks run walks every scenario of the area: 9 faults, 65.7 s
// of CPU whole, 21.1 s their own checks). A check stricter than the spec is what the clean run and
// the benign matrix, which run every area, are there to catch; a fault whose list is short is a
// wrong description of one of our reference's faults, not a wrong verdict of the kit. Two cheaper proofs were weighed
// and refused before: a run of several faults of an area at once hides a fault's undeclared
// failure inside a partner's list (and one fault can mask another).

/** Each requirement's area: its spec file without `.spec.ts`. */
export const AREA: ReadonlyMap<string, string> = new Map(requirements.requirements.map((r) => [r.id, r.spec.replace(/\.spec\.ts$/, '')]));

/** The --only value of the run of a fault that breaks `ids`. */
export const selectionOf = (ids: readonly string[]): string => [...ids].sort().join(',');

/** A fault's run, as the matrix makes it: its selection, and the one version it shows under, if any. */
export function faultRunArgs(fault: { name: string; breaks: readonly string[]; apiVersion?: string }, seed: string, numRuns: string): string[] {
  return ['run', '--fault', fault.name, '--only', selectionOf(fault.breaks), '--seed', seed, '--num-runs', numRuns, ...(fault.apiVersion ? ['--api-version', fault.apiVersion] : [])];
}

/**
 * A fault's run first walks only the enumerated cases and one generated case (--num-runs 1): most
 * faults show there, and the model-based error-handling checks cost a tenth of a deep run. A run
 * that does not show the fault there is repeated at the full depth, and that run is the one judged.
 * At the matrix's seed every fault of the catalogue is exact at the first depth (236 of 236 in
 * one measured matrix, and the 237th, added since, alone), so the deeper run costs nothing there: it is there for a new fault or check whose case
 * only a deeper walk reaches, and for other seeds (bench/fault-seeds.ts).
 */
export const SHALLOW_RUNS = '1';
export const FULL_RUNS = '10';
