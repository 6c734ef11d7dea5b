import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../../src/cli-main.ts';
import type { RunResult } from '../../src/report/results.ts';

// One command line of the kit in this process, its output captured: the receiver commands load
// little and hold no state between runs, so their tests need no child process of their own.

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
  reports: string;
  result?: RunResult;
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `argv` (with --reports in a fresh folder for `receiver`); one at a time, as stdout is shared. */
export function runInProcess(argv: string[], env: Record<string, string | undefined> = {}): Promise<InProcessRun> {
  const turn = queue.then(() => runNow(argv, env));
  queue = turn.catch(() => undefined);
  return turn;
}

async function runNow(argv: string[], env: Record<string, string | undefined>): Promise<InProcessRun> {
  const reports = mkdtempSync(join(tmpdir(), 'dssc-rcv-'));
  const args = argv[0] === 'receiver' && !argv.includes('--reports') ? [...argv, '--reports', reports] : argv;
  const saved = { out: process.stdout.write, err: process.stderr.write, env: Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]])) };
  let stdout = '';
  let stderr = '';
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += chunk.toString()), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += chunk.toString()), true)) as typeof process.stderr.write;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  try {
    const code = await cli(args);
    let result: RunResult | undefined;
    try {
      result = JSON.parse(readFileSync(join(reports, 'results.json'), 'utf8')) as RunResult;
    } catch {
      result = undefined;
    }
    return { code, stdout, stderr, reports, ...(result ? { result } : {}) };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    for (const [k, v] of Object.entries(saved.env)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
}

/** stdout, stderr and every report file, by name. */
export function everyOutput(run: InProcessRun): Array<[string, string]> {
  return [['stdout', run.stdout], ['stderr', run.stderr], ...readdirSync(run.reports).map((f): [string, string] => [f, readFileSync(join(run.reports, f), 'utf8')])];
}

export const failedIds = (r: RunResult) => [...new Set(r.checks.filter((c) => c.status === 'failed').map((c) => c.id))].sort();
