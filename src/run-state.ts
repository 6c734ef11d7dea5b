// What a module keeps for one run (the suite's fixtures, the client's connections, open log
// files) must not reach the next run in the same process or worker thread. A fresh worker thread
// per run gave that for free; a worker kept for many runs (src/runner/kept-pool.ts, the
// test run server's) does not, so every module that keeps run state registers here how to put it
// back as a fresh load would have it. test/suite/run-state.test.ts holds every module-level variable
// of src/ to this: registered here, or listed there as the same for every run.

type Reset = () => void | Promise<void>;

const resets = new Set<Reset>();

/** Registers how this module's run state returns to what a fresh load of the module has. */
export function perRun(reset: Reset): void {
  resets.add(reset);
}

/** Puts back the run state of every module loaded so far (one not loaded yet has none). */
export async function resetRunState(): Promise<void> {
  for (const reset of resets) await reset();
}
