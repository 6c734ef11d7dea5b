import { createServer } from 'node:net';
import { expect, test } from 'vitest';
import { differences, snapshot } from '../helpers/process-state.ts';

// The run servers' leak detector (test/helpers/run-server.ts): each kind of state a run could
// leave behind is seen, and nothing is seen once it is gone.

// vitest's own timers (a test's timeout, its RPC) come and go while the test runs: not the test's.
const own = (lines: string[]) => lines.filter((line) => !line.startsWith('active Timeout'));

test('a listener, a replaced write, a handle and an exit code left behind are each seen; none once removed', async () => {
  const before = snapshot();
  const onSignal = () => undefined;
  process.on('SIGTERM', onSignal);
  expect(own(differences(before, snapshot()))).toEqual([expect.stringMatching(/^process listeners 'SIGTERM'/)]);
  process.off('SIGTERM', onSignal);

  const write = process.stderr.write;
  process.stderr.write = ((..._args: unknown[]) => true) as typeof write;
  expect(own(differences(before, snapshot()))).toEqual(['stderr.write: own before, replaced after']);
  delete (process.stderr as { write?: unknown }).write;
  if (process.stderr.write !== write) process.stderr.write = write;

  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  expect(own(differences(before, snapshot())).join('\n')).toMatch(/^active TCPServerWrap/m);
  await new Promise((resolve) => server.close(resolve));
  // A closed handle leaves the list at a later turn of the loop (the run server waits the same way).
  for (let turn = 0; turn < 500 && own(differences(before, snapshot())).length > 0; turn++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(own(differences(before, snapshot()))).toEqual([]);

  const exitCode = process.exitCode;
  process.exitCode = 3;
  expect(own(differences(before, snapshot()))).toEqual([`exitCode: ${exitCode} before, 3 after`]);
  process.exitCode = exitCode;

  expect(own(differences(before, snapshot()))).toEqual([]);
});
