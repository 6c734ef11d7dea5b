import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { PROFILED_VARIANTS } from '../../src/reference/faults.ts';
import { referenceProfilePath } from '../../src/profile/profile.ts';
import { failedIds } from './run-cli.ts';
import { useSharedSourceDb } from '../helpers/shared-source-db.ts';
import { useRunServers } from './run-server-pool.ts';

// The benign matrix's other half for targets that answer a question the spec leaves open otherwise
// than the reference does: each variant runs with the reference profile edited as its target's
// profile would be, and the suite must pass with zero failures. Where no profile could say it
// before (a connection answer without the envelope beside enveloped ones; unknown dates pinned to
// an earlier version), the profile gained the answer. The same variants under the reference
// profile are caught (fault matrix: version-date-pinning, default-version-2022, ...).

const sourceDb = useSharedSourceDb();
const servers = useRunServers();
const SEED = '20261123';
const dir = mkdtempSync(join(tmpdir(), 'dssc-benign-profiled-'));

describe.concurrent('the suite against each profiled benign variant, with its profile', () => {
  for (const { variant, profile: edit } of PROFILED_VARIANTS) {
    test(`${variant.name}: zero failures, CONFORMANT`, async () => {
      const profile = JSON.parse(readFileSync(referenceProfilePath, 'utf8')) as Record<string, unknown>;
      edit(profile);
      const file = join(dir, `${variant.name}.json`);
      writeFileSync(file, JSON.stringify(profile, null, 2));
      const run = await servers.run(['run', '--variant', variant.name, '--profile', file, '--seed', SEED, '--num-runs', '10'], sourceDb());
      expect(run.result, run.stderr).toBeDefined();
      expect(failedIds(run.result!), run.stdout.slice(-3000)).toEqual([]);
      expect(run.result!.verdict?.verdict, run.stdout.slice(-1500)).toBe('CONFORMANT');
      expect(run.code).toBe(0);
    });
  }
});
