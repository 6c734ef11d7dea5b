import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { checkAdapterFile } from '../adapters/load.ts';
import { adapterOptions, parseAdapterOptions } from '../adapters/options.ts';
import { join, resolve } from 'node:path';
import { EXIT, UnreachableError, UsageError, parseIntFlag } from '../cli-errors.ts';
import { loadProfile, referenceProfilePath, type Profile } from '../profile/profile.ts';
import { Redactor, userinfoSecrets } from '../report/redact.ts';
import { loadRequirements, type RunResult } from '../report/results.ts';
import { checkLine, colourEnabled, consoleSummary, heartbeatLine, LiveConsole, plain, type Colors } from '../report/console.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { loadBaseline } from '../report/baseline.ts';
import { EventLog } from '../report/events.ts';
import { foldEvents } from '../report/from-events.ts';
import pc from 'picocolors';
import { Heartbeat, heartbeatInterval } from './heartbeat.ts';
import { runStartEvent } from './run-events.ts';
import { ciOutputs, OWNED_REPORTS, writeReports } from './write-reports.ts';
import { CollectReporter } from './collect-reporter.ts';
import { preflight } from './preflight.ts';
import { onlyPattern, specFileCount } from './spec-files.ts';
import { parseShard } from './shard.ts';
import { ensureWritable } from './reports-dir.ts';
import { errorAnswersCollector } from '../report/error-answers-log.ts';
import { ERROR_ANSWERS_FILE, runLevel } from '../report/error-answers.ts';
import { REQUEST_LOG_FILE, startRequestLog, WALKED_FILE, writeRequestLog } from '../report/request-log.ts';
import { sourceDbValues } from '../source-db/placeholders.ts';
import { CREATED_LOG_FILE, startCreatedLog } from '../report/created-log.ts';
import { cleanupNotes, deleteCreated, deleteCreatedSync } from './delete-created.ts';
import { resolveRunFlags, type ResolvedFlags } from './config-resolve.ts';
import { flagByName, flagHelp } from './run-flags.ts';
import { replayLines, redactUserinfo } from './replay.ts';
import { selectRequirements } from './selection.ts';
import { parseHttpUrl } from './target-url.ts';
import { parseDuration } from './duration.ts';
import { openRunSourceDb, sourceDbWaitMs } from '../source-db/run-source-db.ts';
import { parseSourceDbSchema } from '../source-db/url.ts';
import { namesSourceDb } from '../profile/template.ts';
import { didYouMean } from '../cli-flags.ts';
import { checkSetup } from './setup-check.ts';
import { measuredVariantNames, variantCatalogue } from '../reference/faults.ts';
import { DEFAULT_API_VERSION, KNOWN_VERSIONS } from './settings.ts';
import type { RunSettings } from './settings.ts';

const HELP = `usage: dss-conformance run [flags]

Runs the conformance suite. Without --base-url it starts the embedded reference on a free loopback
port and runs against it (that is what 'npm start' does).

${flagHelp()}

Every flag can also be given as a DSS_* environment variable (--num-runs N: DSS_NUM_RUNS=N; lists
comma-separated, DSS_ONLY=auth,WH-0*; booleans 1 or 0) or as a key of the --config file
(DSS_CONFIG): a flag wins over its variable, a variable over the file.

reports (in --reports DIR): results.ndjson (the run's events, written as they happen; every other
report is rendered from them), results.json (every result, the verdict, the replay line), junit.xml
(JUnit, one testcase per check), report.html (one self-contained page: verdict, score, evidence,
deliveries, baseline), summary.md (verdict, counts per level, failures with replay lines; appended to
$GITHUB_STEP_SUMMARY when set, and ::error annotations printed when GITHUB_ACTIONS=true),
requests.json (every request sent, with its version, credential class and content type, comparable
between runs of one seed), walked.json (the input-space values the checks walked that requests do
not show; both read by 'coverage --input-space'), deliveries.json (every request the webhook
receiver got, when webhook checks ran).

verdict: CONFORMANT (every MUST and INFERRED requirement passed, every PROFILE one passed or is declared
unsupported by the profile), NOT CONFORMANT (a failure), INCOMPLETE (no failure, but a required
requirement was not judged: skipped, error, not selected, interrupted).
exit codes: 0 CONFORMANT; 1 NOT CONFORMANT; 2 usage, profile, adapter or config error; 3 target
unreachable, answering no request with JSON, or not the API (every request "no route", e.g. a
--base-url ending in /api); 4 INCOMPLETE (0 with --allow-incomplete); 70 internal error.
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
  for (const file of [...OWNED_REPORTS, ERROR_ANSWERS_FILE, REQUEST_LOG_FILE, WALKED_FILE, CREATED_LOG_FILE]) rmSync(join(reportsDir, file), { force: true });
  const startedAt = new Date();
  const state: RunState = {};
  try {
    return await runChecked(resolved, reportsDir, startedAt, state);
  } catch (error) {
    // Whatever stops the run (an adapter factory's own error, a setup problem) is printed by the
    // CLI: it goes out redacted like every other line.
    if (state.redactor) redactError(error, state.redactor);
    if (error instanceof UsageError || error instanceof UnreachableError) writeAbortReports(reportsDir, startedAt, error, state);
    throw error;
  }
}

/** The error's message (and stack, shown with DSSC_DEBUG) with the run's secrets redacted, in place. */
function redactError(error: unknown, redactor: Redactor): void {
  if (!(error instanceof Error)) return;
  error.message = redactor.text(error.message);
  if (error.stack) error.stack = redactor.text(error.stack);
}

/** The run's redactor, as soon as the flags name a secret, and its event log, once it can be opened. */
interface RunState {
  log?: EventLog;
  redactor?: Redactor;
}

async function runChecked(resolved: ResolvedFlags, reportsDir: string, startedAt: Date, state: RunState): Promise<number> {
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
  const variantNames = [...variantCatalogue().map((x) => x.name), ...measuredVariantNames()];
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
  const shard = parseShard(str('shard'), label('shard'), specFileCount());

  const receiverPort = int('receiver-port') ?? 0;
  const tolerance = int('timestamp-tolerance-s') ?? 300;
  const publicUrl = str('receiver-public-url');
  if (publicUrl !== undefined) parseHttpUrl(label('receiver-public-url'), publicUrl);
  const { profile, secrets, source: profileSource } = chooseProfile(str('profile'), embedded);
  // From here an error may quote a secret (an adapter's own message): the ones known so far are
  // redacted, the embedded reference's keys and the source database's password are added later.
  const redactor = new Redactor([apiKeyFlag, str('org-key'), ...secrets, ...urlSecrets, ...userinfoSecrets(str('source-db') ?? '')]);
  state.redactor = redactor;
  const adapterPath = str('adapter') ? await checkAdapterFile(str('adapter')!) : undefined;
  const givenAdapterOptions = parseAdapterOptions(list('adapter-option'), label('adapter-option'));
  const baselineFile = str('baseline');
  const baseline = baselineFile ? loadBaseline(resolve(baselineFile)) : undefined;
  const replay = replayLines(resolved, { embedded, seed });

  const sourceDbSchema = parseSourceDbSchema(str('source-db-schema'), label('source-db-schema'));
  const runId = randomBytes(4).toString('hex');
  // Started now, without waiting: the embedded database comes up in parallel while the reference
  // starts and the first checks run; the first query that needs it waits (sourceDbWaitMs at most).
  const dbWaitMs = sourceDbWaitMs(maxDurationMs);
  const sourceDb = await openRunSourceDb({
    url: str('source-db'), urlLabel: label('source-db'), publicHost: str('source-db-public-host'), publicHostLabel: label('source-db-public-host'),
    // The webhook checks write their rows there; a profile may point a kind at it ({{sourceDb.port}}).
    needed: only.length === 0 || only.some((id) => id.startsWith('WH-')) || namesSourceDb(profile.kinds),
    waitMs: dbWaitMs,
    onNote: (line) => process.stdout.write(consoleSafe(`dss-conformance: note: ${line}`) + '\n'),
  });
  // A --source-db is asked now (in parallel with the reference's start); said below, once.
  const dbProblemAsked = sourceDb?.problem();
  let reference: { baseUrl: string; apiKey: string; orgKey: string; close(): Promise<void> } | undefined;
  try {
    if (embedded) {
      const { startReference } = await import('../reference/index.ts');
      reference = await startReference({ port: 0, ...(apiKeyFlag ? { apiKey: apiKeyFlag } : {}), faults });
    }
    const baseUrl = reference?.baseUrl ?? baseUrlFlag!;
    const apiKey = reference?.apiKey ?? apiKeyFlag!;
    const orgKey = reference?.orgKey ?? str('org-key');
    const allSecrets = [...secrets, ...urlSecrets, ...(sourceDb?.secrets ?? [])];
    const dbProblem = await dbProblemAsked;
    for (const secret of [apiKey, orgKey, ...allSecrets]) redactor.add(secret);
    const settings: RunSettings = {
      baseUrl, apiKey, orgKey, profile, profileSource,
      seed, numRuns, timeoutMs, maxRps, runId, secrets: allSecrets,
      replay: replay.check,
      embedded, reportsDir, adapterPath, adapterOptions: adapterOptions(profile, givenAdapterOptions), timestampToleranceS: tolerance, clockSkewS: int('clock-skew-s') ?? 60, selected: only.length > 0 ? only : undefined, sharded: shard !== undefined,
      receiver: { host: str('receiver-host') ?? '127.0.0.1', port: receiverPort, publicUrl },
      // One that did not answer already is not waited for: each check that needs it tries once.
      sourceDb: sourceDb ? { url: sourceDb.url, publicHost: sourceDb.publicHost, embedded: sourceDb.embedded, schema: sourceDbSchema, waitUntil: dbProblem ? 0 : startedAt.getTime() + dbWaitMs } : undefined,
      deadline: startedAt.getTime() + maxDurationMs, maxRetryAfterMs, maxResponseBytes,
      apiVersion: apiVersionFlag === 'all' ? DEFAULT_API_VERSION : apiVersionFlag,
    };
    const versions = apiVersionFlag === 'all' ? (profile.versions?.supported ?? [...KNOWN_VERSIONS]) : [settings.apiVersion];
    await checkSetup(settings);

    // From here every outcome is an event: the log writes results.ndjson as they happen, and the
    // console, like every report file, only renders them.
    const log = new EventLog(join(reportsDir, 'results.ndjson'), redactor);
    // Created before the first pass, removed at the end: the worker never creates them (src/report/run-file.ts).
    const errorAnswers = errorAnswersCollector(reportsDir, log);
    startRequestLog(reportsDir);
    startCreatedLog(reportsDir);
    state.log = log;
    const colors: Colors = colourEnabled() ? pc.createColors(true) : plain;
    const live = new LiveConsole(baseline, colors);
    log.on((e) => {
      // The ERR checks are judged over the whole stream: their lines come with the fold, at the end.
      if (e.type === 'check-result' && !runLevel(e.check.id)) process.stdout.write(live.line(e.check));
      else if (e.type === 'heartbeat') process.stdout.write(heartbeatLine(e.waitingFor, e.elapsedMs, e.boundMs, colors));
    });
    log.emit(runStartEvent({ settings, flags, faults, versions, selected: only, baseline: baseline && baselineFile ? { file: baselineFile, ...baseline } : undefined, shard }));

    process.stdout.write(redactor.text(`dss-conformance: target ${embedded ? `embedded reference at ${baseUrl}${faults.length ? ` with fault ${faults.join(', ')}` : ''}` : redactUserinfo(baseUrl)}, profile ${settings.profileSource}, seed ${seed}, run id ${settings.runId}`) + '\n');
    const { hint } = await preflight(settings, redactor);
    if (hint) process.stdout.write(consoleSafe(redactor.text(`dss-conformance: note: ${hint}`)) + '\n');
    // Said once here; each check that needs the database says it again as its error.
    if (dbProblem) process.stdout.write(consoleSafe(redactor.text(`dss-conformance: note: ${dbProblem}: the checks that need it are errors`)) + '\n');

    const heartbeat = new Heartbeat(heartbeatInterval(), (b) => log.emit({ type: 'heartbeat', ...b }));
    const collector = new CollectReporter(loadRequirements(), redactor, only.length > 0 ? onlyPattern(only) : undefined);
    collector.onCheck = (check) => {
      heartbeat.reported();
      log.emit({ type: 'check-result', check });
    };
    collector.onStart = (title) => {
      heartbeat.started(title);
      log.emit({ type: 'check-start', title, ...(collector.version ? { version: collector.version } : {}) });
    };
    collector.onWait = (wait) => heartbeat.waiting(wait);
    collector.onError = (message) => log.emit({ type: 'run-error', message });
    // Deliveries go into the stream as they arrive; the pass's log adds any that came between checks.
    const announced = new Set<string>();
    collector.onDelivery = (delivery) => {
      announced.add(deliveryKey(delivery));
      log.emit({ type: 'delivery', delivery });
    };
    heartbeat.start();
    const finish = (interrupted?: string): number => {
      heartbeat.stop();
      collectDeliveries(reportsDir, log, announced);
      errorAnswers.end();
      const { verdict } = foldEvents(log.events, loadRequirements()).run;
      log.emit({ type: 'run-end', durationMs: Date.now() - startedAt.getTime(), ...(interrupted ? { interrupted } : {}), verdict });
      log.close();
      const folded = writeReports(reportsDir, log.events, redactor);
      writeRunRequests(reportsDir, settings);
      process.stdout.write(live.end(folded.run.checks));
      for (const c of folded.run.checks) if (runLevel(c.id)) process.stdout.write(checkLine(c, colors));
      process.stdout.write(consoleSafe(redactor.text(cleanupNotes(log.events))));
      const annotations = ciOutputs(folded, redactor);
      const written = OWNED_REPORTS.filter((f) => f !== 'deliveries.json' || folded.run.deliveries).map((f) => join(reportsDir, f));
      // The verdict line comes last: the reports and the rerun line go before the summary's end.
      process.stdout.write(annotations + consoleSafe(redactor.text(`reports: ${written.join(', ')}\nrerun: ${replay.run}`)) + '\n' + consoleSummary(folded.run, colors));
      const run = folded.run;
      const code = run.verdict?.verdict === 'CONFORMANT' ? EXIT.ok : run.verdict?.verdict === 'INCOMPLETE' ? EXIT.incomplete : EXIT.checkFailed;
      return code === EXIT.incomplete && flags['allow-incomplete'] ? EXIT.ok : code;
    };
    // A CI timeout (SIGTERM), ^C or the run's own budget: what was judged is reported, the rest is
    // an error, and the reports are complete before the process exits.
    let stopped = false;
    const stop = (why: string) => {
      if (stopped) return;
      stopped = true;
      const code = finish(why);
      // The reports first (a CI job has seconds between its SIGTERM and its SIGKILL), then what
      // the run created on the target goes, within seconds; said on the console only, as the
      // stream has ended.
      deleteCreatedSync(settings, redactor);
      // The reports are complete; the run's tables go before the process does (bounded in time).
      sourceDb?.finishSync(runId);
      // The worker runs on meanwhile: what it wrote after the reports were made is not reported.
      for (const file of [ERROR_ANSWERS_FILE, REQUEST_LOG_FILE, CREATED_LOG_FILE]) rmSync(join(reportsDir, file), { force: true });
      process.exit(code);
    };
    const onSignal = (signal: NodeJS.Signals) => stop(`interrupted by ${signal}`);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const budget = setTimeout(() => stop(`the --max-duration budget of ${Math.round(maxDurationMs / 1000)} s ran out`), Math.max(0, settings.deadline - Date.now()));
    budget.unref();
    // The passes of one run share a worker thread (src/runner/kept-pool.ts): a new thread per pass
    // loaded vitest's runtime and the kit again, most of what a later pass cost beyond its checks.
    const { keepWorkerThread, keptPool, endKeptThread } = await import('./kept-pool.ts');
    const keepForPasses = versions.length > 1 && keptPool() === undefined && process.env.DSSC_KEPT_THREAD !== '0';
    if (keepForPasses) keepWorkerThread(true);
    try {
      for (const [index, version] of versions.entries()) {
        // A later pass leaves out the VER checks: they try every version themselves.
        const ids = (only.length > 0 ? only : [...known]).filter((id) => index === 0 || !id.startsWith('VER-'));
        if (ids.length === 0) continue;
        const pattern = only.length > 0 || index > 0 ? onlyPattern(ids) : undefined;
        collector.selection = pattern;
        collector.version = versions.length > 1 ? version : undefined;
        const pass = versions.length > 1 ? { ...settings, apiVersion: version, versionPass: { version, index, first: index === 0 } } : settings;
        const { runSuite } = await import('./run-suite.ts');
        const areas = await runSuite(pass, pattern, collector, shard ? `${shard.index}/${shard.count}` : undefined);
        log.emit({ type: 'suite-files', areas });
        collectDeliveries(reportsDir, log, announced);
        errorAnswers.pass();
      }
      // Before the verdict: what the run created on the target goes (a failure is a note, not a
      // check's). Still under the signal handlers: ^C meanwhile finishes the run as any interruption.
      await deleteCreated(settings, log, redactor);
    } finally {
      if (keepForPasses) {
        keepWorkerThread(false);
        await endKeptThread();
      }
      clearTimeout(budget);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    stopped = true;
    return finish();
  } finally {
    // A run stopped by an exception never reached finish(): the worker's file goes all the same.
    rmSync(join(reportsDir, ERROR_ANSWERS_FILE), { force: true });
    await reference?.close();
    await sourceDb?.finish(runId);
  }
}

/** requests.json, once per run: at its end, or at its interruption (what the worker had sent by then). */
function writeRunRequests(dir: string, settings: RunSettings): void {
  try {
    writeRequestLog(dir, { runId: settings.runId, baseUrl: settings.baseUrl, sourceDbPort: sourceDbValues(settings)['sourceDb.port'] as string | number | undefined });
  } catch (error) {
    throw new UsageError(`--reports ${dir}: cannot write requests.json (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** Exit 2 or 3 after the flags were read: reports that say why, not none (or an old green one). */
function writeAbortReports(dir: string, startedAt: Date, error: UsageError | UnreachableError, state: RunState): void {
  try {
    const redactor = state.redactor ?? new Redactor([]);
    const log = state.log ?? new EventLog(join(dir, 'results.ndjson'), redactor);
    if (!log.ended) log.emit({ type: 'run-end', durationMs: Date.now() - startedAt.getTime(), aborted: { exitCode: error.exitCode, message: error.message } });
    log.close();
    const folded = writeReports(dir, log.events, redactor);
    process.stdout.write(ciOutputs(folded, redactor));
  } catch {
    // The one-line error about to be printed matters more than a report that cannot be written.
  }
}

/**
 * Each pass's worker writes the receiver's log (every delivery, malformed ones too) to
 * deliveries.json; each is an event of the stream, and the final file is rendered from them all.
 */
function collectDeliveries(dir: string, log: EventLog, announced: Set<string>): void {
  const read = readDeliveryLog(dir);
  if (!read) return;
  const { deliveries, notKept } = read;
  log.emit({ type: 'receiver', ...(notKept && Object.keys(notKept).length > 0 ? { notKept } : {}) });
  for (const delivery of deliveries) if (!announced.has(deliveryKey(delivery))) log.emit({ type: 'delivery', delivery });
  announced.clear();
  rmSync(join(dir, 'deliveries.json'), { force: true });
}

/** A delivery is the receiver's seq at its arrival time (seq restarts with each pass's receiver). */
const deliveryKey = (d: { seq: number; receivedAt: string }) => `${d.seq} ${d.receivedAt}`;

function readDeliveryLog(dir: string): { deliveries: NonNullable<RunResult['deliveries']>; notKept?: Record<string, number> } | undefined {
  const file = join(dir, 'deliveries.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { deliveries: NonNullable<RunResult['deliveries']>; notKept?: Record<string, number> };
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
  if (flag === 'reference' || (flag === undefined && embedded)) return { ...loadProfile(referenceProfilePath, process.env, { shipped: true }), source: 'reference (built in)' };
  if (flag === undefined) return { profile: { name: 'none' }, secrets: [], source: 'none (no --profile: checks that need what the spec does not show are skipped)' };
  return { ...loadProfile(resolve(flag)), source: flag };
}
