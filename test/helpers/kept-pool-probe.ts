import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVitest } from 'vitest/node';
import { keepWorkerThread, keptPool, keptPoolStats } from '../../src/runner/kept-pool.ts';

// Vitest runs one after another in this process through the kept worker thread
// (src/runner/kept-pool.ts), as the run server does them: a clean spec, one that leaves a timer
// in the thread, then clean ones again. Prints what each run saw and the pool's counts as JSON
// (test/suite/kept-pool.test.ts reads it). A process of its own: vitest inside a vitest worker
// would share that worker's globals.

const root = mkdtempSync(join(tmpdir(), 'dssc-kept-probe-'));
const seen = join(root, 'seen.txt');
// The thread's environment is each run's own: the spec writes down what it finds.
writeFileSync(join(root, 'clean.spec.js'), `import { appendFileSync } from 'node:fs';\ntest('clean', () => { appendFileSync(${JSON.stringify(seen)}, String(process.env.DSSC_PROBE) + '\\n'); });\n`);
writeFileSync(join(root, 'leaky.spec.js'), `test('leaves a timer', () => { setInterval(() => {}, 1e6); });\n`);
writeFileSync(seen, '');

keepWorkerThread(true);
const runs: Array<{ spec: string; passed: boolean }> = [];
for (const [i, spec] of ['clean', 'leaky', 'clean', 'clean'].entries()) {
  process.env.DSSC_PROBE = `run-${i}`;
  const vitest = await startVitest(
    'test',
    [],
    { root, config: false, watch: false, include: [`${spec}.spec.js`], globals: true, pool: keptPool()!, isolate: false, maxWorkers: 1, fileParallelism: false, reporters: [] },
    { logLevel: 'silent', cacheDir: join(root, '.vite') },
  );
  runs.push({ spec, passed: vitest.state.getFiles().every((f) => f.result?.state === 'pass') });
  await vitest.close();
}
const { threadsStarted, dropped } = keptPoolStats();
console.log(JSON.stringify({ runs, threadsStarted, dropped, seen: readFileSync(seen, 'utf8').trim().split('\n') }));
rmSync(root, { recursive: true, force: true });
process.exit(0);
