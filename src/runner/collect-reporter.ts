import { basename } from 'node:path';
import type { Reporter, TestModule, TestCase } from 'vitest/node';
import type { Redactor } from '../report/redact.ts';
import type { CheckResult, Requirement } from '../report/results.ts';

const ID = /^([A-Z]+-\d{3})\b/;

/** Turns vitest's test results into CheckResults: the one event shape every report consumes. */
export class CollectReporter implements Reporter {
  readonly checks: CheckResult[] = [];
  readonly errors: string[] = [];
  private readonly requirements: Map<string, Requirement>;
  private readonly redactor: Redactor;

  private readonly selected: RegExp | undefined;

  /** selected: the --only filter; checks it leaves out are not results at all. */
  constructor(requirements: Requirement[], redactor: Redactor, selected?: RegExp) {
    this.requirements = new Map(requirements.map((r) => [r.id, r]));
    this.redactor = redactor;
    this.selected = selected;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<{ message?: string; stack?: string }>): void {
    for (const module of modules) {
      const area = basename(module.moduleId).replace(/\.spec\.[cm]?[jt]s$/, '');
      for (const error of module.errors()) this.errors.push(this.redactor.text(`${area}: ${error.message}`));
      for (const test of module.children.allTests()) {
        if (this.selected && !this.selected.test(test.name)) continue;
        this.checks.push(this.toCheck(test, area));
      }
    }
    for (const e of unhandled) this.errors.push(this.redactor.text(e.message ?? String(e)));
  }

  private toCheck(test: TestCase, area: string): CheckResult {
    const result = test.result();
    const id = ID.exec(test.name)?.[1] ?? test.name;
    const requirement = this.requirements.get(id);
    const base = {
      id,
      title: test.name,
      area,
      level: requirement?.level ?? ('UNKNOWN' as const),
      section: requirement?.section ?? '',
      durationMs: Math.round(test.diagnostic()?.duration ?? 0),
    };
    if (result.state === 'passed') return { ...base, status: 'passed' };
    if (result.state === 'failed') {
      const message = (result.errors ?? []).map((e) => e.message).join('\n\n');
      return { ...base, status: 'failed', message: this.redactor.text(message) };
    }
    const reason = result.state === 'skipped' ? result.note : undefined;
    return { ...base, status: 'skipped', reason: this.redactor.text(reason ?? (result.state === 'pending' ? 'not run' : 'skipped')) };
  }
}
