import { randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { checkAdapterFile } from '../adapters/load.ts';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
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
import { checkSetup } from './setup-check.ts';
import { variantCatalogue } from '../reference/faults.ts';
import { DEFAULT_API_VERSION, KNOWN_VERSIONS } from './settings.ts';
import type { RunSettings } from './settings.ts';

const HELP = `usage: dss-conformance run [flags]

Runs the conformance suite. Without --base-url it starts the embedded reference on a free loopback
port and runs against it (that is what 'npm start' does).

  --base-url URL      target base address; paths /api/... are appended (env DSS_BASE_URL)
  --api-key K         user API key, sent as Bearer (env DSS_API_KEY; required with --base-url)
  --org-key K         organization-scoped key for Basic (env DSS_ORG_KEY); without it AUTH-002 is skipped
  --profile FILE      target profile: answers to what the spec does not show; 'reference' names the
                      reference's (built in; the default for the embedded reference). Against --base-url
                      without it, the checks that need such answers are skipped, with that reason
  --reports DIR       where junit.xml, results.json, requests.json and deliveries.json go (default: reports);
                      a run first removes these, so none is left from an earlier run
  --seed N            seed for generated data; the same seed regenerates the same requests (default: random, printed)
  --num-runs N        fast-check runs per property check (default: 25)
  --only ID,...       run only these requirement IDs (see 'dss-conformance coverage')
  --timeout-ms N      per-request timeout (default: 10000)
  --max-rps N         request rate bound (default: 20 against --base-url, unbounded for the embedded reference)
  --api-version V     X-Service-Version the checks send: one of ${KNOWN_VERSIONS.join(', ')} (default ${DEFAULT_API_VERSION}),
                      or 'all': one pass per version the profile declares supported (versions.supported, default all),
                      each result labelled '@<version>' (env DSS_API_VERSION); the VER checks run in the first pass
  --fault NAME        embedded reference only: break one rule of it (repeatable; see 'dss-conformance faults')
  --variant NAME      embedded reference only: make it conforming-but-unusual in one way (repeatable)
  --adapter FILE      module whose default export makes the target adapter for the webhook checks
                      (default: the built-in adapter, for the reference and targets shaped like it)
  --receiver-host H   where the capturing webhook receiver listens (default: 127.0.0.1)
  --receiver-port N   its port (default: 0, a free port)
  --receiver-public-url URL  the URL the target must use to reach the receiver (a tunnel), when not host:port
  --timestamp-tolerance-s N  how far Service-Signature-Timestamp may be from arrival (default: 300)
  --max-duration D    time budget of the whole run: 1800, 90s, 30m, 1h (default: 30m, env DSS_MAX_DURATION);
                      when it runs out, unfinished checks are errors and the reports are written
  --max-retry-after-s N  longest Retry-After a 429 is waited for (default: 60); longer gives up at once
  --max-response-bytes N answers past this size are cut and judged as such (default: 8388608)
  --baseline FILE     known failures (fixtures/baseline.schema.json): listed failures are expected-fail;
                      a listed check that passes, or an expired entry, fails the run
  --allow-incomplete  exit 0 instead of 4 when nothing failed but not everything required was judged
  -h, --help          this text

verdict: CONFORMANT (every MUST and INFERRED requirement passed, every PROFILE one passed or is declared
unsupported by the profile), NOT CONFORMANT (a failure), INCOMPLETE (no failure, but a required
requirement was not judged: skipped, error, not selected, interrupted).
exit codes: 0 CONFORMANT; 1 NOT CONFORMANT; 2 usage, profile, adapter or config error; 3 target
unreachable or answering no request with JSON; 4 INCOMPLETE (0 with --allow-incomplete); 70 internal error.
On exit 2 or 3 after the flags were read, results.json and junit.xml say why.`;

export async function runCommand(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        'org-key': { type: 'string' },
        profile: { type: 'string' },
        reports: { type: 'string' },
        seed: { type: 'string' },
        'num-runs': { type: 'string' },
        only: { type: 'string' },
        'timeout-ms': { type: 'string' },
        'max-rps': { type: 'string' },
        fault: { type: 'string', multiple: true },
        variant: { type: 'string', multiple: true },
        'api-version': { type: 'string' },
        adapter: { type: 'string' },
        'receiver-host': { type: 'string' },
        'receiver-port': { type: 'string' },
        'receiver-public-url': { type: 'string' },
        'timestamp-tolerance-s': { type: 'string' },
        'max-duration': { type: 'string' },
        'max-retry-after-s': { type: 'string' },
        'max-response-bytes': { type: 'string' },
        baseline: { type: 'string' },
        'allow-incomplete': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    const message = (error as Error).message;
    // A value that starts with '-' (a generated key can) must be written --flag=-value.
    const ambiguous = /^Option '(--[\w-]+)' argument is ambiguous/.exec(message);
    if (ambiguous) throw new UsageError(`${ambiguous[1]}: a value that starts with '-' is written ${ambiguous[1]}=-VALUE`);
    throw new UsageError(message.split('\n')[0] ?? 'bad flags');
  }
  const flags = parsed.values as Flags;
  if (flags.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }

  const reportsDir = resolve((flags.reports as string | undefined) ?? 'reports');
  ensureWritable(reportsDir);
  // Reports this command owns are removed first: a run that stops early never leaves the
  // previous run's green junit.xml behind.
  for (const file of OWNED_REPORTS) rmSync(join(reportsDir, file), { force: true });
  const startedAt = new Date();
  try {
    return await runChecked(flags, reportsDir, startedAt);
  } catch (error) {
    if (error instanceof UsageError || error instanceof UnreachableError) writeAbortReports(reportsDir, startedAt, error);
    throw error;
  }
}

const OWNED_REPORTS = ['junit.xml', 'results.json', 'requests.json', 'deliveries.json'];

type Flags = Record<string, string | boolean | string[] | undefined>;

async function runChecked(flags: Flags, reportsDir: string, startedAt: Date): Promise<number> {
  const str = (name: string) => flags[name] as string | undefined;
  const baseUrlFlag = str('base-url') ?? (process.env.DSS_BASE_URL || undefined);
  const embedded = !baseUrlFlag;
  const urlSecrets: string[] = [];
  if (baseUrlFlag !== undefined) {
    let url: URL;
    try {
      url = new URL(baseUrlFlag);
    } catch {
      throw new UsageError(`--base-url must be an absolute http(s) URL such as https://${baseUrlFlag.replace(/^\/+/, '')}, got ${JSON.stringify(redactUserinfo(baseUrlFlag))}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be http or https, got ${url.protocol}`);
    for (const part of [url.username, url.password]) if (part) urlSecrets.push(part, decodeURIComponent(part));
  }
  const variants = (flags.variant as string[] | undefined) ?? [];
  for (const v of variants) if (!variantCatalogue().some((x) => x.name === v)) throw new UsageError(`--variant: unknown benign variant '${v}' (known: ${variantCatalogue().map((x) => x.name).join(', ')})`);
  const faults = [...((flags.fault as string[] | undefined) ?? []), ...variants];
  if (!embedded && faults.length > 0) throw new UsageError('--fault and --variant apply to the embedded reference only; start a faulty target with `dss-conformance serve --fault NAME`');
  const apiKeyFlag = str('api-key') ?? (process.env.DSS_API_KEY || undefined);
  if (!embedded && !apiKeyFlag) throw new UsageError('--api-key (or DSS_API_KEY) is required with --base-url');

  const seed = parseIntFlag('seed', str('seed'), 0, 2 ** 31 - 1) ?? Math.floor(Math.random() * 2 ** 31);
  const numRuns = parseIntFlag('num-runs', str('num-runs'), 1, 10_000) ?? 25;
  const timeoutMs = parseIntFlag('timeout-ms', str('timeout-ms'), 100, 600_000) ?? 10_000;
  const maxRps = parseIntFlag('max-rps', str('max-rps'), 1, 100_000) ?? (embedded ? undefined : 20);
  const maxDurationMs = parseDuration(str('max-duration') ?? (process.env.DSS_MAX_DURATION || undefined)) ?? 30 * 60_000;
  const maxRetryAfterMs = (parseIntFlag('max-retry-after-s', str('max-retry-after-s'), 0, 86_400) ?? 60) * 1000;
  const maxResponseBytes = parseIntFlag('max-response-bytes', str('max-response-bytes'), 1024, 2 ** 31) ?? 8 * 1024 * 1024;
  const apiVersionFlag = str('api-version') ?? (process.env.DSS_API_VERSION || undefined) ?? DEFAULT_API_VERSION;
  if (apiVersionFlag !== 'all' && !(KNOWN_VERSIONS as readonly string[]).includes(apiVersionFlag)) throw new UsageError(`--api-version must be one of ${KNOWN_VERSIONS.join(', ')} or all, got ${JSON.stringify(apiVersionFlag)}`);
  const known = new Set(loadRequirements().map((r) => r.id));
  const only = (str('only') ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const id of only) if (!known.has(id)) throw new UsageError(`--only: unknown requirement ID ${id} (see 'dss-conformance coverage')`);

  const receiverPort = parseIntFlag('receiver-port', str('receiver-port'), 0, 65535) ?? 0;
  const tolerance = parseIntFlag('timestamp-tolerance-s', str('timestamp-tolerance-s'), 1, 86_400) ?? 300;
  const publicUrl = str('receiver-public-url');
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) throw new UsageError(`--receiver-public-url must be an http(s) URL, got ${JSON.stringify(publicUrl)}`);
  const adapterPath = str('adapter') ? await checkAdapterFile(str('adapter')!) : undefined;
  const { profile, secrets, source: profileSource } = chooseProfile(str('profile'), embedded);
  const baselineFile = str('baseline');
  const baseline = baselineFile ? loadBaseline(resolve(baselineFile)) : undefined;

  let reference: { baseUrl: string; apiKey: string; orgKey: string; close(): Promise<void> } | undefined;
  if (embedded) {
    const { startReference } = await import('../reference/index.ts');
    reference = await startReference({ port: 0, ...(apiKeyFlag ? { apiKey: apiKeyFlag } : {}), faults });
  }
  try {
    const baseUrl = reference?.baseUrl ?? baseUrlFlag!;
    const apiKey = reference?.apiKey ?? apiKeyFlag!;
    const orgKey = reference?.orgKey ?? str('org-key') ?? (process.env.DSS_ORG_KEY || undefined);
    const allSecrets = [...secrets, ...urlSecrets];
    const redactor = new Redactor([apiKey, orgKey, ...allSecrets]);
    const settings: RunSettings = {
      baseUrl, apiKey, orgKey, profile, profileSource,
      seed, numRuns, timeoutMs, maxRps, runId: randomBytes(4).toString('hex'), secrets: allSecrets,
      replay: replayLine(flags, { embedded, baseUrl: baseUrlFlag, seed, numRuns, orgKey: orgKey !== undefined && !embedded }),
      embedded, reportsDir, adapterPath, timestampToleranceS: tolerance,
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
      process.stdout.write(consoleSummary(run) + `reports: ${OWNED_REPORTS.filter((f) => f !== 'deliveries.json' || run.deliveries).map((f) => join(reportsDir, f)).join(', ')}\n`);
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
function parseDuration(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d+)(s|m|h)?$/.exec(raw.trim());
  if (!m) throw new UsageError(`--max-duration must be seconds or a number with s, m or h (90s, 30m, 1h), got ${JSON.stringify(raw)}`);
  const ms = Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 's' | 'm' | 'h'];
  if (ms < 1000 || ms > 7 * 24 * 3_600_000) throw new UsageError(`--max-duration must be between 1 s and 7 days, got ${raw}`);
  return ms;
}

function redactUserinfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1[REDACTED]@');
}

/** The command that reruns this run as printed: every flag that shaped it; secrets as variables. */
function replayLine(flags: Flags, o: { embedded: boolean; baseUrl: string | undefined; seed: number; numRuns: number; orgKey: boolean }): string {
  const quote = (v: string) => (/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`);
  const flag = (name: string) => (typeof flags[name] === 'string' ? `--${name} ${quote(flags[name] as string)}` : '');
  return [
    'npx dss-conformance run',
    o.embedded ? '' : `--base-url ${quote(redactUserinfo(o.baseUrl ?? ''))} --api-key "$DSS_API_KEY"`,
    o.orgKey ? '--org-key "$DSS_ORG_KEY"' : '',
    flag('profile'),
    `--seed ${o.seed}`,
    flags['num-runs'] ? `--num-runs ${o.numRuns}` : '',
    ...['api-version', 'timeout-ms', 'max-rps', 'adapter', 'receiver-host', 'receiver-port', 'receiver-public-url', 'timestamp-tolerance-s', 'max-duration', 'max-retry-after-s', 'max-response-bytes', 'baseline'].map(flag),
    ...((flags.fault as string[] | undefined) ?? []).map((f) => `--fault ${quote(f)}`),
    ...((flags.variant as string[] | undefined) ?? []).map((f) => `--variant ${quote(f)}`),
  ].filter(Boolean).join(' ');
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
function ensureWritable(dir: string): void {
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
    throw new UsageError(`--reports ${dir}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
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
