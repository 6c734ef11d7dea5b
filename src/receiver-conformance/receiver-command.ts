import { catalogueDigest } from '../report/certificate.ts';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pc from 'picocolors';
import { RateLimiter } from '../client/rate-limiter.ts';
import { EXIT, parseIntFlag, UnreachableError, UsageError } from '../cli-errors.ts';
import { parseFlags } from '../cli-flags.ts';
import { colourEnabled, consoleSummary, heartbeatLine, LiveConsole, plain, type Colors } from '../report/console.ts';
import { Heartbeat, heartbeatInterval } from '../runner/heartbeat.ts';
import { resolveSettings, type Flags } from '../runner/config-resolve.ts';
import { ensureWritable } from '../runner/reports-dir.ts';
import { EventLog } from '../report/events.ts';
import { foldEvents } from '../report/from-events.ts';
import { Redactor } from '../report/redact.ts';
import { loadRequirements } from '../report/results.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { parseDuration } from '../runner/duration.ts';
import { kitVersion } from '../runner/run-events.ts';
import { selectRequirements } from '../runner/selection.ts';
import { ciOutputs, OWNED_REPORTS, writeReports } from '../runner/write-reports.ts';
import { createSender } from './http.ts';
import { preflight } from './preflight.ts';
import { resolveReceiverSettings, RECEIVER_FLAGS, RECEIVER_SETTINGS, SECRET_VARIABLE, type ReceiverSettings } from './receiver-settings.ts';
import { startReferenceIfNeeded } from './reference.ts';
import { runReceiverChecks } from './run-checks.ts';

const HELP = `usage: dss-conformance receiver [--url URL --secret S] [flags]

Judges a webhook receiver: sends it sync.records deliveries of the spec's shape, and departures
from it, and checks its answers against the RCV requirements (dss-conformance coverage lists them).
Without --url it starts the kit's reference receiver on a loopback port, with a random secret.

  --url URL                 the receiver under test (http:// or https://)
  --secret S                its bearer secret (or DSSC_RECEIVER_SECRET, or the profile's {"$env": NAME});
                            never printed: the replay line says --secret "$DSSC_RECEIVER_SECRET"
  --inspect-url URL         the receiver harness's list of processed hashes (GET answers
                            {"processed": ["<hash>", ...]}); without it RCV-007 and RCV-009 are
                            skipped as not observable. The secret is never sent there
  --profile FILE            a JSON receiver profile: url, secret ({"$env": NAME}), inspectUrl,
                            maxAgeSeconds, responseTimeoutMs (flags win)
  --max-age-seconds N       the age past which a delivery should be refused (default 300)
  --response-timeout-ms N   the bound on every answer (default 10000; answers are waited for 3x)
  --strict                  SHOULD requirements count as MUST: their failures fail the run
  --seed N                  seed of all generated data (default random, printed)
  --num-runs N              fast-check runs per property (default 25)
  --only SEL,...            only these requirements: IDs (RCV-002), globs (RCV-00?), levels (MUST, SHOULD)
  --exclude SEL,...         leave these out (same forms)
  --reports DIR             where results.ndjson, results.json, junit.xml, report.html, summary.md go (default reports/)
  --max-rps N               request rate bound (default 20 against --url, none for the reference receiver)
  --max-duration D          time budget of the run: 1800, 90s, 30m, 1h (default 30m)
  --allow-incomplete        exit 0 instead of 4 for an INCOMPLETE verdict
  --baseline FILE           known failures (fixtures/baseline.schema.json): listed failures are
                            expected-fail; a listed check that passes, or an expired entry, fails the run
  --config FILE             JSON file of these settings keyed by flag name; secrets as {"$env": NAME};
                            relative paths in it are relative to its folder
  --fault NAME              reference receiver only: one rule broken
  --variant NAME            reference receiver only: a conforming-but-unusual variant
  -h, --help                this text

settings: each flag is also a variable DSS_RECEIVER_ and its name in upper snake case
(DSS_RECEIVER_URL, DSS_RECEIVER_NUM_RUNS; the secret's is DSSC_RECEIVER_SECRET) and a key of the
--config file (or DSS_RECEIVER_CONFIG); a flag wins over its variable, the variable over the file.
levels: a MUST failure fails the run; a SHOULD failure is a warning (exit 0) unless --strict, and a
SHOULD requirement that could not be judged (no inspection endpoint) leaves the run CONFORMANT
unless --strict, where it makes it INCOMPLETE.
exit codes: 0 CONFORMANT; 1 NOT CONFORMANT; 2 usage or profile error; 3 the receiver is unreachable,
does not answer HTTP, or gave no answer within 3x the response bound; 4 INCOMPLETE (0 with
--allow-incomplete); 70 internal error.`;

const RECEIVER_REPORTS = OWNED_REPORTS.filter((f) => f !== 'requests.json' && f !== 'deliveries.json');

export async function receiverCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags('receiver', argv, RECEIVER_FLAGS, { numeric: (f) => (['seed', 'num-runs', 'max-rps', 'max-age-seconds', 'response-timeout-ms'].includes(f) ? 'must be a number of at least 0' : undefined) });
  if (values.help) {
    process.stdout.write(HELP + '\n');
    return EXIT.ok;
  }
  // Known before the flags are checked: a line about a bad flag may quote the secret.
  const redactor = new Redactor([values.secret, process.env[SECRET_VARIABLE]]);
  try {
    // Flags, then DSS_RECEIVER_* variables, then the --config file, as run reads its own.
    const resolved = resolveSettings(RECEIVER_SETTINGS, values as Flags);
    redactor.add(resolved.values.secret as string | undefined);
    const settings = resolveReceiverSettings(resolved.values, process.env, resolved.sources);
    for (const secret of [settings.target?.secret, settings.secret, ...settings.urlSecrets]) redactor.add(secret);
    const reportsDir = resolve(settings.reports);
    ensureWritable(reportsDir, resolved.sources.reports?.label ?? '--reports');
    for (const file of RECEIVER_REPORTS) rmSync(join(reportsDir, file), { force: true });
    return await judge(settings, reportsDir, redactor);
  } catch (error) {
    // Any line that leaves, a receiver's words in it included, goes out redacted.
    if (error instanceof Error) error.message = redactor.text(error.message);
    throw error;
  }
}

async function judge(s: ReceiverSettings, reportsDir: string, redactor: Redactor): Promise<number> {
  const requirements = loadRequirements('receivers');
  const selected = selectRequirements(requirements, s.only, s.exclude);
  const reference = await startReferenceIfNeeded(s);
  if (reference) redactor.add(reference.target.secret);
  const target = reference?.target ?? s.target!;
  const startedAt = Date.now();
  const deadline = startedAt + s.maxDurationMs;
  const maxRps = s.maxRps ?? (reference ? undefined : 20);
  RateLimiter.resetShared();
  const sender = createSender(maxRps ? new RateLimiter(maxRps) : undefined);
  const log = new EventLog(join(reportsDir, 'results.ndjson'), redactor);
  const colors: Colors = colourEnabled() ? pc.createColors(true) : plain;
  // The live lines apply the baseline as the fold will (a listed failure is expected-fail).
  const live = new LiveConsole(s.baseline, colors);
  log.on((e) => {
    if (e.type === 'check-result') process.stdout.write(live.line(e.check));
    else if (e.type === 'heartbeat') process.stdout.write(heartbeatLine(e.waitingFor, e.elapsedMs, e.boundMs, colors));
  });
  // A slow receiver can keep a check waiting: past the interval, the console says what for.
  const heartbeat = new Heartbeat(heartbeatInterval(), (b) => log.emit({ type: 'heartbeat', ...b }));
  try {
    const shownTarget = reference ? `the reference receiver at ${target.url}${reference.label}` : target.url;
    log.emit({
      type: 'run-start', tool: 'dss-conformance', kitVersion: kitVersion(), node: process.versions.node,
      target: shownTarget, embedded: reference !== undefined, faults: s.faults, profile: s.profileLabel,
      capabilities: { name: 'receiver', kinds: {}, unsupported: {}, receiver: { inspectUrl: target.inspectUrl !== undefined, maxAgeSeconds: target.maxAgeSeconds, responseTimeoutMs: target.responseTimeoutMs, strict: s.strict } },
      seed: s.seed, runId: s.runId, replay: s.replay.check, apiVersions: [],
      ...(selected ? { selected } : {}), ...(s.baseline ? { baseline: s.baseline } : {}), settings: s.publicSettings, half: 'receivers', strict: s.strict, catalogue: catalogueDigest(),
    });
    process.stdout.write(consoleSafe(redactor.text(`dss-conformance: receiver ${shownTarget}, seed ${s.seed}, run id ${s.runId}${target.inspectUrl ? '' : '; no inspection endpoint: RCV-007 and RCV-009 are not observable'}`)) + '\n');
    await preflight(sender, target);
    let stop: string | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      stop = `interrupted by ${signal}`;
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    heartbeat.start();
    try {
      await runReceiverChecks({
        state: { target, sender, runId: s.runId, seed: s.seed, numRuns: s.numRuns, deadline, exchanges: [], counter: 0, timeoutsInRow: 0, onWait: (w) => heartbeat.waiting(w) },
        requirements, selected, strict: s.strict, redactor,
        onStart: (title) => {
          heartbeat.started(title);
          log.emit({ type: 'check-start', title });
        },
        onCheck: (check) => {
          heartbeat.reported();
          log.emit({ type: 'check-result', check });
        },
        stopped: () => stop ?? (Date.now() > deadline ? `the --max-duration budget of ${Math.round(s.maxDurationMs / 1000)} s ran out` : undefined),
      });
      if (!stop && Date.now() > deadline) stop = `the --max-duration budget of ${Math.round(s.maxDurationMs / 1000)} s ran out`;
    } finally {
      heartbeat.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    return finish(log, reportsDir, redactor, live, s, startedAt, stop);
  } catch (error) {
    if (error instanceof UsageError || error instanceof UnreachableError) {
      // Exit 2 or 3 after the flags were read: the reports say why, not none (or an old green one).
      if (!log.ended) log.emit({ type: 'run-end', durationMs: Date.now() - startedAt, aborted: { exitCode: error.exitCode, message: redactor.text(error.message) } });
      try {
        writeReports(reportsDir, log.events, redactor);
      } catch {
        // The one-line error matters more than a report that cannot be written.
      }
    }
    throw error;
  } finally {
    await sender.close();
    await reference?.close();
  }
}

function finish(log: EventLog, dir: string, redactor: Redactor, live: LiveConsole, s: ReceiverSettings, startedAt: number, interrupted: string | undefined): number {
  const colors = live.colors;
  const { verdict } = foldEvents(log.events, loadRequirements('receivers')).run;
  log.emit({ type: 'run-end', durationMs: Date.now() - startedAt, ...(interrupted ? { interrupted } : {}), verdict });
  const folded = writeReports(dir, log.events, redactor);
  const annotations = ciOutputs(folded, redactor);
  const written = RECEIVER_REPORTS.map((f) => join(dir, f));
  process.stdout.write(live.end(folded.run.checks) + annotations + consoleSafe(redactor.text(`reports: ${written.join(', ')}\nrerun: ${s.replay.run}`)) + '\n' + consoleSummary(folded.run, colors));
  const v = folded.run.verdict?.verdict;
  const code = v === 'CONFORMANT' ? EXIT.ok : v === 'INCOMPLETE' ? EXIT.incomplete : EXIT.checkFailed;
  return code === EXIT.incomplete && s.allowIncomplete ? EXIT.ok : code;
}
