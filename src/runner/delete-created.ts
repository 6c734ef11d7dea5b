import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CREATED_LOG_FILE, readCreated } from '../report/created-log.ts';
import type { EventLog } from '../report/events.ts';
import type { Redactor } from '../report/redact.ts';
import { consoleSafe } from '../report/safe-text.ts';
import { cleanupClient, cleanupLines, deleteResources } from './delete-resources.ts';
import type { RunSettings } from './settings.ts';

// At the end of a run, and when it is interrupted: the resources the run created on its target
// (the worker's log of creations, src/suite/creations.ts) are deleted as the profile's cleanup
// section says. What cannot be deleted is said in the stream and on the console, never as a
// check's failure: the conformance verdict is about the target's answers to the spec, not this.

/** How long the deletes at a run's end may take; what is left is said, and cleanup --base-url removes it later. */
export const DELETE_BOUND_MS = 60_000;
/** Interrupted (SIGTERM, ^C, the run's budget): the reports wait for these deletes, so they are kept short. */
export const INTERRUPTED_DELETE_BOUND_MS = 5_000;

export async function deleteCreated(settings: RunSettings, log: EventLog, redactor: Redactor, boundMs = DELETE_BOUND_MS): Promise<void> {
  if (settings.embedded) return;
  const created = readCreated(settings.reportsDir);
  if (created.length === 0) return;
  const client = cleanupClient({
    baseUrl: settings.baseUrl, apiKey: settings.apiKey, orgKey: settings.orgKey, basic: settings.profile.auth?.basic,
    version: settings.apiVersion, timeoutMs: Math.min(settings.timeoutMs, boundMs), maxRps: settings.maxRps, redactor,
  });
  const outcome = await deleteResources(client, settings.profile.cleanup, created, redactor, boundMs);
  const lines = cleanupLines(outcome, 'the run created');
  for (const line of lines) process.stdout.write(consoleSafe(redactor.text(`dss-conformance: note: ${line}`)) + '\n');
  log.emit({ type: 'cleanup', deleted: outcome.deleted.length, failures: outcome.failures, kept: outcome.kept, notTried: outcome.notTried, lines });
  rmSync(join(settings.reportsDir, CREATED_LOG_FILE), { force: true });
}
