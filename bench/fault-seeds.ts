// The fault matrix over several seeds: a conformance verdict must not depend on luck, so every
// fault must be detected (each of its declared requirement IDs fails) on every seed.
//
//   node bench/fault-seeds.ts [--seeds 20261122,1,2,3,4] [--jobs 2] [--only NAME,...]
//
// Prints detected/total per seed and the misses; exit 1 when any fault is missed on any seed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { faultCatalogue } from '../src/reference/faults.ts';
import requirements from '../specs/requirements.json' with { type: 'json' };
import type { RunResult } from '../src/report/results.ts';

const { values } = parseArgs({ options: { seeds: { type: 'string' }, jobs: { type: 'string' }, only: { type: 'string' } } });
const seeds = (values.seeds ?? '20261122,1,2,3,4').split(',').map(Number);
const jobs = Number(values.jobs ?? 2);
const only = values.only?.split(',');
const faults = faultCatalogue().filter((f) => !only || only.includes(f.name));
const cli = new URL('../src/cli.ts', import.meta.url).pathname;

// Each fault runs on the areas (spec files) of the requirements it breaks, as the fault matrix in
// npm test does: detection is about those IDs, and a whole run per fault costs several times more.
const AREA = new Map(requirements.requirements.map((r) => [r.id, r.spec.replace(/\.spec\.ts$/, '')]));
const areasOf = (ids: readonly string[]) => [...new Set(ids.map((id) => AREA.get(id) ?? id))].sort().join(',');

function failing(fault: (typeof faults)[number], seed: number): Promise<string[]> {
  const reports = mkdtempSync(join(tmpdir(), 'dssc-seeds-'));
  const args = [cli, 'run', '--fault', fault.name, '--only', areasOf(fault.breaks), '--seed', String(seed), '--num-runs', '10', '--reports', reports, ...(fault.apiVersion ? ['--api-version', fault.apiVersion] : [])];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.on('close', () => {
      try {
        const run = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as RunResult;
        resolve([...new Set(run.checks.filter((c) => c.status === 'failed').map((c) => c.id))]);
      } catch {
        resolve([]);
      } finally {
        rmSync(reports, { recursive: true, force: true });
      }
    });
  });
}

const started = Date.now();
let missed = 0;
for (const seed of seeds) {
  const queue = [...faults];
  const misses: string[] = [];
  await Promise.all(Array.from({ length: jobs }, async () => {
    for (let f = queue.shift(); f; f = queue.shift()) {
      const got = await failing(f, seed);
      const lost = f.breaks.filter((id) => !got.includes(id));
      if (lost.length > 0) misses.push(`${f.name} (not failed: ${lost.join(', ')})`);
    }
  }));
  missed += misses.length;
  console.log(`seed ${seed}: ${faults.length - misses.length}/${faults.length} faults detected${misses.length ? `; missed: ${misses.join('; ')}` : ''}`);
}
console.log(`${seeds.length} seeds × ${faults.length} faults in ${Math.round((Date.now() - started) / 1000)} s: ${missed === 0 ? '100% detected' : `${missed} misses`}`);
process.exitCode = missed === 0 ? 0 : 1;
