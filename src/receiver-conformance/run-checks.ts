import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../paths.ts';
import type { Redactor } from '../report/redact.ts';
import type { CheckResult, Requirement } from '../report/results.ts';
import { classifySkip } from '../report/verdict.ts';
import { contextFor, type RunState } from './context.ts';
import { NoAnswer } from './http.ts';
import { registeredChecks, Skip, Unjudgeable } from './registry.ts';

// The receiver runner: the checks of specs/receivers.spec.ts, one after another in file order,
// each turned into the CheckResult every report is made from. Not vitest: a receiver run is a
// few hundred requests and no fixtures, and the kit's own tests run it in process, many times.

/** specs/receivers.spec.ts in a checkout, its compiled form in the published package. */
export async function loadReceiverChecks(): Promise<ReturnType<typeof registeredChecks>> {
  const source = join(packageRoot, 'specs', 'receivers.spec.ts');
  await import(pathToFileURL(existsSync(source) ? source : join(packageRoot, 'dist', 'specs', 'receivers.spec.js')).href);
  return registeredChecks();
}

export interface RunChecksOptions {
  state: RunState;
  requirements: Requirement[];
  /** The IDs to run (all when undefined). */
  selected?: readonly string[] | undefined;
  strict: boolean;
  redactor: Redactor;
  onStart?: (title: string) => void;
  onCheck?: (check: CheckResult) => void;
  /** Set (to the reason) to stop before the next check: a signal, the time budget. */
  stopped?: () => string | undefined;
}

/** The error behind fast-check's report of a failed property, or the error itself. */
function rootOf(error: unknown): unknown {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof Skip || e instanceof NoAnswer || e instanceof Unjudgeable) return e;
  }
  return error;
}

export async function runReceiverChecks(o: RunChecksOptions): Promise<CheckResult[]> {
  const byId = new Map(o.requirements.map((r) => [r.id, r]));
  const results: CheckResult[] = [];
  for (const c of await loadReceiverChecks()) {
    if (o.selected && !o.selected.includes(c.id)) continue;
    if (o.stopped?.()) break;
    const requirement = byId.get(c.id);
    o.onStart?.(c.title);
    const notes: string[] = [];
    const started = performance.now();
    const base = { id: c.id, title: c.title, area: 'receivers', level: requirement?.level ?? ('UNKNOWN' as const), section: requirement?.section ?? '' };
    let result: CheckResult;
    try {
      await c.body(contextFor(o.state, c.id, notes));
      result = { ...base, status: 'passed', durationMs: 0, ...(notes.length ? { note: o.redactor.text(notes.join('; ')) } : {}) };
    } catch (thrown) {
      const error = rootOf(thrown);
      const text = o.redactor.text(error instanceof Error ? error.message : String(error));
      if (error instanceof Skip) result = { ...base, status: 'skipped', reason: text, skipClass: classifySkip(text), durationMs: 0 };
      else if (error instanceof NoAnswer || error instanceof Unjudgeable) result = { ...base, status: 'error', reason: text.split('\n')[0] ?? 'no answer', durationMs: 0 };
      else result = { ...base, status: 'failed', message: text, durationMs: 0, ...(requirement?.level === 'SHOULD' && !o.strict ? { warning: true } : {}) };
    }
    result.durationMs = Math.round(performance.now() - started);
    results.push(result);
    o.onCheck?.(result);
  }
  return results;
}
