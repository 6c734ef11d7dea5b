import { describe, expect, test } from 'vitest';
import { variantCatalogue } from '../../src/reference/faults.ts';
import { failedIds } from './run-cli.ts';
import { useSharedSourceDb } from '../helpers/shared-source-db.ts';
import { useRunServers } from './run-server-pool.ts';

// The runs share one embedded source database (test/helpers/shared-source-db.ts), and a few
// processes that each do one run after another (test/suite/run-server-pool.ts): loading the kit
// was most of a small run's CPU.
const sourceDb = useSharedSourceDb();
const servers = useRunServers();

// The other half of the proof: under each conforming-but-unusual variant of the reference the
// suite must pass with zero failures. A check that fails here is stricter than the spec.

describe.concurrent('the suite against each benign variant of the reference', () => {
  for (const variant of variantCatalogue()) {
    test(`${variant.name}: zero failures, CONFORMANT`, async () => {
      const run = await servers.run(['run', '--variant', variant.name, '--seed', '20261123', '--num-runs', '10'], sourceDb());
      expect(run.result, run.stderr).toBeDefined();
      expect(failedIds(run.result!), run.stdout.slice(-3000)).toEqual([]);
      expect(run.result!.verdict?.verdict, run.stdout.slice(-1500)).toBe('CONFORMANT');
      expect(run.code).toBe(0);
    });
  }
});
