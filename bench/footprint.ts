// Wall time and peak memory of a command with everything it starts: the CLI runs the suite in a
// vitest worker process and the embedded source database in a thread, so the RSS of the process
// alone (what /usr/bin/time reports) misses part of it. Samples the RSS of the whole process tree
// every 20 ms from /proc (Linux) and prints the peak of the sum.
//
//   node bench/footprint.ts [--runs N] [--cwd DIR] -- node src/cli.ts run --seed 20261122 --num-runs 10

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

function parse(argv: string[]): { runs: number; cwd: string; command: string[] } {
  const at = argv.indexOf('--');
  const own = at === -1 ? argv : argv.slice(0, at);
  const command = at === -1 ? [] : argv.slice(at + 1);
  const value = (flag: string) => {
    const i = own.indexOf(flag);
    return i === -1 ? undefined : own[i + 1];
  };
  if (command.length === 0) {
    console.error('usage: node bench/footprint.ts [--runs N] [--cwd DIR] -- COMMAND ARGS...');
    process.exit(2);
  }
  return { runs: Number(value('--runs') ?? 1), cwd: value('--cwd') ?? process.cwd(), command };
}

/** pid -> parent pid of every process we can read. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: the fields after the last ')' are fixed.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      map.set(Number(name), Number(rest[1]));
    } catch {
      // gone meanwhile
    }
  }
  return map;
}

function treeRssKb(root: number): number {
  const ppid = parents();
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, parent] of ppid) if (tree.has(parent) && !tree.has(pid)) (tree.add(pid), (grew = true));
  }
  let kb = 0;
  for (const pid of tree) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kb;
}

async function once(command: string[], cwd: string): Promise<{ seconds: number; peakMb: number; code: number | null }> {
  const started = process.hrtime.bigint();
  const child = spawn(command[0]!, command.slice(1), { cwd, stdio: 'ignore' });
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, treeRssKb(child.pid!))), 20);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(timer);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, peakMb: peak / 1024, code };
}

const { runs, cwd, command } = parse(process.argv.slice(2));
for (let i = 0; i < runs; i++) {
  const r = await once(command, cwd);
  console.log(`${r.seconds.toFixed(2)} s wall, ${r.peakMb.toFixed(0)} MB peak RSS (process tree), exit ${r.code}`);
}
