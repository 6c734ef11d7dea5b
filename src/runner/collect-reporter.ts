import { basename } from 'node:path';
import type { Reporter, TestModule, TestCase } from 'vitest/node';
import type { TestAnnotation } from 'vitest';
import type { Redactor } from '../report/redact.ts';
import type { CheckResult, DeliveryRecord, Requirement } from '../report/results.ts';
import { classifySkip } from '../report/verdict.ts';
import { NOTE_ANNOTATION, UNJUDGEABLE } from '../suite/check.ts';
import { DELIVERY_ANNOTATION, WAIT_ANNOTATION, WAIT_END_ANNOTATION } from '../suite/progress.ts';

const ID = /^([A-Z]+-\d{3})\b/;

const areaOf = (moduleId: string) => basename(moduleId).replace(/\.spec\.[cm]?[jt]s$/, '');

/**
 * Turns vitest's test results into CheckResults, the one shape every report consumes. Each check
 * is kept as it finishes, so an interrupted run still reports what it judged.
 */
export class CollectReporter implements Reporter {
  readonly checks: CheckResult[] = [];
  readonly errors: string[] = [];
  /** Called with each check as it finishes (the event stream). */
  onCheck: ((check: CheckResult) => void) | undefined;
  /** Called as a selected check starts. */
  onStart: ((title: string) => void) | undefined;
  /** Called when a check says what it waits for (undefined: the wait is over). */
  onWait: ((wait: { what: string; boundMs?: number } | undefined) => void) | undefined;
  /** Called with each delivery as the receiver gets it (the stream's delivery events). */
  onDelivery: ((delivery: DeliveryRecord) => void) | undefined;
  /** Called with each error outside any check, redacted. */
  onError: ((message: string) => void) | undefined;
  /** The version of the current pass (--api-version all): results are titled `… @<version>`. */
  version: string | undefined;
  private readonly requirements: Map<string, Requirement>;
  private readonly redactor: Redactor;
  private readonly selected: RegExp | undefined;
  private readonly seen = new Set<string>();

  /** selected: the --only filter; checks it leaves out are not results at all. */
  constructor(requirements: Requirement[], redactor: Redactor, selected?: RegExp) {
    this.requirements = new Map(requirements.map((r) => [r.id, r]));
    this.redactor = redactor;
    this.selected = selected;
  }

  onTestCaseReady(test: TestCase): void {
    const selected = this.selectedNow ?? this.selected;
    if (selected && !selected.test(test.name)) return;
    this.onStart?.(this.version ? `${test.name} @${this.version}` : test.name);
  }

  onTestCaseAnnotate(_test: TestCase, annotation: TestAnnotation): void {
    if (annotation.type === DELIVERY_ANNOTATION) return this.delivered(annotation.message);
    if (annotation.type === WAIT_END_ANNOTATION) this.onWait?.(undefined);
    if (annotation.type !== WAIT_ANNOTATION) return;
    try {
      const wait = JSON.parse(annotation.message) as { what: string; boundMs?: number };
      this.onWait?.({ what: this.redactor.text(wait.what), ...(wait.boundMs !== undefined ? { boundMs: wait.boundMs } : {}) });
    } catch {
      // Not ours after all: no heartbeat detail.
    }
  }

  /** A delivery record the worker announced as the receiver got it (already redacted there; once more here). */
  private delivered(message: string): void {
    try {
      this.onDelivery?.(this.redactor.value(JSON.parse(message) as DeliveryRecord));
    } catch {
      // Not a record: the pass's delivery log still has it.
    }
  }

  onTestCaseResult(test: TestCase): void {
    this.keep(test);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<{ message?: string; stack?: string }>): void {
    for (const module of modules) {
      for (const error of module.errors()) this.error(`${areaOf(module.moduleId)}: ${error.message}`);
      for (const test of module.children.allTests()) this.keep(test);
    }
    for (const e of unhandled) this.error(e.message ?? String(e));
  }

  private error(message: string): void {
    const redacted = this.redactor.text(message);
    this.errors.push(redacted);
    this.onError?.(redacted);
  }

  /** Which checks this pass runs (a later version pass leaves out the VER checks). */
  set selection(pattern: RegExp | undefined) {
    this.selectedNow = pattern;
  }

  private selectedNow: RegExp | undefined;

  private keep(test: TestCase): void {
    const key = `${this.version ?? ''} ${test.id}`;
    if (this.seen.has(key)) return;
    const selected = this.selectedNow ?? this.selected;
    if (selected && !selected.test(test.name)) return;
    const state = test.result().state;
    if (state === 'pending') return;
    this.seen.add(key);
    const check = this.toCheck(test, areaOf(test.module.moduleId));
    this.checks.push(check);
    this.onCheck?.(check);
  }

  private toCheck(test: TestCase, area: string): CheckResult {
    const result = test.result();
    const id = ID.exec(test.name)?.[1] ?? test.name;
    const requirement = this.requirements.get(id);
    const base = {
      id,
      title: this.version ? `${test.name} @${this.version}` : test.name,
      ...(this.version ? { version: this.version } : {}),
      area,
      level: requirement?.level ?? ('UNKNOWN' as const),
      section: requirement?.section ?? '',
      durationMs: Math.round(test.diagnostic()?.duration ?? 0),
    };
    if (result.state === 'passed') {
      const note = test.annotations().filter((a) => a.type === NOTE_ANNOTATION).map((a) => a.message).join('; ');
      return { ...base, status: 'passed', ...(note ? { note: this.redactor.text(note) } : {}) };
    }
    if (result.state === 'failed') {
      const messages = (result.errors ?? []).map((e) => e.message);
      const unjudgeable = messages.find((m) => m.startsWith(UNJUDGEABLE));
      if (unjudgeable) return { ...base, status: 'error', reason: this.redactor.text(unjudgeable.slice(UNJUDGEABLE.length)) };
      return { ...base, status: 'failed', message: this.redactor.text(messages.join('\n\n')) };
    }
    const reason = this.redactor.text((result.state === 'skipped' ? result.note : undefined) ?? 'skipped');
    return { ...base, status: 'skipped', reason, skipClass: classifySkip(reason) };
  }
}
