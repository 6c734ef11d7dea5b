import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';

// The counts of the project's own test run, written after every test (a small file, replaced
// whole): .ci/run prints its closing line from it, also when the run is interrupted before
// vitest's own reports are written. An unhandled error fails the run, so it counts as a failure.

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  /** True once vitest ended the run; false while it is under way (or when it was interrupted). */
  done: boolean;
}

export default class TallyReporter implements Reporter {
  private readonly tally: Tally = { passed: 0, failed: 0, skipped: 0, done: false };
  private readonly file = process.env.DSSC_TALLY_FILE ?? 'reports/selftest-tally.json';

  onInit(): void {
    this.write();
  }

  onTestCaseResult(test: TestCase): void {
    const state = test.result().state;
    if (state === 'passed') this.tally.passed++;
    else if (state === 'failed') this.tally.failed++;
    else this.tally.skipped++;
    this.write();
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    this.tally.failed += unhandled.length;
    this.tally.done = true;
    this.write();
  }

  private write(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.partial`, JSON.stringify(this.tally));
    renameSync(`${this.file}.partial`, this.file);
  }
}
