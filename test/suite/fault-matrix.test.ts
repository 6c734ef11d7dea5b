import { describe, expect, test } from 'vitest';
import { faultCatalogue } from '../../src/reference/faults.ts';
import { failedIds, runCli } from './run-cli.ts';
import { useSharedSourceDb } from '../helpers/shared-source-db.ts';
import { useRunServers } from './run-server-pool.ts';
import { AREA, FULL_RUNS, SHALLOW_RUNS, faultRunArgs, selectionOf } from './fault-selection.ts';

// The runs share the embedded source database of `npm test` (test/helpers/shared-source-db.ts), and a few
// processes that each do one run after another (test/suite/run-server-pool.ts): loading the kit
// was most of a small run's CPU.
const sourceDb = useSharedSourceDb();
const servers = useRunServers();

// The proof that every check can fail: the suite runs against the reference with one rule broken
// at a time and must fail exactly the requirements that fault names. What each fault's run selects
// (its own requirements), and what that does not prove, is test/suite/fault-selection.ts's
// (shared with bench/fault-seeds.ts, which runs this matrix over several seeds). Each row's claim:
// every requirement the fault names fails, its checks run as in a whole run, and nothing else
// selected fails. A check failing beside a fault's own says the fault breaks more than it names
// (its row still proves what it names), or that the check is stricter than the spec, which is what
// the clean run below and the benign matrix (every area, every variant) are there to catch.

const SEED = '20261122';

describe('the suite against the clean reference', () => {
  test('passes every applicable check (exit 0)', async () => {
    const run = await runCli(['run', '--seed', SEED, '--num-runs', '10']);
    expect(run.result && failedIds(run.result), run.stdout + run.stderr).toEqual([]);
    expect(run.code).toBe(0);
  });
});

// A fault's run is first shallow (SHALLOW_RUNS), and repeated at FULL_RUNS unless it already
// failed exactly what the fault breaks: a fault is never passed on the shallow run alone otherwise.

describe('what the fault runs select', () => {
  test('every requirement a fault breaks is a known ID, inside what its run selects', () => {
    for (const fault of faultCatalogue()) {
      const selected = selectionOf(fault.breaks).split(',');
      for (const id of fault.breaks) {
        expect(AREA.has(id), `${fault.name}: ${id}`).toBe(true);
        expect([id, AREA.get(id)].some((s) => selected.includes(s!)), `${fault.name}: ${id}`).toBe(true);
      }
    }
  });
});

describe.concurrent('the suite against each fault of the reference', () => {
  for (const fault of faultCatalogue()) {
    test(`${fault.name} fails exactly ${fault.breaks.join(', ')}`, async () => {
      const expected = [...fault.breaks].sort();
      const args = (runs: string) => faultRunArgs(fault, SEED, runs);
      let run = await servers.run(args(SHALLOW_RUNS), sourceDb());
      const exact = run.code === 1 && run.result !== undefined && failedIds(run.result).join() === expected.join();
      if (!exact) run = await servers.run(args(FULL_RUNS), sourceDb());
      expect(run.result, run.stderr).toBeDefined();
      expect(failedIds(run.result!), run.stdout.slice(-3000)).toEqual(expected);
      expect(run.code).toBe(1);
    });
  }
});
