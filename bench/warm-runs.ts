// CPU of runs done one after another in one process, as a test run server
// (test/helpers/run-server.ts) does them: the kit loaded once, then N runs of one command line.
// --kept 1 keeps one vitest worker thread for all of them (src/runner/kept-pool.ts, what the run
// server does), --kept 0 starts one per run (the CLI's). process.cpuUsage covers every thread of
// the process. Prints each run's CPU, wall and RSS, and the mean of the warm runs (all but the first).
//
//   node bench/warm-runs.ts --kept 1 --runs 8 -- --only AUTH-003 --seed 1 --num-runs 1 --source-db postgres://x:y@127.0.0.1:1/db

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepWorkerThread, keptPoolStats } from '../src/runner/kept-pool.ts';

const argv = process.argv.slice(2);
const at = argv.indexOf('--');
const own = at === -1 ? argv : argv.slice(0, at);
const args = at === -1 ? [] : argv.slice(at + 1);
const value = (flag: string, fallback: string) => (own.includes(flag) ? own[own.indexOf(flag) + 1]! : fallback);
const runs = Number(value('--runs', '8'));
keepWorkerThread(value('--kept', '1') === '1');

const { cli } = await import('../src/cli-main.ts');
const lines: string[] = [];
const warm: number[] = [];
for (let i = 0; i < runs; i++) {
  const write = process.stdout.write;
  let out = '';
  // The run's own output is kept out of the figures' (the verdict line is shown).
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    out += String(chunk);
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (done) process.nextTick(done);
    return true;
  }) as typeof process.stdout.write;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const code = await cli(['run', '--reports', join(tmpdir(), `dssc-warm-runs-${process.pid}-${i}`), ...args]);
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write = write;
  process.exitCode = undefined;
  const seconds = (cpu.user + cpu.system) / 1e6;
  if (i > 0) warm.push(seconds);
  lines.push(`run ${i}: exit ${code}, ${seconds.toFixed(3)} s CPU, ${((performance.now() - t0) / 1e3).toFixed(2)} s wall, RSS ${Math.round(process.memoryUsage().rss / 1e6)} MB; ${/verdict[^\n]*/i.exec(out)?.[0] ?? ''}`);
}
console.log(lines.join('\n'));
if (warm.length > 0) console.log(`warm runs: ${warm.length}, mean ${(warm.reduce((a, b) => a + b, 0) / warm.length).toFixed(3)} s CPU (min ${Math.min(...warm).toFixed(3)}, max ${Math.max(...warm).toFixed(3)}); kept thread: ${JSON.stringify(keptPoolStats())}`);
process.exit(0);
