import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startEmbeddedSourceDb, type EmbeddedSourceDb } from '../../src/source-db/embedded.ts';
import { SourceDb } from '../../src/source-db/database.ts';
import { sourceDbWaitMs } from '../../src/source-db/run-source-db.ts';
import { findBinaries } from '../../src/source-db/postgres-binaries.ts';
import { SOURCE_COLUMNS } from '../../src/suite/webhook-columns.ts';
import { EDGE_ROWS } from '../../src/suite/webhook-data.ts';
import { ROOT } from '../suite/run-cli.ts';

// The embedded source database: the native PostgreSQL by default, PGlite as the fallback. No
// test here depends on how fast anything is: every wait is bounded only to end a hung test.

const native = await findBinaries();
const skipNative = native === undefined && process.env.DSSC_REQUIRE_POSTGRES !== '1';

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    return (await c.query<T>(text)).rows;
  } finally {
    await c.end();
  }
}

const dataDirectory = async (db: EmbeddedSourceDb) => (await query<{ data_directory: string }>(db.url, 'SHOW data_directory'))[0]!.data_directory;

async function until(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`still not ${what} after ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(skipNative)('the native embedded PostgreSQL', () => {
  it('a connection made before it is up waits for it; it takes upserts; the wrong password is refused; its files go at close', async () => {
    const db = await startEmbeddedSourceDb({ engine: 'postgres' });
    try {
      // Not awaiting ready: the loopback listener holds the connection until the server answers.
      const early = await query<{ v: string }>(db.url, 'SELECT version() AS v');
      expect(early[0]!.v).toMatch(/^PostgreSQL \d+/);
      expect(db.engine()).toBe('postgres');
      const source = new SourceDb(db.url, 'emb1');
      try {
        const table = await source.createTable('edge', 'id', SOURCE_COLUMNS);
        await source.upsert(table, EDGE_ROWS);
        await source.upsert(table, EDGE_ROWS);
        expect(await source.rows(table)).toHaveLength(EDGE_ROWS.length);
      } finally {
        await source.close();
      }
      const wrong = new pg.Client(db.url.replace(/:[0-9a-f]+@/, ':not-the-password@'));
      expect(await wrong.connect().then(() => 'connected', (e: Error) => e.message)).toMatch(/password authentication failed/);
      await wrong.end().catch(() => undefined);
      const dir = await dataDirectory(db);
      expect(db.dataDir()).toBe(dir);
      expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
      await db.close();
      expect(existsSync(dir)).toBe(false);
    } finally {
      await db.close();
    }
  });

  it('two started at once get their own folder, password and port, and never see each other\'s tables', async () => {
    const [a, b] = await Promise.all([startEmbeddedSourceDb({ engine: 'postgres' }), startEmbeddedSourceDb({ engine: 'postgres' })]);
    try {
      await Promise.all([a.ready, b.ready]);
      expect(new URL(a.url).port).not.toBe(new URL(b.url).port);
      expect(new URL(a.url).password).not.toBe(new URL(b.url).password);
      const [dirA, dirB] = await Promise.all([dataDirectory(a), dataDirectory(b)]);
      expect(dirA).not.toBe(dirB);
      await query(a.url, 'CREATE TABLE only_in_a (id int)');
      expect(await query(b.url, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`)).toEqual([]);
      // One server's password does not open the other.
      const crossed = new pg.Client(b.url.replace(new URL(b.url).password, new URL(a.url).password));
      expect(await crossed.connect().then(() => 'connected', (e: Error) => e.message)).toMatch(/password authentication failed/);
      await crossed.end().catch(() => undefined);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('closed at once: nothing is left running, no folder is left behind', async () => {
    const db = await startEmbeddedSourceDb({ engine: 'postgres' });
    await db.close();
    // Whether the start got as far as the server is a matter of timing; either way it is undone.
    await db.ready.catch(() => undefined);
    const dir = db.dataDir();
    if (dir) expect(existsSync(dir)).toBe(false);
  });

  it('closeSync (an interrupt\'s handler) stops the server and removes its files before it returns', async () => {
    const db = await startEmbeddedSourceDb({ engine: 'postgres' });
    await db.ready;
    const dir = await dataDirectory(db);
    const pid = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    db.closeSync();
    expect(existsSync(dir)).toBe(false);
    await until('stopped', () => !alive(pid));
  });

  it.skipIf(process.platform === 'win32')('a SIGKILL of the process that started it stops the server and empties its folder', async () => {
    const child = spawn(process.execPath, [join(ROOT, 'test/helpers/embedded-child.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`the child ended (exit ${code}) before it was ready`)));
    });
    const { dataDir } = JSON.parse(line) as { dataDir: string };
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(alive(pid)).toBe(true);
    child.kill('SIGKILL');
    await until('stopped', () => !alive(pid));
    // As root the guardian (running as the server's account) cannot remove the folder itself
    // from the kit's root-owned folder: it empties it, and a later run sweeps it.
    await until('emptied', () => !existsSync(dataDir) || readdirSync(dataDir).length === 0);
  });
});

describe('the PGlite fallback', () => {
  it('is used when asked for (DSSC_EMBEDDED_DB=pglite or the option) and takes upserts', async () => {
    const db = await startEmbeddedSourceDb({ engine: 'pglite' });
    try {
      const source = new SourceDb(db.url, 'lite1');
      try {
        const table = await source.createTable('edge', 'id', SOURCE_COLUMNS);
        await source.upsert(table, EDGE_ROWS);
        expect(await source.rows(table)).toHaveLength(EDGE_ROWS.length);
      } finally {
        await source.close();
      }
      expect(db.engine()).toBe('pglite');
    } finally {
      await db.close();
    }
  });

  it.skipIf(skipNative || process.platform === 'win32')('takes over, with one line saying why, when the native server cannot start', async () => {
    // A kit folder in the temp folder that others may write to is refused: the native start fails.
    const tmp = mkdtempSync(join(tmpdir(), 'dssc-fallback-'));
    const saved = process.env.TMPDIR;
    const notes: string[] = [];
    let db: EmbeddedSourceDb | undefined;
    try {
      mkdirSync(join(tmp, `dssc-epg-${process.getuid?.()}`));
      chmodSync(join(tmp, `dssc-epg-${process.getuid?.()}`), 0o777);
      process.env.TMPDIR = tmp;
      db = await startEmbeddedSourceDb({ onNote: (line) => notes.push(line) });
      await db.ready;
      expect(db.engine()).toBe('pglite');
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(/^the embedded PostgreSQL did not start \(.*not a folder of this user's alone\): PGlite instead$/);
      expect((await query<{ one: number }>(db.url, 'SELECT 1 AS one'))[0]!.one).toBe(1);
    } finally {
      process.env.TMPDIR = saved;
      if (saved === undefined) delete process.env.TMPDIR;
      await db?.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('how long a run waits for its source database', () => {
  it('is a tenth of --max-duration, between 30 s and 5 min', () => {
    expect(sourceDbWaitMs(60_000)).toBe(30_000);
    expect(sourceDbWaitMs(30 * 60_000)).toBe(180_000);
    expect(sourceDbWaitMs(7 * 24 * 3_600_000)).toBe(300_000);
  });
});
