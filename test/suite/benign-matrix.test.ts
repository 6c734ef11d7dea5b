import { describe, expect, test } from 'vitest';
import { variantCatalogue } from '../../src/reference/faults.ts';
import type { RunResult } from '../../src/report/results.ts';
import { type CliRun, failedIds } from './run-cli.ts';
import { useSharedSourceDb } from '../helpers/shared-source-db.ts';
import { useRunServers } from './run-server-pool.ts';
import { benignGroups, EDITS } from './benign-groups.ts';

// The runs share the embedded source database of `npm test` (test/helpers/shared-source-db.ts), and a few
// processes that each do one run after another (test/suite/run-server-pool.ts): loading the kit
// was most of a small run's CPU.
const sourceDb = useSharedSourceDb();
const servers = useRunServers();

// The other half of the proof: under each conforming-but-unusual variant of the reference the
// suite must pass with zero failures. A check that fails here is stricter than the spec.
//
// Variants that edit different things share a run (test/suite/benign-groups.ts). A group passes
// for every variant in it only if its run has zero failures, is CONFORMANT, and passes exactly the
// checks the clean reference passes at the same seed: one variant cannot then hide another's
// effect by making a check skip (or error) where it would have judged it. A group that misses any
// of that proves nothing about its variants: each is run alone, and judged alone as before.

const SEED = '20261123';
const runArgs = (variants: readonly string[]) => ['run', ...variants.flatMap((v) => ['--variant', v]), '--seed', SEED, '--num-runs', '10'];

/** The checks a run passed, one line each (a check run once per version is one line per version). */
const passed = (r: RunResult) => r.checks.filter((c) => c.status === 'passed').map((c) => `${c.id} ${c.title}${c.version ? ` @${c.version}` : ''}`).sort();

/** Started by the first test that needs it; the pool runs at most three at a time. */
function once<T>(start: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | undefined;
  return () => (started ??= start());
}

const clean = once(() => servers.run(runArgs([]), sourceDb()));

/** Why the group's run does not stand for each of its variants; undefined when it does. */
async function groupMiss(variants: readonly string[]): Promise<string | undefined> {
  const [run, reference] = await Promise.all([servers.run(runArgs(variants), sourceDb()), clean()]);
  if (!run.result || !reference.result) return `no results.json (${(run.result ? reference : run).stderr.slice(-500)})`;
  if (!run.stdout.includes(`with fault ${variants.join(', ')}`)) return `the run does not say it applied ${variants.join(', ')}`;
  if (run.code !== 0 || failedIds(run.result).length > 0 || run.result.verdict?.verdict !== 'CONFORMANT') return `exit ${run.code}, failed ${failedIds(run.result).join(', ') || 'none'}`;
  const got = passed(run.result);
  const want = passed(reference.result);
  if (got.join('\n') === want.join('\n')) return undefined;
  const differ = [...want.filter((c) => !got.includes(c)).map((c) => `not passed: ${c}`), ...got.filter((c) => !want.includes(c)).map((c) => `passed only here: ${c}`)];
  return differ.slice(0, 5).join('; ');
}

const groups = benignGroups(variantCatalogue().map((v) => v.name));
// A group's run that ends without an answer (its child died) stands for nothing either.
const outcome = new Map(groups.map((g) => [g, once(() => groupMiss(g).catch((error: Error) => `the run ended without an answer: ${error.message.slice(0, 300)}`))] as const));
const groupOf = new Map(groups.flatMap((g) => g.map((name) => [name, g] as const)));

/**
 * Tests in turn across the groups (the first of each group, then the second, ...): the three that
 * run at once then wait on three different runs, not on one.
 */
const order = groups.flatMap((g, i) => g.map((name, at) => ({ name, at, i }))).sort((a, b) => a.at - b.at || a.i - b.i).map((x) => x.name);

describe('the benign groups', () => {
  test('every variant is in exactly one group, and no two in a group edit the same thing', () => {
    expect(groups.flat().sort()).toEqual(variantCatalogue().map((v) => v.name).sort());
    for (const group of groups) {
      const edits = group.flatMap((name) => EDITS[name] ?? []);
      expect(edits.length, group.join(', ')).toBe(new Set(edits).size);
    }
  });

  test('what the groups declare names only variants of the catalogue', () => {
    const names = variantCatalogue().map((v) => v.name);
    expect(Object.keys(EDITS).filter((name) => !names.includes(name))).toEqual([]);
  });
});

describe.concurrent('the suite against each benign variant of the reference', () => {
  for (const name of order) {
    test(`${name}: zero failures, CONFORMANT`, async () => {
      const group = groupOf.get(name)!;
      const miss = group.length > 1 ? await outcome.get(group)!() : 'alone';
      if (miss === undefined) return;
      if (group.length > 1) console.warn(`benign group ${group.join(', ')}: ${miss}; each of its variants is run alone`);
      const run: CliRun = await servers.run(runArgs([name]), sourceDb());
      expect(run.result, run.stderr).toBeDefined();
      expect(failedIds(run.result!), run.stdout.slice(-3000)).toEqual([]);
      expect(run.result!.verdict?.verdict, run.stdout.slice(-1500)).toBe('CONFORMANT');
      expect(run.code).toBe(0);
    });
  }
});
