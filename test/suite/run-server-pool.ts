import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { RunReply, RunRequest } from '../helpers/run-server.ts';
import { type CliRun, ROOT, runReports, withReports, withoutTargetEnv } from './run-cli.ts';
import { useSharedSourceDb } from '../helpers/shared-source-db.ts';

// The matrices read only a run's verdict (exit code, results.json, its output): they hand their
// runs to a few long-lived children (test/helpers/run-server.ts), which load the kit once instead
// of once per run. What a user sees of a process (signals, a closed stdout, the exit itself) is
// tested with runCli, a process per run.

interface Server {
  child: ChildProcess;
  /** The run it is doing, answered when its reply (or its end) comes. */
  pending?: { id: number; done: (reply: RunReply | Error) => void };
  stderr: string;
  gone: boolean;
  runs: number;
  threads: RunReply['threads'];
}

/**
 * A child's memory levels off after a dozen runs (~0.42 GB, measured), a bound whatever a run
 * keeps; a new child costs one more load of the kit (~1.5 s of CPU).
 */
const RUNS_PER_CHILD = 25;

export interface RunServerPool {
  run(args: string[], env?: NodeJS.ProcessEnv, timeoutMs?: number): Promise<CliRun>;
  /** How many runs went to a child that had already run one: the saving the pool is for. */
  readonly reused: number;
  /** What runs left behind, each time a child was retired for it. */
  readonly leaks: string[][];
  /** The children's kept worker threads (src/runner/kept-pool.ts): how many started, and what runs left that ended one. */
  readonly threads: { started: number; dropped: string[][] };
  close(): Promise<void>;
}

export interface RunServerOptions {
  /**
   * Runs get the shared source database (test/helpers/shared-source-db.ts) unless their env or
   * command line names one: for files whose runs judge nothing of the default database path (a
   * database per run) and print no line that names DSS_SOURCE_DB when it is set (a replay line).
   */
  sharedSourceDb?: boolean;
}

/** A pool of at most `size` children (vitest.config.ts's maxConcurrency), stopped when the calling file ends. */
export function useRunServers(size = 3, options: RunServerOptions = {}): RunServerPool {
  const pool = createRunServerPool(size, options.sharedSourceDb ? useSharedSourceDb()() : {});
  afterAll(() => pool.close());
  return pool;
}

export function createRunServerPool(size: number, defaultEnv: Record<string, string> = {}): RunServerPool {
  const idle: Server[] = [];
  const all = new Set<Server>();
  /** Every child, retired ones too: for the thread counts. */
  const everStarted: Server[] = [];
  const waiting: Array<(s: Server) => void> = [];
  let nextId = 0;
  let reused = 0;
  const leaks: string[][] = [];

  function start(): Server {
    const child = fork(join(ROOT, 'test/helpers/run-server.ts'), [], {
      cwd: ROOT,
      env: withoutTargetEnv(process.env),
      // Node as runCli starts it: none of the test worker's own flags.
      execArgv: [],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const server: Server = { child, stderr: '', gone: false, runs: 0, threads: { started: 0, dropped: [] } };
    // Output outside any run (a crash's stack): kept for the error of the run it ended.
    child.stdout!.on('data', (c: Buffer) => (server.stderr += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (server.stderr += c.toString()));
    child.on('message', (reply: RunReply) => {
      const pending = server.pending;
      if (pending && reply.id === pending.id) {
        server.pending = undefined;
        pending.done(reply);
      }
    });
    child.on('exit', (code, signal) => {
      retire(server);
      const at = idle.indexOf(server);
      if (at >= 0) idle.splice(at, 1);
      const pending = server.pending;
      server.pending = undefined;
      pending?.done(new Error(`the run server exited (${signal ?? code}) during a run:\n${server.stderr.slice(-3000)}`));
    });
    all.add(server);
    everStarted.push(server);
    return server;
  }

  async function acquire(): Promise<Server> {
    const free = idle.pop();
    if (free) return free;
    if (all.size < size) return start();
    return new Promise((resolve) => waiting.push(resolve));
  }

  function release(server: Server): void {
    // A retired child is replaced for whoever waits.
    const next = waiting.shift();
    if (next) next(server.gone ? start() : server);
    else if (!server.gone) idle.push(server);
  }

  async function run(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 480_000): Promise<CliRun> {
    const { argv, reports } = withReports(args);
    const server = await acquire();
    if (server.runs > 0) reused += 1;
    const given = args.some((a) => a === '--source-db' || a.startsWith('--source-db=')) ? {} : defaultEnv;
    const request: RunRequest = { id: nextId++, args: argv, env: Object.fromEntries(Object.entries({ ...given, ...env }).filter((e): e is [string, string] => e[1] !== undefined)) };
    // Never rejects: a child that dies or cannot be sent to answers with an Error.
    const reply = await new Promise<RunReply | Error>((resolve) => {
      const timer = setTimeout(() => server.child.kill('SIGKILL'), timeoutMs);
      server.pending = { id: request.id, done: (r) => (clearTimeout(timer), resolve(r)) };
      server.child.send(request, (error) => {
        if (error) server.pending?.done(error);
      });
    });
    if (!(reply instanceof Error)) server.threads = reply.threads;
    // A child that left state behind exits after its reply: it takes no other run.
    if (!(reply instanceof Error) && reply.leaked) {
      leaks.push(reply.leaked);
      retire(server);
    } else if (++server.runs >= RUNS_PER_CHILD && !server.gone) {
      retire(server);
      server.child.disconnect();
    }
    release(server);
    if (reply instanceof Error) throw reply;
    return { code: reply.code, stdout: reply.stdout, stderr: reply.stderr, ...runReports(reports) };
  }

  function retire(server: Server): void {
    server.gone = true;
    all.delete(server);
  }

  async function close(): Promise<void> {
    const children = [...all].map((s) => s.child);
    await Promise.all(children.map((c) => new Promise<void>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.disconnect();
    })));
  }

  return {
    run,
    get reused() {
      return reused;
    },
    get leaks() {
      return leaks;
    },
    get threads() {
      const servers = [...everStarted];
      return { started: servers.reduce((n, s) => n + s.threads.started, 0), dropped: servers.flatMap((s) => s.threads.dropped) };
    },
    close,
  };
}
