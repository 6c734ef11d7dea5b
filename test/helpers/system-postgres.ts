import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

// A real PostgreSQL for the tests, from the distribution's packages (/usr/lib/postgresql/*/bin):
// a fresh cluster in a temp dir on a free loopback port with password auth, run as the `postgres`
// user when we are root (postgres refuses to run as root), removed by stop().

export interface SystemPostgres {
  url: string;
  /** The superuser's URL (for what a test sets up around the kit: event triggers, ...). */
  adminUrl: string;
  stop(): Promise<void>;
}

/** The newest installed server's bin dir, or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** Why the system-Postgres tests cannot run here, or undefined when they can. */
export function postgresMissing(): string | undefined {
  if (!postgresBin()) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)';
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no postgres user to run the server as';
  return undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startSystemPostgres(): Promise<SystemPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error(postgresMissing());
  const root = process.getuid?.() === 0;
  const as = (cmd: string, args: string[]) => (root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]) as [string, string[]];
  const dir = mkdtempSync(join(tmpdir(), 'dssc-pg-'));
  const data = join(dir, 'data');
  const superPassword = randomBytes(12).toString('hex');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, superPassword + '\n', { mode: 0o600 });
  if (root) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim();
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim();
    chownSync(dir, Number(ids), Number(gid));
    chownSync(pwfile, Number(ids), Number(gid));
  }
  const init = spawnSync(...as(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-E', 'UTF8', '--locale=C']), { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${(init.stderr || init.stdout).trim().split('\n').pop()}`);
  const port = await freePort();
  const server: ChildProcess = spawn(...as(join(bin, 'postgres'), ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', dir, '-c', 'fsync=off']), { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr!.on('data', (d) => (log += String(d)));
  // As root the child is runuser, which does not pass a signal on to the server it started: the
  // server itself (postmaster.pid's first line) is told to stop, or it outlives the test with its
  // files gone (found: three such servers after test/source-db/run.test.ts and schema.test.ts).
  const serverPid = (): number | undefined => {
    try {
      return Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const stop = async () => {
    const pid = serverPid();
    if (pid !== undefined && alive(pid)) {
      process.kill(pid, 'SIGINT');
      // A hang guard: a fast shutdown takes well under a second.
      for (let waited = 0; alive(pid) && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGINT');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const { default: pg } = await import('pg');
  const admin = `postgres://postgres:${superPassword}@127.0.0.1:${port}/postgres`;
  // A hang guard, not a speed bound: a busy machine starts a process in tens of seconds.
  const deadline = Date.now() + 240_000;
  for (;;) {
    const c = new pg.Client(admin);
    try {
      await c.connect();
      const password = randomBytes(12).toString('hex');
      await c.query(`CREATE ROLE dssc LOGIN PASSWORD '${password}'`);
      await c.query('CREATE DATABASE dssc OWNER dssc');
      await c.end();
      return { url: `postgres://dssc:${password}@127.0.0.1:${port}/dssc`, adminUrl: `postgres://postgres:${superPassword}@127.0.0.1:${port}/dssc`, stop };
    } catch (error) {
      await c.end().catch(() => undefined);
      if (server.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`postgres did not start: ${(error as Error).message}; ${log.trim().split('\n').pop() ?? ''}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
