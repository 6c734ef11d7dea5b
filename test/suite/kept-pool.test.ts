import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { ROOT } from './run-cli.ts';

// The kept worker thread (src/runner/kept-pool.ts) is reused only while runs leave nothing in it:
// test/helpers/kept-pool-probe.ts does four vitest runs in one process, the second leaving a timer.

test('the kept thread serves run after run, each with its own environment, and is ended when a run leaves a timer in it', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'test/helpers/kept-pool-probe.ts')], { cwd: ROOT, timeout: 240_000 });
  const probe = JSON.parse(stdout.trim().split('\n').at(-1)!) as { runs: Array<{ spec: string; passed: boolean }>; threadsStarted: number; dropped: string[][]; seen: string[] };
  expect(probe.runs.every((r) => r.passed), stdout).toBe(true);
  // The first thread served the clean run and the leaky one, and was ended for the timer; the second served both clean runs after.
  expect(probe.dropped).toEqual([[expect.stringMatching(/^active Timeout: 0 before, 1 after$/)]]);
  expect(probe.threadsStarted).toBe(2);
  // Each run's spec saw that run's environment, not the one the thread was started with.
  expect(probe.seen).toEqual(['run-0', 'run-2', 'run-3']);
});
