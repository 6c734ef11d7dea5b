import requirements from '../../specs/requirements.json' with { type: 'json' };

// What a fault's run selects (--only), shared by the fault matrix (test/suite/fault-matrix.test.ts)
// and its several-seed bench (bench/fault-seeds.ts), so that the bench measures the runs npm test
// judges. A fault's run selects the whole areas (spec files) of the requirements it breaks, so that
// nothing else in them fails either, except in the webhooks area: there it selects the requirements
// themselves (--only WH-016,WH-017, as a report's replay line does). A webhooks run walks every
// scenario of the area whatever the fault breaks (9 faults, measured: 65.7 s of CPU whole, 21.1 s
// their own checks), and 92 faults are webhook faults. In the other areas the whole area costs
// ~0.5 to 0.8 s of CPU a fault more than its own checks (11 faults: 29.7 s against 20.7 s; measured
// again, 9 faults in one warm process: 15.3 s against 9.1 s), 70 to 110 s over the matrix's 144
// other faults: kept, because nothing cheaper proves what it proves there, that no other check of
// the area fails under the fault (its list is complete, and a failure names the requirement that
// was broken). Two cheaper proofs were weighed and refused: a run of several faults of an area at
// once, judged against the union of their lists, hides a fault's undeclared failure inside a
// partner's list (and one fault can mask another); adding the partners' requirements to each
// fault's own run, which closes that, costs about what the area costs.

/** Each requirement's area: its spec file without `.spec.ts`. */
export const AREA: ReadonlyMap<string, string> = new Map(requirements.requirements.map((r) => [r.id, r.spec.replace(/\.spec\.ts$/, '')]));

const areasOf = (ids: readonly string[]) => [...new Set(ids.map((id) => AREA.get(id) ?? id))].sort().join(',');

/** Areas whose checks a fault's run selects one by one (see above); the others are selected whole. */
const BY_REQUIREMENT = new Set(['webhooks']);

/** The --only value of the run of a fault that breaks `ids`. */
export const selectionOf = (ids: readonly string[]): string => (ids.some((id) => BY_REQUIREMENT.has(AREA.get(id)!)) ? [...ids].sort().join(',') : areasOf(ids));

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
