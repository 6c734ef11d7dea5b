import { enableCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tolerateClosedOutput } from '../../src/cli-output.ts';
import { differences, snapshot } from './process-state.ts';

// A child process that runs many command lines one after another, each as src/cli.ts would run it
// in a process of its own (test/suite/run-server-pool.ts hands them out). Loading the kit's modules
// is most of a small run's CPU; here it is paid once per child instead of once per run, which is
// what makes the fault and benign matrices affordable. A run must leave nothing behind that the
// next one could see: what it could leave (process listeners, handles, the environment, the
// client's per-target state) is reset or compared after each run, and a child that finds a
// difference answers that run and exits, so the next run gets a fresh process. The suite's own
// state (src/suite/context.ts and the fixtures) lives in vitest's worker thread, kept for all the
// child's runs (src/runner/kept-pool.ts): each run's start puts it back (src/run-state.ts), and a
// run that leaves a resource in the thread ends it, so the next run gets a new thread. What the
// main thread's modules keep between runs is compiled validators of fixed schemas and the
// package's version, the same for every run.

process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'dss-conformance-compile-cache');
enableCompileCache(process.env.NODE_COMPILE_CACHE);
tolerateClosedOutput();

const { cli } = await import('../../src/cli-main.ts');
// The run command and the client, loaded now: the state they keep is part of the baseline below.
await import('../../src/runner/run-command.ts');
const { closeSharedAgent, resetClientState } = await import('../../src/client/http-client.ts');
// One vitest worker thread for all the child's runs (src/runner/kept-pool.ts): a new thread per
// run was most of a small run's CPU (~0.45 s of ~0.6 s, measured).
const { keepWorkerThread, keptPoolStats } = await import('../../src/runner/kept-pool.ts');
// DSSC_KEPT_THREAD=0: a new thread per run, as the CLI does (to compare the two).
keepWorkerThread(process.env.DSSC_KEPT_THREAD !== '0');

export interface RunRequest {
  id: number;
  args: string[];
  env: Record<string, string>;
}

export interface RunReply {
  id: number;
  code: number;
  stdout: string;
  stderr: string;
  /** What the run left behind that the next could see; the child exits after this reply. */
  leaked?: string[];
  /** The child's kept worker thread so far: threads started, and what runs left that ended one. */
  threads: { started: number; dropped: readonly string[][] };
}

type Write = NodeJS.WriteStream['write'];

/** Everything written to stdout or stderr, the worker thread's piped output included, goes to sink. */
function capture(stream: NodeJS.WriteStream, sink: (text: string) => void): () => void {
  const own = Object.prototype.hasOwnProperty.call(stream, 'write') ? stream.write : undefined;
  stream.write = ((chunk: string | Uint8Array, encodingOrDone?: unknown, done?: unknown) => {
    sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    const callback = typeof encodingOrDone === 'function' ? encodingOrDone : done;
    if (typeof callback === 'function') process.nextTick(callback as () => void);
    return true;
  }) as Write;
  return () => {
    if (own) stream.write = own;
    else delete (stream as { write?: Write }).write;
  };
}

/** Puts the environment back as it was at the child's start (a run's env is set per request). */
function restoreEnv(saved: NodeJS.ProcessEnv): void {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
}

/**
 * Handles closed at the run's end leave the list a few turns of the loop later: waited for (the
 * bound is far past that, so a busy machine does not make a clean run look leaky).
 */
async function settled(baseline: Map<string, string>): Promise<string[]> {
  let diff = differences(baseline, snapshot());
  for (let turn = 0; turn < 500 && diff.length > 0; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    diff = differences(baseline, snapshot());
  }
  return diff;
}

const savedEnv = { ...process.env };
let baseline = new Map<string, string>();

/**
 * A kept worker thread's stdout and stderr are piped into this process's (src/runner/kept-pool.ts):
 * the pipe's listeners on them (one each of what Readable.pipe adds) are the thread's, there as
 * long as it is. The run that started the thread brings them into the baseline.
 */
function withThreadPipes(before: Map<string, string>): Map<string, string> {
  const after = new Map(before);
  for (const stream of ['stdout', 'stderr']) {
    for (const event of ['error', 'unpipe', 'close', 'finish']) {
      const key = `${stream} listeners '${event}'`;
      after.set(key, String(Number(before.get(key) ?? 0) + 1));
    }
  }
  return after;
}

async function serve(request: RunRequest): Promise<RunReply> {
  const threadsBefore = keptPoolStats().threadsStarted;
  Object.assign(process.env, request.env);
  let stdout = '';
  let stderr = '';
  const releaseOut = capture(process.stdout, (t) => (stdout += t));
  const releaseErr = capture(process.stderr, (t) => (stderr += t));
  let code: number;
  try {
    code = await cli(request.args);
  } finally {
    releaseOut();
    releaseErr();
    restoreEnv(savedEnv);
  }
  // What the process learnt about a target (give-ups, the rate window) and its keep-alive
  // connections belong to one run; a later run's embedded reference may get the same port.
  resetClientState();
  await closeSharedAgent();
  process.exitCode = undefined;
  if (keptPoolStats().threadsStarted !== threadsBefore) baseline = withThreadPipes(baseline);
  const leaked = await settled(baseline);
  const { threadsStarted, dropped } = keptPoolStats();
  return { id: request.id, code, stdout, stderr, ...(leaked.length > 0 ? { leaked } : {}), threads: { started: threadsStarted, dropped } };
}

// One run at a time: the parent sends the next request only after the reply.
process.on('message', (request: RunRequest) => {
  void serve(request).then((reply) => {
    process.send!(reply, () => {
      if (reply.leaked) process.exit(0);
    });
  });
});
// The parent gone (its test file ended, or it was killed): nothing more will come.
process.on('disconnect', () => process.exit(0));
baseline = snapshot();
