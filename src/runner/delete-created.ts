import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CREATED_LOG_FILE, readCreated } from '../report/created-log.ts';
import type { EventLog, RunEvent } from '../report/events.ts';
import type { Redactor } from '../report/redact.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { cleanupLines, type DeleteOutcome, type TargetAccess } from './delete-resources.ts';
import type { RunSettings } from './settings.ts';

// At the end of a run, and when it is interrupted: the resources the run created on its target
// (the worker's log of creations, src/suite/creations.ts) are deleted as the profile's cleanup
// section says. What cannot be deleted is said in the stream and on the console, never as a
// check's failure: the conformance verdict is about the target's answers to the spec, not this.

/** How long the deletes at a run's end may take; what is left is said, and cleanup --base-url removes it later. */
export const DELETE_BOUND_MS = 60_000;
/** Interrupted (SIGTERM, ^C, the run's budget): the process waits for these deletes, and a CI job has seconds before its SIGKILL. */
export const INTERRUPTED_DELETE_BOUND_MS = 3_000;

/** What the child (delete-created-child.ts) is given, on its stdin (never argv, which ps shows). */
export interface DeleteJob {
  access: Omit<TargetAccess, 'redactor'>;
  secrets: string[];
  cleanup: RunSettings['profile']['cleanup'];
  resources: ReturnType<typeof readCreated>;
  boundMs: number;
}

function job(settings: RunSettings, boundMs: number): DeleteJob | undefined {
  if (settings.embedded) return undefined;
  const resources = readCreated(settings.reportsDir);
  if (resources.length === 0) return undefined;
  return {
    access: {
      baseUrl: settings.baseUrl, apiKey: settings.apiKey, orgKey: settings.orgKey, basic: settings.profile.auth?.basic,
      version: settings.apiVersion, timeoutMs: Math.min(settings.timeoutMs, boundMs), maxRps: settings.maxRps,
    },
    secrets: [settings.apiKey, ...(settings.orgKey ? [settings.orgKey] : []), ...settings.secrets],
    cleanup: settings.profile.cleanup,
    resources,
    boundMs,
  };
}

function report(settings: RunSettings, log: EventLog, redactor: Redactor, outcome: DeleteOutcome): void {
  const lines = cleanupLines(outcome, 'the run created');
  // The console prints these with the verdict's lines (cleanupNotes), after the last check's.
  log.emit({ type: 'cleanup', deleted: outcome.deleted.length, failures: outcome.failures, kept: outcome.kept, notTried: outcome.notTried, lines });
  rmSync(join(settings.reportsDir, CREATED_LOG_FILE), { force: true });
}

export async function deleteCreated(settings: RunSettings, log: EventLog, redactor: Redactor): Promise<void> {
  const j = job(settings, DELETE_BOUND_MS);
  if (!j) return;
  const { runDeleteJob } = await import('./delete-created-child.ts');
  report(settings, log, redactor, await runDeleteJob(j, redactor));
}

/**
 * The same, in a child process it waits for: a signal's handler must finish synchronously (vitest
 * exits the process right after it). Run after the reports are written, so it says what it did on
 * the console only. A child that cannot finish in time is said as such.
 */
export function deleteCreatedSync(settings: RunSettings, redactor: Redactor, boundMs = INTERRUPTED_DELETE_BOUND_MS): void {
  const j = job(settings, boundMs);
  if (!j) return;
  const script = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './delete-created-child.ts' : './delete-created-child.js', import.meta.url));
  // On stdin: an environment variable is capped at 128 KiB (a run of a few thousand creations
  // failed to spawn, E2BIG), and keeps the key in /proc/<pid>/environ.
  const child = spawnSync(process.execPath, [script], { env: { ...process.env, DSSC_DELETE_JOB: 'stdin' }, input: JSON.stringify(j), encoding: 'utf8', timeout: j.boundMs + 5_000, maxBuffer: 16 * 1024 * 1024 });
  let outcome: DeleteOutcome;
  try {
    outcome = JSON.parse(child.stdout) as DeleteOutcome;
  } catch {
    outcome = { deleted: [], failures: [], kept: {}, notTried: j.resources.length };
  }
  const lines = cleanupLines(outcome, 'the run created').map((line) => `dss-conformance: note: ${line}\n`).join('');
  process.stdout.write(consoleSafe(redactor.text(lines)));
  rmSync(join(settings.reportsDir, CREATED_LOG_FILE), { force: true });
}

/** The console's note lines about the run's deletes, from the stream. */
export function cleanupNotes(events: readonly RunEvent[]): string {
  return events.flatMap((e) => (e.type === 'cleanup' ? e.lines : [])).map((line) => `dss-conformance: note: ${line}\n`).join('');
}
