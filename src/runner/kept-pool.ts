import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PoolOptions, PoolRunnerInitializer, PoolWorker, WorkerRequest } from 'vitest/node';
import { KEPT, type KeptMessage } from './kept-protocol.ts';

// A vitest pool of one worker thread kept from one run to the next in this process (vitest's own
// threads pool ends its thread with its Vitest instance). Starting a thread and loading vitest's
// runtime and the kit into it is most of a small run's CPU; the test run server
// (test/helpers/run-server.ts) does hundreds of runs in one process, and turns this on; so does a
// product run of several version passes (`--api-version all`) for its passes, which are one
// Vitest instance each. A one-pass run starts the thread once anyway and keeps vitest's own pool.
// What a kept thread could carry from one run to the next is put back at each start
// (src/runner/kept-thread.ts); a run that leaves a resource or a listener in it ends the thread.

const ENTRY = fileURLToPath(new URL(`./kept-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

interface Kept {
  thread: Worker;
  execArgv: string;
}

let kept: Kept | undefined;
let enabled = false;
let threadsStarted = 0;
const dropped: string[][] = [];

/** Runs from now on use the kept thread (on) or vitest's threads pool (off, the default). */
export function keepWorkerThread(on: boolean): void {
  enabled = on;
}

/** The pool for runSuite: the kept thread's when turned on. */
export function keptPool(): PoolRunnerInitializer | undefined {
  return enabled ? POOL : undefined;
}

/** How many threads this process started for the pool, and what runs left that ended one: for tests. */
export function keptPoolStats(): { threadsStarted: number; dropped: readonly string[][] } {
  return { threadsStarted, dropped };
}

/** Ends the kept thread (the next run starts one). */
export async function endKeptThread(): Promise<void> {
  const k = kept;
  kept = undefined;
  await k?.thread.terminate();
}

function startThread(options: PoolOptions): Kept {
  // The thread's stdout and stderr go to this process's, as Node pipes them by default (vitest's
  // threads pool pipes them to its logger's streams, which are these). A stream read with
  // `stdout: true` would keep the thread's port active between runs, as if the run had left it.
  const thread = new Worker(ENTRY, { env: options.env, execArgv: options.execArgv });
  threadsStarted += 1;
  const k: Kept = { thread, execArgv: JSON.stringify(options.execArgv) };
  thread.once('exit', () => {
    if (kept === k) kept = undefined;
  });
  return k;
}

/** The answer of the thread to `leaks`, asked once its run's teardown is over. */
function leaksOf(thread: Worker): Promise<string[]> {
  return new Promise((resolve) => {
    const onMessage = (message: KeptMessage) => {
      if (message?.[KEPT] === 'leaks' && 'leaked' in message) done(message.leaked);
    };
    const onExit = () => done(['the thread exited']);
    const done = (leaked: string[]) => {
      thread.off('message', onMessage);
      thread.off('exit', onExit);
      resolve(leaked);
    };
    thread.on('message', onMessage);
    thread.once('exit', onExit);
    thread.postMessage({ [KEPT]: 'leaks' } satisfies KeptMessage);
  });
}

type Listener = (...args: any[]) => void;

class KeptThreadWorker implements PoolWorker {
  readonly name = 'dssc-kept-thread';
  private readonly options: PoolOptions;
  private k: Kept | undefined;
  /** What vitest's runner listens to on the thread: removed at stop, as a thread's end removed them. */
  private readonly listeners: Array<[string, Listener]> = [];
  /** Whether the thread answered vitest's `stop` (its run and teardown over): a forced stop does not ask. */
  private stopped = false;
  private readonly onMessage = (message: { __vitest_worker_response__?: boolean; type?: string }) => {
    if (message?.__vitest_worker_response__ && message.type === 'stopped') this.stopped = true;
  };

  constructor(options: PoolOptions) {
    this.options = options;
  }

  private get thread(): Worker {
    if (!this.k) throw new Error('the kept worker thread is not started');
    return this.k.thread;
  }

  on(event: string, listener: Listener): void {
    this.thread.on(event, listener);
    this.listeners.push([event, listener]);
  }

  off(event: string, listener: Listener): void {
    this.thread.off(event, listener);
    const at = this.listeners.findIndex(([e, l]) => e === event && l === listener);
    if (at >= 0) this.listeners.splice(at, 1);
  }

  send(message: WorkerRequest): void {
    this.thread.postMessage(message);
  }

  deserialize(data: unknown): unknown {
    return data;
  }

  async start(): Promise<void> {
    if (kept && kept.execArgv !== JSON.stringify(this.options.execArgv)) await endKeptThread();
    kept ??= startThread(this.options);
    this.k = kept;
    this.k.thread.ref();
    this.stopped = false;
    this.k.thread.on('message', this.onMessage);
    // Before vitest's `start`: messages arrive in order.
    this.k.thread.postMessage({ [KEPT]: 'env', env: this.options.env } satisfies KeptMessage);
  }

  async stop(): Promise<void> {
    const k = this.k;
    if (!k) return;
    this.k = undefined;
    for (const [event, listener] of this.listeners.splice(0)) k.thread.off(event, listener);
    k.thread.off('message', this.onMessage);
    // A thread stopped without its teardown (vitest's forced stop, at a cancel) may still be running tests.
    const leaked = kept !== k ? [] : this.stopped ? await leaksOf(k.thread) : ['the run was stopped before its teardown'];
    if (leaked.length > 0) {
      dropped.push(leaked);
      if (kept === k) kept = undefined;
      await k.thread.terminate();
      return;
    }
    // Idle between runs: the thread does not keep the process alive.
    k.thread.unref();
  }
}

const POOL: PoolRunnerInitializer = {
  name: 'dssc-kept-thread',
  createPoolWorker: (options) => new KeptThreadWorker(options),
};
