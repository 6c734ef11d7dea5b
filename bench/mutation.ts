/**
 * `npm run mutation [-- MODULE ...] [flags]`: mutation testing of the reference with StrykerJS.
 * Each module's mutants are judged by the conformance suite run against the embedded reference
 * (its areas only, fixed seed); a mutant is killed when the verdict would not be CONFORMANT
 * (bench/mutation-verdict.ts says how that is judged on a run of some areas). Writes
 * reports/mutation/<module>.{json,html,run.json,untriaged.json} and the overall reports/mutation/summary.md.
 * See README.md › Mutation testing.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { AREAS, areasOf, EXCUSED, MODULES, moduleName, modulePath, readTriage, triageKey, type Reason, type TriageEntry } from './mutation-modules.ts';

const OUT = 'reports/mutation';
/** stryker.config.mjs's timeoutMS: a mutant's run may take this much more than the dry run (x1.5). */
const TIMEOUT_MS = 60_000;
const USAGE = `usage: npm run mutation -- [MODULE ...] [--seed N] [--num-runs N] [--concurrency N] [--lines A-B] [--all-areas] [--force] [--keep-killed]
  MODULE        a module under src/reference/ (auth, versions, routes/connections, ...); default: all of
                ${Object.keys(MODULES).join(', ')}
  --seed N      the suite's seed (default 20261122): every mutant sees the same requests
  --num-runs N  fast-check runs per property (default 5)
  --concurrency N  suite runs at once (default 1). A webhooks run mostly waits (16 s wall, 6.7 s
                CPU), so 2 uses an idle machine better. Each run has its own ports, reports and
                temporary files, and the time limit grows with N; still, on a busy machine a
                timeout is not a verdict until --lines ... --concurrency 1 confirms it
  --lines A-B   test again only the mutants of lines A to B of ONE module (after a kill, or alone
                to re-verify a timeout), A:C-B:D from column C of line A to column D of line B
                (Stryker's columns: C counts from 0, D from 1), and
                write their results into the module's last full report
                (reports/mutation/<module>.lines-A-B.json holds the range's own report)
  --all-areas   run the whole suite for each mutant, not only the module's areas
  --force       test every mutant again, ignoring the incremental file
  --keep-killed when the suite changed since the last run, keep its kills and test only the rest
  --summary     only rebuild reports/mutation/summary.md from the modules' last reports and
                the triage file (after a triage edit)`;

interface Counts {
  total: number; killed: number; timeout: number; survived: number; noCoverage: number; invalid: number; ignored: number;
}
/** What a module's last run was: kept next to Stryker's report, so that the summary can be rebuilt after a triage edit. */
interface RunInfo {
  module: string; areas: readonly string[]; seed: number; numRuns: number; date: string; wallSeconds: number; command: string;
  /** Line ranges tested again since (--lines), whose results were written into the module's report. */
  retests?: Array<{ lines: string; date: string; wallSeconds: number; command: string }>;
}
interface ModuleSummary extends RunInfo {
  counts: Counts; excused: Record<string, number>; toKill: number; untriaged: number; score: number | null;
}
interface ReportMutant {
  id: string; mutatorName: string; replacement?: string; status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seed: { type: 'string', default: '20261122' },
    'num-runs': { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '1' },
    lines: { type: 'string' },
    'all-areas': { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    'keep-killed': { type: 'boolean', default: false },
    summary: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const seed = Number(values.seed);
const numRuns = Number(values['num-runs']);
const names = positionals.length > 0 ? positionals.map(moduleName) : Object.keys(MODULES);
for (const name of names) {
  if (!areasOf(name)) usageError(`unknown module '${name}'`);
}
const concurrency = Number(values.concurrency);
if (!Number.isInteger(concurrency) || concurrency < 1) usageError(`--concurrency must be a positive integer, not '${values.concurrency}'`);
// Stryker's range syntax: lines A to B, optionally from column C of A to column D of B.
const lines = values.lines === undefined ? undefined : /^(\d+)(:\d+)?-(\d+)(:\d+)?$/.exec(values.lines);
if (values.lines !== undefined && (!lines || Number(lines[1]) < 1 || Number(lines[1]) > Number(lines[3]))) usageError(`--lines must be A-B or A:C-B:D with 1 <= A <= B, not '${values.lines}'`);
if (lines && positionals.length !== 1) usageError('--lines needs exactly one MODULE');

function usageError(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const triage = readTriage();
mkdirSync(OUT, { recursive: true });
if (!values.summary) {
  if (lines) await retestLines(names[0]!, values.lines!);
  else for (const name of names) await mutateModule(name);
}
const { unexplained, unmeasured } = writeOverall();
// The issue's rule: no unexplained survivor. A survivor the triage file does not list fails the
// command; so does, when every module was asked for (no MODULE named, or --summary alone), a module
// with no report: its survivors are unknown, so none of them is explained.
const wholeSet = positionals.length === 0;
if (wholeSet && unmeasured.length > 0) {
  console.log(`not measured: ${unmeasured.join(', ')} (no report in ${OUT}/): their survivors are unknown; the command fails until each has run (npm run mutation -- ${unmeasured[0]})`);
}
process.exitCode = unexplained > 0 || (wholeSet && unmeasured.length > 0) ? 1 : 0;

async function mutateModule(name: string): Promise<void> {
  const { Stryker } = await import('@stryker-mutator/core');
  const file = modulePath(name);
  const slug = name.replaceAll('/', '-');
  const areas = values['all-areas'] ? AREAS : areasOf(name)!;
  const command = `node_modules/.bin/node bench/mutation-verdict.ts --only ${areas.join(',')} --seed ${seed} --num-runs ${numRuns}`;
  const incrementalFile = `${OUT}/${slug}.incremental.json`;
  const force = values.force || !prepareIncremental(name, incrementalFile, command);
  console.log(`\n== ${file}: areas ${areas.join(', ')}${force ? ' (every mutant)' : ' (incremental)'}`);
  // Written before the run, not after: Stryker keeps what it tested when interrupted (Ctrl-C), so
  // an interrupted run's incremental file belongs to this suite and the next run resumes from it.
  if (force) rmSync(incrementalFile, { force: true });
  writeFileSync(`${OUT}/${slug}.fingerprint`, suiteFingerprint(file, command));
  const started = Date.now();
  await new Stryker({
    mutate: [file],
    concurrency,
    // N suite runs share the cores: each gets N times stryker.config.mjs's margin before it is a
    // timeout (at concurrency 2 on a loaded machine, 2 of delivery's 3 timeouts were survivors).
    timeoutMS: TIMEOUT_MS * concurrency,
    commandRunner: { command },
    incremental: true,
    incrementalFile,
    force,
    jsonReporter: { fileName: `${OUT}/${slug}.json` },
    htmlReporter: { fileName: `${OUT}/${slug}.html` },
  }).runMutationTest();
  const wallSeconds = Math.round((Date.now() - started) / 1000);

  const run: RunInfo = {
    module: name, areas, seed, numRuns, date: new Date().toISOString(), wallSeconds,
    command: `npm run mutation -- ${name}${commonFlags()}`,
  };
  writeFileSync(`${OUT}/${slug}.run.json`, JSON.stringify(run, null, 2) + '\n');
}

function commonFlags(): string {
  return ` --seed ${seed} --num-runs ${numRuns}${concurrency > 1 ? ` --concurrency ${concurrency}` : ''}${values['all-areas'] ? ' --all-areas' : ''}`;
}

/**
 * Tests again the mutants of some lines (after a check was added to kill them) and writes their
 * new statuses into the module's last full report, so that the summary counts them. A kill by
 * the new suite on these lines cannot undo a kill elsewhere: checks were added, not removed.
 */
async function retestLines(name: string, range: string): Promise<void> {
  const { Stryker } = await import('@stryker-mutator/core');
  const file = modulePath(name);
  const slug = name.replaceAll('/', '-');
  const areas = values['all-areas'] ? AREAS : areasOf(name)!;
  const command = `node_modules/.bin/node bench/mutation-verdict.ts --only ${areas.join(',')} --seed ${seed} --num-runs ${numRuns}`;
  console.log(`\n== ${file} lines ${range}: areas ${areas.join(', ')}`);
  const started = Date.now();
  await new Stryker({
    mutate: [`${file}:${range}`],
    concurrency,
    timeoutMS: TIMEOUT_MS * concurrency,
    commandRunner: { command },
    jsonReporter: { fileName: `${OUT}/${slug}.lines-${range.replaceAll(':', '.')}.json` },
    htmlReporter: { fileName: `${OUT}/${slug}.lines-${range.replaceAll(':', '.')}.html` },
  }).runMutationTest();
  const wallSeconds = Math.round((Date.now() - started) / 1000);
  const fullReport = `${OUT}/${slug}.json`;
  const runFile = `${OUT}/${slug}.run.json`;
  if (!existsSync(fullReport) || !existsSync(runFile)) {
    console.log(`no full report of ${name} to update (run \`npm run mutation -- ${name}\` first); the range's report is ${OUT}/${slug}.lines-${range.replaceAll(':', '.')}.json`);
    return;
  }
  type Report = { files: Record<string, { mutants: Array<ReportMutant & { statusReason?: string }> }> };
  const full = JSON.parse(readFileSync(fullReport, 'utf8')) as Report;
  const retested = JSON.parse(readFileSync(`${OUT}/${slug}.lines-${range.replaceAll(':', '.')}.json`, 'utf8')) as Report;
  const key = (m: ReportMutant) => `${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName} ${m.replacement ?? ''}`;
  const fresh = new Map(Object.values(retested.files).flatMap((f) => f.mutants).map((m) => [key(m), m]));
  if (fresh.size === 0) {
    console.log(`no mutant lies wholly within ${range} (Stryker counts a range's start column from 0, its end column from 1)`);
    return;
  }
  let updated = 0;
  for (const entry of Object.values(full.files)) {
    for (const m of entry.mutants) {
      const now = fresh.get(key(m));
      if (!now) continue;
      if (now.status !== m.status) console.log(`${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} ${JSON.stringify(m.replacement ?? '')}: ${m.status} -> ${now.status}`);
      m.status = now.status;
      m.statusReason = now.statusReason;
      updated++;
    }
  }
  if (updated !== fresh.size) console.log(`${fresh.size - updated} mutant(s) of lines ${range} are not in the full report (the module changed since): run the module in full again`);
  writeFileSync(fullReport, JSON.stringify(full));
  const run = JSON.parse(readFileSync(runFile, 'utf8')) as RunInfo;
  run.retests = [...(run.retests ?? []), { lines: range, date: new Date().toISOString(), wallSeconds, command: `npm run mutation -- ${name} --lines ${range}${commonFlags()}` }];
  writeFileSync(runFile, JSON.stringify(run, null, 2) + '\n');
}

/**
 * Stryker's incremental mode reuses a mutant's result while the mutant's code is unchanged. With
 * the command runner it cannot see the suite (one opaque "test"), so a result must not outlive
 * the suite it was measured with: the fingerprint covers every tracked file but the mutated module
 * (specs, generators, the rest of the reference), and the command. When it changed, every mutant is
 * tested again, or, with --keep-killed, only the ones not killed (on the premise that checks were
 * added, not removed). Returns false when the run must test every mutant.
 */
function prepareIncremental(name: string, incrementalFile: string, command: string): boolean {
  const fingerprintFile = `${OUT}/${name.replaceAll('/', '-')}.fingerprint`;
  if (!existsSync(incrementalFile) || !existsSync(fingerprintFile)) return false;
  if (readFileSync(fingerprintFile, 'utf8') === suiteFingerprint(modulePath(name), command)) return true;
  if (!values['keep-killed']) {
    console.log(`${modulePath(name)}: the suite changed since its last mutation run; testing every mutant (--keep-killed keeps the kills)`);
    return false;
  }
  const report = JSON.parse(readFileSync(incrementalFile, 'utf8')) as { files: Record<string, { mutants: ReportMutant[] }> };
  for (const entry of Object.values(report.files)) entry.mutants = entry.mutants.filter((m) => m.status === 'Killed');
  writeFileSync(incrementalFile, JSON.stringify(report));
  return true;
}

function suiteFingerprint(mutated: string, command: string): string {
  const hash = createHash('sha256').update(command);
  const tracked = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0');
  for (const path of tracked.sort()) {
    // The mutated module is Stryker's to compare; the triage file and prose change no verdict.
    if (path === '' || path === mutated || path.startsWith('bench/') || path.endsWith('.md') || !existsSync(path)) continue;
    hash.update(path).update('\0').update(readFileSync(path)).update('\0');
  }
  return hash.digest('hex');
}

function reportMutants(reportFile: string, file: string): Array<ReportMutant & { original: string }> {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as { files: Record<string, { source: string; mutants: ReportMutant[] }> };
  const entry = Object.entries(report.files).find(([path]) => path.endsWith(file))?.[1];
  if (!entry) return [];
  const lines = entry.source.split('\n');
  return entry.mutants.map((m) => ({ ...m, original: slice(lines, m.location) }));
}

function slice(lines: string[], { start, end }: ReportMutant['location']): string {
  if (start.line === end.line) return (lines[start.line - 1] ?? '').slice(start.column - 1, end.column - 1);
  return [(lines[start.line - 1] ?? '').slice(start.column - 1), ...lines.slice(start.line, end.line - 1), (lines[end.line - 1] ?? '').slice(0, end.column - 1)].join('\n');
}

/**
 * The score: detected / (valid − excused), where detected = killed + timed out, valid = detected +
 * survived + no coverage (compile and runtime errors and ignored mutants are not valid), and
 * excused = survivors the triage file lists as equivalent, spec-open or not-observable. Survivors
 * listed as to-kill, and survivors not listed at all, count against it.
 */
function summarise(run: RunInfo): ModuleSummary {
  const name = run.module;
  const mutants = reportMutants(`${OUT}/${name.replaceAll('/', '-')}.json`, modulePath(name));
  const counts: Counts = { total: mutants.length, killed: 0, timeout: 0, survived: 0, noCoverage: 0, invalid: 0, ignored: 0 };
  const byKey = new Map(triage.filter((t) => moduleName(t.module) === name).map((t) => [triageKey(t), t]));
  const excused: Record<string, number> = {};
  let toKill = 0;
  const untriaged: TriageEntry[] = [];
  for (const m of mutants) {
    if (m.status === 'Killed') counts.killed++;
    else if (m.status === 'Timeout') counts.timeout++;
    else if (m.status === 'Ignored') counts.ignored++;
    else if (m.status === 'CompileError' || m.status === 'RuntimeError') counts.invalid++;
    else {
      if (m.status === 'NoCoverage') counts.noCoverage++;
      else counts.survived++;
      const key = { module: name, line: m.location.start.line, column: m.location.start.column, mutator: m.mutatorName, original: m.original, replacement: m.replacement ?? '' };
      const listed = byKey.get(triageKey(key));
      byKey.delete(triageKey(key));
      if (!listed) untriaged.push({ ...key, reason: 'to-kill', why: '', kill: '' });
      else if (EXCUSED.has(listed.reason)) excused[listed.reason] = (excused[listed.reason] ?? 0) + 1;
      else toKill++;
    }
  }
  const valid = counts.killed + counts.timeout + counts.survived + counts.noCoverage;
  const denominator = valid - Object.values(excused).reduce((a, b) => a + b, 0);
  const score = denominator > 0 ? (counts.killed + counts.timeout) / denominator : null;
  writeFileSync(`${OUT}/${name.replaceAll('/', '-')}.untriaged.json`, JSON.stringify({ mutants: untriaged }, null, 2) + '\n');
  if (untriaged.length > 0) console.log(`${untriaged.length} survivor(s) of ${name} not in bench/mutation-triage.json: ${OUT}/${name.replaceAll('/', '-')}.untriaged.json lists them as stubs`);
  for (const stale of byKey.values()) console.log(`triage entry no longer survives (killed, or the code moved): ${stale.module}:${stale.line}:${stale.column} ${stale.mutator} ${JSON.stringify(stale.replacement)}`);
  return { ...run, counts, excused, toKill, untriaged: untriaged.length, score };
}

/**
 * The table over every module measured so far, each from its last run's report read against
 * today's triage file. Returns the number of survivors the triage file does not explain, and the
 * modules of MODULES that have no report.
 */
function writeOverall(): { unexplained: number; unmeasured: string[] } {
  const summaries = readdirSync(OUT).filter((f) => f.endsWith('.run.json'))
    .map((f) => summarise(JSON.parse(readFileSync(`${OUT}/${f}`, 'utf8')) as RunInfo))
    .sort((a, b) => a.module.localeCompare(b.module));
  const missing = Object.keys(MODULES).filter((m) => !summaries.some((s) => s.module === m));
  if (summaries.length === 0) return { unexplained: 0, unmeasured: missing };
  const pct = (s: number | null) => (s === null ? 'n/a' : `${(s * 100).toFixed(1)}%`);
  const reasons: Reason[] = ['equivalent', 'spec-open', 'not-observable'];
  const rows = summaries.map((s) => {
    const c = s.counts;
    return `| ${s.module} | ${c.total} | ${c.killed} | ${c.timeout} | ${c.survived + c.noCoverage} | ${reasons.map((r) => s.excused[r] ?? 0).join(' / ')} | ${s.toKill} | ${s.untriaged} | ${pct(s.score)} | ${[s.wallSeconds, ...(s.retests ?? []).map((r) => r.wallSeconds)].join(' s + ')} s | ${s.date.slice(0, 10)} |`;
  });
  const sum = (f: (s: ModuleSummary) => number) => summaries.reduce((a, s) => a + f(s), 0);
  const detected = sum((s) => s.counts.killed + s.counts.timeout);
  const denominator = sum((s) => s.counts.killed + s.counts.timeout + s.counts.survived + s.counts.noCoverage - Object.values(s.excused).reduce((a, b) => a + b, 0));
  const overall = denominator > 0 ? detected / denominator : null;
  rows.push(`| **all measured** | ${sum((s) => s.counts.total)} | ${sum((s) => s.counts.killed)} | ${sum((s) => s.counts.timeout)} | ${sum((s) => s.counts.survived + s.counts.noCoverage)} | ${reasons.map((r) => sum((s) => s.excused[r] ?? 0)).join(' / ')} | ${sum((s) => s.toKill)} | ${sum((s) => s.untriaged)} | ${pct(overall)} | ${sum((s) => s.wallSeconds + (s.retests ?? []).reduce((a, r) => a + r.wallSeconds, 0))} s | |`);
  const table = [
    '| Module | Mutants | Killed | Timed out | Survived | Excused (equivalent / spec-open / not-observable) | To kill | Untriaged | Score | Wall time | Date |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  const text = `${table}\n\nScore = (killed + timed out) / (mutants − compile/runtime errors − ignored − excused survivors).\n` +
    (missing.length > 0 ? `Not measured yet: ${missing.join(', ')}.\n` : '');
  writeFileSync(`${OUT}/summary.md`, text);
  writeFileSync(`${OUT}/summary.json`, JSON.stringify({ overall, modules: summaries }, null, 2) + '\n');
  console.log(`\n${text}`);
  return { unexplained: sum((s) => s.untriaged), unmeasured: missing };
}
