import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { PROCESS_LEVEL, SHARED_WORKER_FILES } from '../helpers/shared-worker-files.ts';
import { ROOT } from './run-cli.ts';

// The files that share vitest's workers (vitest.config.ts) stay pure: a server, a process, a
// timer or the environment left by one of them would reach the next file in the same worker.

test('every file that shares a worker uses nothing that could outlive it', () => {
  for (const file of SHARED_WORKER_FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text.match(PROCESS_LEVEL)?.[0], file).toBeUndefined();
  }
});

test('the list names test files that exist, once each', () => {
  expect(new Set(SHARED_WORKER_FILES).size).toBe(SHARED_WORKER_FILES.length);
  for (const file of SHARED_WORKER_FILES) expect(file, file).toMatch(/^test\/.+\.test\.ts$/);
  for (const file of SHARED_WORKER_FILES) expect(() => readFileSync(join(ROOT, file)), file).not.toThrow();
});
