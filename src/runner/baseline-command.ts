import { readFileSync, writeFileSync } from 'node:fs';
import { EXIT, UsageError, readJsonFile } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { baselineProblem, utcDay, type Baseline } from '../report/baseline.ts';
import type { CheckResult, RunResult } from '../report/results.ts';

const HELP = `usage: dss-conformance baseline RESULTS_JSON [--out FILE]

Writes a known-failures baseline (fixtures/baseline.schema.json) from a run's results.json: one
entry per requirement ID whose checks failed (or were already expected failures), with the run's
first failure line as the reason and no expiry date. Give it to 'run --baseline FILE'; add an
"until" date to an entry to make the failure due.

  --out FILE   write the baseline there (default: standard output)
  -h, --help   this text`;

const MAX_REASON_DETAIL = 200;

export async function baselineCommand(argv: string[]): Promise<number> {
  const parsed = parseFlags('baseline', argv, { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const, { positionals: true });
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError(`baseline takes one results.json file, got ${positionals.length} (see 'dss-conformance baseline --help')`);
  const file = positionals[0]!;
  const baseline = baselineFromRun(readRun(file));
  // The reasons come from target answers; a file the run would then reject helps nobody.
  const problem = baselineProblem(baseline);
  if (problem) throw new Error(`the baseline written from ${file} breaks its own schema: ${problem}`);
  const text = JSON.stringify(baseline, null, 2) + '\n';
  if (values.out === undefined) {
    process.stdout.write(text);
    return EXIT.ok;
  }
  try {
    writeFileSync(values.out, text);
  } catch (error) {
    throw new UsageError(`--out ${values.out}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  process.stdout.write(`dss-conformance: ${baseline.entries.length} baseline entr${baseline.entries.length === 1 ? 'y' : 'ies'} written to ${values.out}\n`);
  return EXIT.ok;
}

/** Reads a results.json, checking just the fields a baseline is made from. */
function readRun(file: string): RunResult {
  const raw: unknown = readJsonFile(file, `results ${file}`);
  const notResults = (why: string) => new UsageError(`results ${file}: not a dss-conformance results.json (${why})`);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw notResults('not an object');
  const run = raw as Partial<RunResult>;
  if (typeof run.runId !== 'string') throw notResults('no runId');
  if (typeof run.startedAt !== 'string' || Number.isNaN(Date.parse(run.startedAt))) throw notResults('no startedAt date');
  if (!Array.isArray(run.checks)) throw notResults('no checks array');
  const bad = run.checks.findIndex((c: Partial<CheckResult> | null) => !c || typeof c.id !== 'string' || typeof c.status !== 'string');
  if (bad >= 0) throw notResults(`/checks/${bad} has no id or status`);
  // An aborted run judged nothing: an empty baseline from it would read as "nothing fails".
  if (run.aborted) throw new UsageError(`results ${file}: run ${run.runId} was aborted (${run.aborted.message}); it has no failures to list`);
  return run as RunResult;
}

/** One entry per requirement ID that failed in the run, in ID order so regenerated files diff cleanly. */
export function baselineFromRun(run: RunResult): Baseline {
  const day = utcDay(new Date(run.startedAt));
  const first = new Map<string, CheckResult>();
  for (const c of run.checks) {
    if ((c.status === 'failed' || c.status === 'expected-fail') && !first.has(c.id)) first.set(c.id, c);
  }
  const entries = [...first.values()]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) => ({ id: c.id, reason: `failing in run ${run.runId} on ${day}: ${firstLine(c.message)}` }));
  return { comment: `known failures of run ${run.runId} (${run.startedAt}), written by 'dss-conformance baseline'`, entries };
}

function firstLine(message: string | undefined): string {
  // The first line with text: a message may open with a blank line before its evidence.
  const line = (message ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  if (!line) return '(no message)';
  return line.length > MAX_REASON_DETAIL ? line.slice(0, MAX_REASON_DETAIL - 1) + '…' : line;
}
