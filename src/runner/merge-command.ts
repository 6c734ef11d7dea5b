import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, UsageError } from '../cli-errors.ts';
import { consoleSummary, colourEnabled, plain, checkLine, type Colors } from '../report/console.ts';
import { readEvents, type RunEndEvent, type RunEvent, type RunStartEvent } from '../report/events.ts';
import { Redactor } from '../report/redact.ts';
import { consoleSafe } from '../report/safe-text.ts';
import pc from 'picocolors';
import { ciOutputs, OWNED_REPORTS, writeReports } from './write-reports.ts';
import { writeMergedRequests } from './merge-requests.ts';
import { WALKED_FILE } from '../report/request-log.ts';

const HELP = `usage: dss-conformance merge [--reports OUT] [--allow-incomplete] DIR...

Merges the report folders of the N shards of one run (run --shard I/N, each I once) into one set of
reports in OUT (default: reports): results.ndjson (the shards' streams, one after another),
results.json, junit.xml, report.html, summary.md, deliveries.json, requests.json and walked.json
(each shard's, in shard order); one verdict, over the union of the shards' results, with the
run-level judgements (ERR-001/002/003 over every error answer any shard saw) made over the union
too. The run's duration is the wall span of the shards, from the first start to the last end,
whether they ran side by side or one after another. The shards must belong together: the same kit
version, seed and settings apart from --shard and --reports.

  --reports OUT               where the merged reports go (default: reports)
  --allow-incomplete          exit 0 instead of 4 when nothing failed but not everything was judged
  -h, --help                  this text

exit codes: as run's (0 CONFORMANT, 1 NOT CONFORMANT, 4 INCOMPLETE); 2 when the folders do not
make one run (a shard missing or given twice, different seeds, no results.ndjson).`;

/** Settings that differ between the shards of one run by design. */
const PER_SHARD = new Set(['shard', 'reports', 'config']);

export async function mergeCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { reports: { type: 'string' }, 'allow-incomplete': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    throw new UsageError(`merge: ${(error as Error).message.split('\n')[0]}`);
  }
  if (parsed.values.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  const dirs = parsed.positionals;
  if (dirs.length === 0) throw new UsageError('merge: name the report folders of the shards (dss-conformance merge DIR...)');
  const shards = shardStreams(dirs);
  const events = shards.flatMap((s) => s.events);
  const out = resolve(parsed.values.reports ?? 'reports');
  // The streams are redacted already; the merge adds nothing secret.
  const redactor = new Redactor([]);
  for (const file of [...OWNED_REPORTS, WALKED_FILE]) rmSync(join(out, file), { force: true });
  // The merged stream first: every report written from it carries its digest.
  try {
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'results.ndjson'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  } catch (error) {
    throw new UsageError(`merge: --reports ${out}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const folded = writeReports(out, events, redactor);
  const noRequests = writeMergedRequests(shards.map((s) => resolve(s.dir)), out);
  const colors: Colors = colourEnabled() ? pc.createColors(true) : plain;
  const run = folded.run;
  for (const c of run.checks.filter((x) => x.status !== 'passed' && x.status !== 'skipped')) process.stdout.write(checkLine(c, colors));
  const written = [...OWNED_REPORTS.filter((f) => f !== 'deliveries.json' || run.deliveries), WALKED_FILE].map((f) => join(out, f));
  const lines = [
    `merged ${dirs.length} shards (run ids ${run.runId})`,
    `wall span ${seconds(run.durationMs)} from the first start to the last end; the shards took ${shards.map((s) => (s.durationMs === undefined ? 'unfinished' : seconds(s.durationMs))).join(', ')}`,
    ...noRequests.map((d) => `note: ${d} has no requests.json (the shard stopped before writing it): its requests are missing from requests.json`),
    `reports: ${written.join(', ')}`,
  ];
  process.stdout.write(ciOutputs(folded, redactor) + consoleSafe(lines.join('\n')) + '\n' + consoleSummary(run, colors));
  const code = run.verdict?.verdict === 'CONFORMANT' ? EXIT.ok : run.verdict?.verdict === 'INCOMPLETE' ? EXIT.incomplete : EXIT.checkFailed;
  return code === EXIT.incomplete && parsed.values['allow-incomplete'] ? EXIT.ok : code;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A shard's folder, its stream, and how long it ran (its own run-end; none when it was cut short). */
export interface ShardStream {
  dir: string;
  events: RunEvent[];
  durationMs: number | undefined;
}

/** Each folder's stream, in shard order, after checking that together they are the N shards of one run. */
export function shardStreams(dirs: string[]): ShardStream[] {
  const shards = dirs.map((dir) => {
    const file = join(resolve(dir), 'results.ndjson');
    if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`merge: ${dir}: no results.ndjson (not the report folder of a run --shard)`);
    const events = readEvents(file);
    const start = events.find((e): e is RunStartEvent => e.type === 'run-start');
    if (!start) throw new UsageError(`merge: ${dir}/results.ndjson: no run-start event (not a run's stream)`);
    if (!start.shard) throw new UsageError(`merge: ${dir}: not a shard (its run had no --shard I/N)`);
    return { dir, events, start, shard: start.shard };
  });
  const first = shards[0]!;
  const count = first.shard.count;
  for (const s of shards.slice(1)) {
    const differs = (what: string, a: unknown, b: unknown) => {
      if (JSON.stringify(a) !== JSON.stringify(b)) throw new UsageError(`merge: ${s.dir} is not a shard of the run in ${first.dir}: ${what} ${JSON.stringify(b)} there, ${JSON.stringify(a)} here`);
    };
    differs('kit version', first.start.kitVersion, s.start.kitVersion);
    differs('seed', first.start.seed, s.start.seed);
    differs('shard count', count, s.shard.count);
    const settings = (x: RunStartEvent) => Object.fromEntries(Object.entries(x.settings).filter(([k]) => !PER_SHARD.has(k)).sort(([a], [b]) => a.localeCompare(b)));
    const [a, b] = [settings(first.start), settings(s.start)];
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) differs(`setting ${key}`, a[key], b[key]);
  }
  const seen = new Map<number, string>();
  for (const s of shards) {
    const twice = seen.get(s.shard.index);
    if (twice !== undefined) throw new UsageError(`merge: shard ${s.shard.index}/${count} given twice (${twice} and ${s.dir})`);
    seen.set(s.shard.index, s.dir);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new UsageError(`merge: shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing (give the report folders of all ${count} shards)`);
  return shards.sort((x, y) => x.shard.index - y.shard.index).map((s) => ({ dir: s.dir, events: s.events, durationMs: s.events.findLast((e): e is RunEndEvent => e.type === 'run-end')?.durationMs }));
}
