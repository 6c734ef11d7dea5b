import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { PostgresBinaries, ServerOwner } from './postgres-binaries.ts';

// The embedded PostgreSQL's files. initdb costs ~1 s of CPU, so its result is kept as a template
// in the kit's temp folder (per package version and server account) and each run copies it
// (~0.1 s) into a folder of its own, removed when the run ends: every run gets a fresh, private
// database, and runs side by side never share a folder.

/** The template's superuser password, beside its files (never used by a run: each sets its own). */
export const PASSWORD_FILE = 'dssc-template-password';

export interface Template {
  dir: string;
  password: string;
}

/** The template for these binaries: kept from an earlier run, or made now (initdb). */
export async function ensureTemplate(base: string, bins: PostgresBinaries, owner: ServerOwner | undefined, env: NodeJS.ProcessEnv): Promise<Template> {
  const dir = join(base, `tpl-${bins.version}-${owner?.uid ?? 'self'}`);
  const kept = readTemplate(dir, owner);
  if (kept) return kept;
  const id = randomBytes(6).toString('hex');
  const partial = `${dir}.${id}.partial`;
  const pwfile = join(base, `pw-${id}`);
  const password = randomBytes(18).toString('hex');
  try {
    mkdirSync(partial, { mode: 0o700 });
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (owner) for (const p of [partial, pwfile]) chownSync(p, owner.uid, owner.gid);
    // C locale and UTF-8 everywhere alike; -N skips fsync (a throwaway database); 1 MB WAL
    // segments keep the copy small.
    await runToEnd(bins.initdb, ['-D', partial, '-U', 'postgres', `--pwfile=${pwfile}`, '-A', 'scram-sha-256', '-E', 'UTF8', '--locale=C', '-N', '--wal-segsize=1', '--no-instructions'], owner, env);
    writeFileSync(join(partial, PASSWORD_FILE), password, { mode: 0o600 });
    if (owner) chownSync(join(partial, PASSWORD_FILE), owner.uid, owner.gid);
    try {
      // Whole or not at all: a run never copies a half-made template.
      renameSync(partial, dir);
    } catch {
      // Another run made it meanwhile: theirs is used.
      const theirs = readTemplate(dir, owner);
      if (theirs) return theirs;
      throw new Error(`could not keep the template in ${dir}`);
    }
    return { dir, password };
  } finally {
    rmSync(pwfile, { force: true });
    rmSync(partial, { recursive: true, force: true });
  }
}

/** A complete template owned by the server's account, or undefined. */
function readTemplate(dir: string, owner: ServerOwner | undefined): Template | undefined {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory() || st.uid !== (owner?.uid ?? process.getuid?.() ?? st.uid)) return undefined;
    if (!existsSync(join(dir, 'PG_VERSION'))) return undefined;
    const password = readFileSync(join(dir, PASSWORD_FILE), 'utf8').trim();
    return password ? { dir, password } : undefined;
  } catch {
    return undefined;
  }
}

/** A template that a server would not start from is removed: the next run makes it anew. */
export function discardTemplate(template: Template): void {
  rmSync(template.dir, { recursive: true, force: true });
}

/**
 * This run's data folder, empty, owned by the server's account, mode 0700. The guardian fills
 * it (copyTemplateSync on Windows): one `cp` process, where Node's own copy of the ~1,000 files
 * took seconds of event-loop turns on a busy machine.
 */
export function makeRunDir(base: string, owner: ServerOwner | undefined): string {
  const dir = join(base, `run-${randomBytes(5).toString('hex')}`);
  mkdirSync(dir, { mode: 0o700 });
  if (owner) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

/** The template's files into the run's folder, in this process (Windows: no guardian, no root). */
export function copyTemplateSync(template: Template, dir: string): void {
  cpSync(template.dir, dir, { recursive: true, filter: (src) => basename(src) !== PASSWORD_FILE });
}

/**
 * Data folders left by runs whose server is gone (a crash, a killed guardian; a run killed with
 * SIGKILL on Windows): removed when their server's pid is not alive and the folder is old enough
 * not to be a run that is still starting.
 */
export function sweepStaleRunDirs(base: string, olderThanMs = 10 * 60_000): void {
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => n.startsWith('run-') || n.endsWith('.partial'));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(base, name);
    try {
      if (Date.now() - statSync(dir).mtimeMs < olderThanMs) continue;
      const pid = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0 && alive(pid)) continue;
    } catch {
      // No pid file: a server that never started, or gone.
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs a command as the server's account; rejects with its last line of output when it fails. */
function runToEnd(file: string, args: string[], owner: ServerOwner | undefined, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...(owner ? { uid: owner.uid, gid: owner.gid } : {}) });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-2000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', (e) => reject(new Error(`initdb could not run (${(e as NodeJS.ErrnoException).code ?? e.message})`)));
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`initdb failed (exit ${code}): ${lastLine(output)}`))));
  });
}

export function lastLine(text: string): string {
  return text.trim().split('\n').filter((l) => l.trim() !== '').pop()?.trim() ?? 'no output';
}
