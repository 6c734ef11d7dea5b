// The fault matrix over several seeds: a conformance verdict must not depend on luck, so every
// fault must be detected on every seed, not only on the matrix's one (20261122).
//
//   node bench/fault-seeds.ts [--seeds 20261122,1,2,3,4] [--jobs 2] [--only NAME,...]
//
// Each fault's run is the matrix's (test/suite/fault-selection.ts: the same selection, version,
// shallow run first and the full depth when the shallow one does not show the fault), on each
// seed. Detected here means every requirement the fault declares failed; unlike the matrix, it
// does not require that nothing else failed: the exactness of a row does not depend on the seed's
// luck the way its detection does, and the matrix judges it on its seed. The runs go to the
// matrix's pool of long-lived run processes (test/suite/run-server-pool.ts: the kit is loaded once
// per process, not once per run) and share one embedded source database, as the matrix's do.
// Prints detected/total per seed and the misses; exit 1 when any fault is missed on any seed.
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { faultCatalogue } from '../src/reference/faults.ts';
import { startEmbeddedSourceDb } from '../src/source-db/embedded.ts';
import { FULL_RUNS, SHALLOW_RUNS, faultRunArgs } from '../test/suite/fault-selection.ts';
import { failedIds, type CliRun } from '../test/suite/run-cli.ts';
import { createRunServerPool } from '../test/suite/run-server-pool.ts';

const { values } = parseArgs({ options: { seeds: { type: 'string' }, jobs: { type: 'string' }, only: { type: 'string' } } });
const seeds = (values.seeds ?? '20261122,1,2,3,4').split(',');
const jobs = Number(values.jobs ?? 2);
const only = values.only?.split(',');
const faults = faultCatalogue().filter((f) => !only || only.includes(f.name));
if (only && faults.length !== only.length) throw new Error(`unknown fault in --only: ${only.filter((n) => !faults.some((f) => f.name === n)).join(', ')}`);

type Fault = (typeof faults)[number];

const db = await startEmbeddedSourceDb();
await db.ready;
const pool = createRunServerPool(jobs);

/** The declared requirements the run did not fail; the run's error when it gave no results. */
function lost(fault: Fault, run: CliRun): string[] {
  rmSync(run.reports, { recursive: true, force: true });
  if (!run.result) return [`no results (exit ${run.code}): ${run.stderr.trim().split('\n').slice(-2).join(' ')}`];
  const failed = failedIds(run.result);
  return fault.breaks.filter((id) => !failed.includes(id));
}

async function missing(fault: Fault, seed: string): Promise<string[]> {
  const env = { DSS_SOURCE_DB: db.url };
  const shallow = lost(fault, await pool.run(faultRunArgs(fault, seed, SHALLOW_RUNS), env));
  return shallow.length === 0 ? [] : lost(fault, await pool.run(faultRunArgs(fault, seed, FULL_RUNS), env));
}

const started = Date.now();
const misses = new Map(seeds.map((s) => [s, [] as string[]]));
const left = new Map(seeds.map((s) => [s, faults.length]));
// One queue, fault by fault over every seed: the pool stays busy across a seed's last slow runs,
// and a run cut short has judged its faults on every seed rather than some seeds whole.
const queue = faults.flatMap((fault) => seeds.map((seed) => ({ seed, fault })));
let done = 0;
try {
  await Promise.all(Array.from({ length: jobs }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const { seed, fault } = job;
      const gone = await missing(fault, seed).catch((e: Error) => [`run failed: ${e.message.split('\n')[0]}`]);
      if (gone.length > 0) misses.get(seed)!.push(`${fault.name} (not failed: ${gone.join(', ')})`);
      // Progress and each miss as it comes, on stderr: a long run is watched, and a miss looked into, before it ends.
      if (gone.length > 0) console.error(`miss: seed ${seed}: ${fault.name} (not failed: ${gone.join(', ')})`);
      if (++done % 50 === 0) console.error(`${done}/${seeds.length * faults.length} runs judged (${Math.round((Date.now() - started) / 1000)} s)`);
      left.set(seed, left.get(seed)! - 1);
      if (left.get(seed) === 0) {
        const m = misses.get(seed)!;
        console.log(`seed ${seed}: ${faults.length - m.length}/${faults.length} faults detected${m.length ? `; missed: ${m.join('; ')}` : ''} (${Math.round((Date.now() - started) / 1000)} s)`);
      }
    }
  }));
} finally {
  await pool.close();
  await db.close();
}
const missed = [...misses.values()].reduce((n, m) => n + m.length, 0);
console.log(`${seeds.length} seeds × ${faults.length} faults in ${Math.round((Date.now() - started) / 1000)} s: ${missed === 0 ? '100% detected' : `${missed} misses`}`);
process.exitCode = missed === 0 ? 0 : 1;
