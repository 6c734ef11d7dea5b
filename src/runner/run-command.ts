import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { checkAdapterFile } from '../adapters/load.ts';
import { dirname, join, resolve } from 'node:path';
import { EXIT, UnreachableError, UsageError, parseIntFlag } from '../cli-errors.ts';
import { loadProfile, referenceProfilePath, type Profile } from '../profile/profile.ts';
import { Redactor } from '../report/redact.ts';
import { junitXml } from '../report/junit.ts';
import { loadRequirements, type RunResult } from '../report/results.ts';
import { checkLine, consoleSummary } from '../report/console.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { applyBaseline, loadBaseline, type Baseline } from '../report/baseline.ts';
import { runVerdict } from '../report/verdict.ts';
import { CollectReporter } from './collect-reporter.ts';
import { preflight } from './preflight.ts';
import { onlyPattern, runSuite } from './run-suite.ts';
import { resolveRunFlags, type ResolvedFlags } from './config-resolve.ts';
import { flagByName, flagHelp } from './run-flags.ts';
import { replayLines, redactUserinfo } from './replay.ts';
import { selectRequirements } from './selection.ts';
import { parseHttpUrl } from './target-url.ts';
import { didYouMean } from '../cli-flags.ts';
import { checkSetup } from './setup-check.ts';
import { variantCatalogue } from '../reference/faults.ts';
import { DEFAULT_API_VERSION, KNOWN_VERSIONS } from './settings.ts';
import type { RunSettings } from './settings.ts';

const HELP = `usage: dss-conformance run [flags]

Runs the conformance suite. Without --base-url it starts the embedded reference on a free loopback
port and runs against it (that is what 'npm start' does).

${flagHelp()}

Every flag can also be given as a DSS_* environment variable (--num-runs N: DSS_NUM_RUNS=N; lists
comma-separated, DSS_ONLY=auth,WH-0*; booleans 1 or 0) or as a key of the --config file
(DSS_CONFIG): a flag wins over its variable, a variable over the file.

reports (in --reports DIR): junit.xml (JUnit, one testcase per check), results.json (every result,
the verdict, the replay line), requests.json (every request sent, comparable between runs of one
seed), deliveries.json (every request the webhook receiver got, when webhook checks ran).

verdict: CONFORMANT (every MUST and INFERRED requirement passed, every PROFILE one passed or is declared
unsupported by the profile), NOT CONFORMANT (a failure), INCOMPLETE (no failure, but a required
requirement was not judged: skipped, error, not selected, interrupted).
exit codes: 0 CONFORMANT; 1 NOT CONFORMANT; 2 usage, profile, adapter or config error; 3 target
unreachable or answering no request with JSON; 4 INCOMPLETE (0 with --allow-incomplete); 70 internal error.
On exit 2 or 3 after the flags were read, results.json and junit.xml say why.`;

export async function runCommand(argv: string[]): Promise<number> {
  const resolved = resolveRunFlags(argv);
  if (resolved.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  const flags = resolved.values;

  const reportsDir = resolve((flags.reports as string | undefined) ?? 'reports');
  ensureWritable(reportsDir, resolved.sources.reports?.label ?? '--reports');
  // Reports this command owns are removed first: a run that stops early never leaves the
  // previous run's green junit.xml behind.
  for (const file of OWNED_REPORTS) rmSync(join(reportsDir, file), { force: true });
  const startedAt = new Date();
  try {
    return await runChecked(resolved, reportsDir, startedAt);
  } catch (error) {
    if (error instanceof UsageError || error instanceof UnreachableError) writeAbortReports(reportsDir, startedAt, error);
    throw error;
  }
}

const OWNED_REPORTS = ['junit.xml', 'results.json', 'requests.json', 'deliveries.json'];

async function runChecked(resolved: ResolvedFlags, reportsDir: string, startedAt: Date): Promise<number> {
  const { values: flags, sources } = resolved;
  const str = (name: string) => flags[name] as string | undefined;
  const list = (name: string) => (flags[name] as string[] | undefined) ?? [];
  // Errors name where the value came from: --seed, DSS_SEED or the config file's seed.
  const label = (name: string) => sources[name]?.label ?? `--${name}`;
  const int = (name: string) => {
    const range = flagByName.get(name)!.range!;
    return parseIntFlag(name, str(name), range[0], range[1], label(name));
  };
  const baseUrlFlag = str('base-url');
  const embedded = !baseUrlFlag;
  const urlSecrets = baseUrlFlag !== undefined ? parseHttpUrl(label('base-url'), baseUrlFlag).secrets : [];
  const variants = list('variant');
  const variantNames = variantCatalogue().map((x) => x.name);
  for (const v of variants) if (!variantNames.includes(v)) throw new UsageError(`${label('variant')}: unknown benign variant '${v}' (${didYouMean(v, variantNames)}known: ${variantNames.join(', ')})`);
  const faults = [...list('fault'), ...variants];
  if (!embedded && faults.length > 0) throw new UsageError('--fault and --variant apply to the embedded reference only; start a faulty target with `dss-conformance serve --fault NAME`');
  const apiKeyFlag = str('api-key');
  if (!embedded && !apiKeyFlag) throw new UsageError('--api-key (or DSS_API_KEY) is required with --base-url');

  const seed = int('seed') ?? Math.floor(Math.random() * 2 ** 31);
  const numRuns = int('num-runs') ?? 25;
  const timeoutMs = int('timeout-ms') ?? 10_000;
  const maxRps = int('max-rps') ?? (embedded ? undefined : 20);
  const maxDurationMs = parseDuration(str('max-duration'), label('max-duration')) ?? 30 * 60_000;
  const maxRetryAfterMs = (int('max-retry-after-s') ?? 60) * 1000;
  const maxResponseBytes = int('max-response-bytes') ?? 8 * 1024 * 1024;
  const apiVersionFlag = str('api-version') ?? DEFAULT_API_VERSION;
  if (apiVersionFlag !== 'all' && !(KNOWN_VERSIONS as readonly string[]).includes(apiVersionFlag)) throw new UsageError(`${label('api-version')} must be one of ${KNOWN_VERSIONS.join(', ')} or all, got ${JSON.stringify(apiVersionFlag)}`);
  const requirements = loadRequirements();
  const known = new Set(requirements.map((r) => r.id));
  const only = selectRequirements(requirements, list('only'), list('exclude'), { only: label('only'), exclude: label('exclude') }) ?? [];

  const receiverPort = int('receiver-port') ?? 0;
  const tolerance = int('timestamp-tolerance-s') ?? 300;
  const publicUrl = str('receiver-public-url');
  if (publicUrl !== undefined) parseHttpUrl(label('receiver-public-url'), publicUrl);
  const adapterPath = str('adapter') ? await checkAdapterFile(str('adapter')!) : undefined;
  const { profile, secrets, source: profileSource } = chooseProfile(str('profile'), embedded);
  const baselineFile = str('baseline');
  const baseline = baselineFile ? loadBaseline(resolve(baselineFile)) : undefined;
  const replay = replayLines(resolved, { embedded, seed });

  let reference: { baseUrl: string; apiKey: string; orgKey: string; close(): Promise<void> } | undefined;
  if (embedded) {
    const { startReference } = await import('../reference/index.ts');
    reference = await startReference({ port: 0, ...(apiKeyFlag ? { apiKey: apiKeyFlag } : {}), faults });
  }
  try {
    const baseUrl = reference?.baseUrl ?? baseUrlFlag!;
    const apiKey = reference?.apiKey ?? apiKeyFlag!;
    const orgKey = reference?.orgKey ?? str('org-key');
    const allSecrets = [...secrets, ...urlSecrets];
    const redactor = new Redactor([apiKey, orgKey, ...allSecrets]);
    const settings: RunSettings = {
      baseUrl, apiKey, orgKey, profile, profileSource,
      seed, numRuns, timeoutMs, maxRps, runId: randomBytes(4).toString('hex'), secrets: allSecrets,
      replay: replay.check,
      embedded, reportsDir, adapterPath, timestampToleranceS: tolerance, clockSkewS: int('clock-skew-s') ?? 60, selected: only.length > 0 ? only : undefined,
      receiver: { host: str('receiver-host') ?? '127.0.0.1', port: receiverPort, publicUrl },
      deadline: startedAt.getTime() + maxDurationMs, maxRetryAfterMs, maxResponseBytes,
      apiVersion: apiVersionFlag === 'all' ? DEFAULT_API_VERSION : apiVersionFlag,
    };
    const versions = apiVersionFlag === 'all' ? (profile.versions?.supported ?? [...KNOWN_VERSIONS]) : [settings.apiVersion];
    await checkSetup(settings);

    process.stdout.write(redactor.text(`dss-conformance: target ${embedded ? `embedded reference at ${baseUrl}${faults.length ? ` with fault ${faults.join(', ')}` : ''}` : redactUserinfo(baseUrl)}, profile ${settings.profileSource}, seed ${seed}, run id ${settings.runId}`) + '\n');
    const { hint } = await preflight(settings, redactor);
    if (hint) process.stdout.write(consoleSafe(redactor.text(`dss-conformance: note: ${hint}`)) + '\n');

    const deliveries: DeliveryLog = { all: [], seen: false };
    const collector = new CollectReporter(loadRequirements(), redactor, only.length > 0 ? onlyPattern(only) : undefined);
    collector.onCheck = (c) => process.stdout.write(checkLine(c));
    const finish = (interrupted?: string): number => {
      collectDeliveries(reportsDir, deliveries);
      const run = assemble(settings, collector, startedAt, only, interrupted, baseline && baselineFile ? { file: baselineFile, ...baseline } : undefined, deliveries);
      writeReports(reportsDir, run, redactor);
      process.stdout.write(consoleSummary(run) + `reports: ${OWNED_REPORTS.filter((f) => f !== 'deliveries.json' || run.deliveries).map((f) => join(reportsDir, f)).join(', ')}\n` + consoleSafe(redactor.text(`rerun: ${replay.run}`)) + '\n');
      const code = run.verdict?.verdict === 'CONFORMANT' ? EXIT.ok : run.verdict?.verdict === 'INCOMPLETE' ? EXIT.incomplete : EXIT.checkFailed;
      return code === EXIT.incomplete && flags['allow-incomplete'] ? EXIT.ok : code;
    };
    // A CI timeout (SIGTERM), ^C or the run's own budget: what was judged is reported, the rest is
    // an error, and the reports are complete before the process exits.
    let stopped = false;
    const stop = (why: string) => {
      if (stopped) return;
      stopped = true;
      process.exit(finish(why));
    };
    const onSignal = (signal: NodeJS.Signals) => stop(`interrupted by ${signal}`);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const budget = setTimeout(() => stop(`the --max-duration budget of ${Math.round(maxDurationMs / 1000)} s ran out`), Math.max(0, settings.deadline - Date.now()));
    budget.unref();
    try {
      for (const [index, version] of versions.entries()) {
        // A later pass leaves out the VER checks: they try every version themselves.
        const ids = (only.length > 0 ? only : [...known]).filter((id) => index === 0 || !id.startsWith('VER-'));
        if (ids.length === 0) continue;
        const pattern = only.length > 0 || index > 0 ? onlyPattern(ids) : undefined;
        collector.selection = pattern;
        collector.version = versions.length > 1 ? version : undefined;
        const pass = versions.length > 1 ? { ...settings, apiVersion: version, versionPass: { version, index, first: index === 0 } } : settings;
        await runSuite(pass, pattern, collector);
        collectDeliveries(reportsDir, deliveries);
      }
    } finally {
      clearTimeout(budget);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    stopped = true;
    return finish();
  } finally {
    await reference?.close();
  }
}

/** --max-duration: seconds, or a number with s, m or h. */
function parseDuration(raw: string | undefined, label: string): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d+)(s|m|h)?$/.exec(raw.trim());
  if (!m) throw new UsageError(`${label} must be seconds or a number with s, m or h (90s, 30m, 1h), got ${JSON.stringify(raw)}`);
  const ms = Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h'];
  if (ms < 1000 || ms > 7 * 24 * 3_600_000) throw new UsageError(`${label} must be between 1 s and 7 days, got ${raw}`);
  return ms;
}

/** The run's result from the checks collected so far; on interruption the unjudged are errors. */
function assemble(settings: RunSettings, collector: CollectReporter, startedAt: Date, only: string[], interrupted: string | undefined, baseline: (Baseline & { file: string }) | undefined, deliveries: DeliveryLog): RunResult {
  const requirements = loadRequirements();
  const selected = only.length > 0 ? new Set(only) : undefined;
  let checks = [...collector.checks];
  if (interrupted) {
    for (const r of requirements) {
      if ((!selected || selected.has(r.id)) && !checks.some((c) => c.id === r.id)) {
        checks.push({ id: r.id, title: `${r.id} (not finished)`, area: r.spec.replace(/\.spec\.ts$/, ''), level: r.level, section: r.section, status: 'error', reason: `interrupted: ${interrupted}`, durationMs: 0 });
      }
    }
  }
  let problems: string[] = [];
  let unmatched: string[] = [];
  if (baseline) ({ checks, problems, unmatched } = applyBaseline(checks, baseline, new Date()));
  const run: RunResult = {
    tool: 'dss-conformance',
    target: settings.baseUrl,
    profile: settings.profileSource,
    seed: settings.seed,
    runId: settings.runId,
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    replay: settings.replay,
    checks,
    errors: [...collector.errors],
    ...(deliveries.seen ? { deliveries: deliveries.all } : {}),
    ...(interrupted ? { interrupted } : {}),
    ...(problems.length ? { problems } : {}),
    ...(baseline ? { baseline: { file: baseline.file, unmatched } } : {}),
  };
  run.verdict = runVerdict(requirements, checks, [...run.errors, ...problems], selected);
  return run;
}

/** Exit 2 or 3 after the flags were read: reports that say why, not none (or an old green one). */
function writeAbortReports(dir: string, startedAt: Date, error: UsageError | UnreachableError): void {
  const run: RunResult = {
    tool: 'dss-conformance', target: '', profile: '', seed: 0, runId: '', startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(), replay: '', checks: [], errors: [],
    aborted: { exitCode: error.exitCode, message: error.message },
  };
  run.verdict = runVerdict(loadRequirements(), []);
  try {
    writeReports(dir, run, new Redactor([]));
  } catch {
    // The one-line error about to be printed matters more than a report that cannot be written.
  }
}

/** Checked before the run: a report folder that cannot be written is a usage error, not a lost run. */
function ensureWritable(dir: string, label: string): void {
  try {
    // One level at a time: Node's recursive mkdirSync never returns for some paths (under /proc).
    const missing: string[] = [];
    let existing = dir;
    while (!existsSync(existing)) {
      missing.unshift(existing);
      existing = dirname(existing);
    }
    for (const level of missing) mkdirSync(level);
    accessSync(dir, constants.W_OK);
    const probe = join(dir, `.dssc-write-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (error) {
    throw new UsageError(`${label} ${dir}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/**
 * Each pass's worker writes the receiver's log (every delivery, malformed ones too) to
 * deliveries.json; a run of several passes keeps them all, and the final file holds every one.
 */
function collectDeliveries(dir: string, into: DeliveryLog): void {
  const log = readDeliveryLog(dir);
  if (!log) return;
  into.seen = true;
  into.all.push(...log);
  rmSync(join(dir, 'deliveries.json'), { force: true });
}

interface DeliveryLog {
  all: NonNullable<RunResult['deliveries']>;
  /** Some pass ran the webhook checks (its worker wrote a log, even an empty one). */
  seen: boolean;
}

function readDeliveryLog(dir: string): RunResult['deliveries'] {
  const file = join(dir, 'deliveries.json');
  if (!existsSync(file)) return undefined;
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { deliveries: NonNullable<RunResult['deliveries']> }).deliveries;
  } catch {
    // Cut short by an interruption while the worker was writing it.
    return undefined;
  }
}

/**
 * The profile: a file, or `reference` (built in). The embedded reference uses its own; an external
 * target without --profile gets none, so every check that needs an answer the spec does not show
 * is skipped with that reason instead of being run on the reference's answers (a guess).
 */
function chooseProfile(flag: string | undefined, embedded: boolean): { profile: Profile; secrets: string[]; source: string } {
  if (flag === 'reference' || (flag === undefined && embedded)) return { ...loadProfile(referenceProfilePath), source: 'reference (built in)' };
  if (flag === undefined) return { profile: { name: 'none' }, secrets: [], source: 'none (no --profile: checks that need what the spec does not show are skipped)' };
  return { ...loadProfile(resolve(flag)), source: flag };
}

function writeReports(dir: string, run: RunResult, redactor: Redactor): void {
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'junit.xml'), junitXml(run, redactor));
    writeFileSync(join(dir, 'results.json'), redactor.text(JSON.stringify(run, null, 2)) + '\n');
    if (run.deliveries) writeFileSync(join(dir, 'deliveries.json'), redactor.text(JSON.stringify({ deliveries: run.deliveries }, null, 1)) + '\n');
  } catch (error) {
    throw new UsageError(`--reports ${dir}: cannot write (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
