import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from './run-cli.ts';

// .ci/tests, the closing line CI reads: the counts of a run that ended, and of one stopped midway
// (CI's time limit), which says that it was interrupted instead of printing nothing or 0 passed.

const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs');
const command = (extra = '') =>
  `"${process.execPath}" "${VITEST}" run --config "${join(ROOT, 'test/fixtures/interrupt/vitest.config.ts')}" --reporter="${join(ROOT, 'test/helpers/tally-reporter.ts')}" ${extra}`;

function ciTests(cmd: string, stopWhen?: (tally: { passed: number }) => boolean): Promise<{ code: number | null; stdout: string }> {
  const tally = join(mkdtempSync(join(tmpdir(), 'dssc-tally-')), 'tally.json');
  const child = spawn('bash', [join(ROOT, '.ci/tests')], { cwd: ROOT, env: { ...process.env, DSSC_TEST_CMD: cmd, DSSC_TALLY_FILE: tally }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  const poll = stopWhen
    ? setInterval(() => {
        try {
          if (existsSync(tally) && stopWhen(JSON.parse(readFileSync(tally, 'utf8')) as { passed: number })) {
            clearInterval(poll);
            child.kill('SIGTERM');
          }
        } catch {
          // written whole and renamed: a read never sees half a file, but it may be between runs
        }
      }, 100)
    : undefined;
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code, stdout });
    });
  });
}

describe('.ci/tests', () => {
  test('a run that ends prints its counts in the closing line', async () => {
    const run = await ciTests(command('-t "ends at once"'));
    expect(run.stdout.trim().split('\n').at(-1)).toBe('tests: 1 passed, 0 failed, 1 skipped');
    expect(run.stdout).not.toMatch(/interrupted/);
    expect(run.code).toBe(0);
  });

  test('a run stopped midway says so, with the counts it has and one failure for the stop', async () => {
    const run = await ciTests(command(), (t) => t.passed >= 1);
    const lines = run.stdout.trim().split('\n');
    expect(lines.at(-2)).toMatch(/^interrupted: the tests were stopped before they ended/);
    expect(lines.at(-1)).toBe('tests: 1 passed, 1 failed, 0 skipped');
    expect(run.code).toBe(130);
  });
});
