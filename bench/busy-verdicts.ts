// The default run on a saturated machine: a platform team's CI shares its cores, and a verdict
// that changes with the load is a false one. Starts B busy loops (default 2, one per core here),
// runs the command N times one after the other, prints each run's verdict and exit code, and a
// tally; exit 1 when any run's verdict differs from the first idle-machine expectation (CONFORMANT).
//
//   node bench/busy-verdicts.ts [--runs 20] [--busy 2] [--expect CONFORMANT] [-- node src/cli.ts run]

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

function parse(argv: string[]): { runs: number; busy: number; expect: string; command: string[] } {
  const at = argv.indexOf('--');
  const own = at === -1 ? argv : argv.slice(0, at);
  const value = (flag: string) => {
    const i = own.indexOf(flag);
    return i === -1 ? undefined : own[i + 1];
  };
  const command = at === -1 ? [process.execPath, 'src/cli.ts', 'run'] : argv.slice(at + 1);
  const runs = Number(value('--runs') ?? 20);
  const busy = Number(value('--busy') ?? 2);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(busy) || busy < 0 || command.length === 0) {
    console.error('usage: node bench/busy-verdicts.ts [--runs N] [--busy B] [--expect VERDICT] [-- COMMAND ARGS...]');
    process.exit(2);
  }
  return { runs, busy, expect: value('--expect') ?? 'CONFORMANT', command };
}

/** A loop that keeps one core busy until killed (a separate process, so it competes like any other job). */
function busyLoop(): ChildProcess {
  return spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
}

async function once(command: string[]): Promise<{ seconds: number; code: number | null; verdict: string; errors: string[] }> {
  const reports = mkdtempSync(join(tmpdir(), 'dssc-busy-'));
  const started = process.hrtime.bigint();
  const child = spawn(command[0]!, [...command.slice(1), '--reports', reports], { stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  let verdict = 'no results.json';
  const errors: string[] = [];
  try {
    const result = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as { verdict?: { verdict?: string }; checks?: Array<{ id: string; status: string; message?: string; reason?: string }> };
    verdict = result.verdict?.verdict ?? 'no verdict';
    for (const c of result.checks ?? []) if (c.status !== 'passed' && c.status !== 'skipped') errors.push(`${c.id} ${c.status}: ${(c.message ?? c.reason ?? '').split('\n')[0]!.slice(0, 160)}`);
  } catch {
    // reported as the verdict
  }
  rmSync(reports, { recursive: true, force: true });
  return { seconds, code, verdict, errors };
}

const { runs, busy, expect, command } = parse(process.argv.slice(2));
const loops = Array.from({ length: busy }, busyLoop);
const stop = () => loops.forEach((l) => l.kill('SIGKILL'));
process.on('SIGINT', () => (stop(), process.exit(130)));
let good = 0;
try {
  for (let i = 1; i <= runs; i++) {
    const r = await once(command);
    if (r.verdict === expect) good++;
    console.log(`run ${i}/${runs}: ${r.verdict}, exit ${r.code}, ${r.seconds.toFixed(1)} s, load ${loadavg()[0]!.toFixed(1)}`);
    for (const e of r.errors.slice(0, 5)) console.log(`  ${e}`);
  }
} finally {
  stop();
}
console.log(`${good} of ${runs} ${expect} with ${busy} busy loop(s)`);
process.exit(good === runs ? 0 : 1);
