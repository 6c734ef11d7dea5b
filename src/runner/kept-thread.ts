import { isMainThread, parentPort } from 'node:worker_threads';
import type { ModuleRunner } from 'vite/module-runner';
import { init, runBaseTests, setupEnvironment } from 'vitest/worker';
import { resetRunState } from '../run-state.ts';
import { KEPT, type KeptMessage } from './kept-protocol.ts';

// The entry of the worker thread src/runner/kept-pool.ts keeps for many runs: vitest's own thread
// entry (vitest/dist/workers/threads.js) with two changes. Its teardown leaves the message
// listener in place, so the thread serves the `start` of the next run's Vitest instance. And each
// start after the first puts back what a new thread would have: the spec files and the setup file
// are forgotten by the module runner (evaluated again), the kit's own modules (loaded natively,
// cached) put back their run state (src/run-state.ts), and the environment is the new run's.

if (isMainThread || !parentPort) throw new Error('kept-thread.ts runs in a worker thread');
const port = parentPort;

/** The thread's resources and listeners when idle: a run that leaves more makes the pool drop the thread. */
function state(): Map<string, number> {
  const found = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) found.set(`active ${kind}`, (found.get(`active ${kind}`) ?? 0) + 1);
  for (const name of process.eventNames()) found.set(`process listeners '${String(name)}'`, process.listenerCount(name));
  return found;
}

function differences(held: Map<string, number>, now: Map<string, number>): string[] {
  // Listeners are compared once the baseline has them (see below).
  const keys = [...now.keys()].filter((k) => k.startsWith('active ') || held.has(k) || baseline);
  return keys.filter((k) => (now.get(k) ?? 0) > (held.get(k) ?? 0)).map((k) => `${k}: ${held.get(k) ?? 0} before, ${now.get(k) ?? 0} after`);
}

/** Handles closed at a run's end leave the list a few turns of the loop later: waited for, within a bound far past that (as the run server's, test/helpers/run-server.ts), so a busy machine does not make a clean run look leaky. */
async function leftBehind(baseline: Map<string, number>): Promise<string[]> {
  let diff = differences(baseline, state());
  for (let turn = 0; turn < 500 && diff.length > 0; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    diff = differences(baseline, state());
  }
  return diff;
}

/**
 * The first run is held to the thread's resources before it (vitest's own process listeners are
 * set up once per thread, in that run); what it leaves, listeners included, is what every later
 * run is held to.
 */
let before = new Map<string, number>();
let baseline: Map<string, number> | undefined;

function control(message: KeptMessage): void {
  if (message?.[KEPT] === 'env') {
    // A new thread gets a copy of the environment vitest hands it; so does each run here.
    for (const name of Object.keys(process.env)) delete process.env[name];
    for (const [name, value] of Object.entries(message.env)) if (value !== undefined) process.env[name] = value;
  } else if (message?.[KEPT] === 'leaks') {
    void (async () => {
      const leaked = await leftBehind(baseline ?? before);
      baseline ??= state();
      port.postMessage({ [KEPT]: 'leaks', leaked });
    })();
  }
}
port.on('message', control);

type Listener = (...args: unknown[]) => void;
let served: Listener | undefined;
const rpcListeners = new Set<Listener>();
let runner: ModuleRunner | undefined;
let starts = 0;

init({
  post: (response) => port.postMessage(response),
  on: (listener) => {
    // The first listener is vitest's own (init's); later ones are each run's rpc.
    if (served) rpcListeners.add(listener as Listener);
    else served = listener as Listener;
    port.on('message', listener);
  },
  off: (listener) => {
    rpcListeners.delete(listener as Listener);
    port.off('message', listener);
  },
  // The run's rpc goes; vitest's listener and ours stay for the next run.
  teardown: () => {
    for (const listener of rpcListeners) port.off('message', listener);
    rpcListeners.clear();
  },
  runTests: (state, traces) => runBaseTests('run', state, traces),
  collectTests: (state, traces) => runBaseTests('collect', state, traces),
  onModuleRunner: (moduleRunner) => {
    runner = moduleRunner;
  },
  setup: async (context) => {
    if (starts++ > 0) {
      runner?.clearCache();
      await resetRunState();
    }
    const teardown = await setupEnvironment(context);
    return async () => {
      await teardown();
      // The run's connections, database pool and open files close now, as the thread's end closed them.
      await resetRunState();
    };
  },
});
// The thread's port, listened to now, is there from the start.
before = new Map([...state()].filter(([key]) => key.startsWith('active ')));
