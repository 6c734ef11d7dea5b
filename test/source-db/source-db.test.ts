import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { startEmbeddedSourceDb, type EmbeddedSourceDb } from '../../src/source-db/embedded.ts';
import { SourceDb, sqlType, runPrefix } from '../../src/source-db/database.ts';
import { parsePublicHost, parseSourceDbUrl } from '../../src/source-db/url.ts';
import { UsageError } from '../../src/cli-errors.ts';
import type { Row, SourceColumn } from '../../src/adapters/types.ts';
import { SOURCE_COLUMNS } from '../../src/suite/webhook-columns.ts';
import { EDGE_ROWS } from '../../src/suite/webhook-data.ts';
import { postgresMissing, startSystemPostgres } from '../helpers/system-postgres.ts';

const COLUMNS: SourceColumn[] = [
  { name: 'id', types: ['string'], key: true },
  { name: 't', types: ['string', 'null'] },
  { name: 'i', types: ['integer'] },
  { name: 'n', types: ['number', 'null'] },
  { name: 'b', types: ['boolean'] },
  { name: 'mixed', types: ['string', 'integer', 'number', 'null'] },
];

describe('SourceDb on the embedded Postgres', () => {
  let embedded: EmbeddedSourceDb;
  let db: SourceDb;
  beforeAll(async () => {
    embedded = await startEmbeddedSourceDb();
    db = new SourceDb(embedded.url, 'AbC-123');
  });
  afterAll(async () => {
    await db?.close();
    await embedded?.close();
  });

  it('starts at once and answers when ready', async () => {
    expect(embedded.url).toMatch(/^postgres:\/\/postgres:[0-9a-f]+@127\.0\.0\.1:\d+\/postgres\?sslmode=disable$/);
    await embedded.ready;
    await db.ping();
    expect(db.target()).toMatchObject({ hostname: '127.0.0.1', database: 'postgres', username: 'postgres', ssl: false });
  });

  it('maps JSON types to SQL types', () => {
    expect(COLUMNS.map((c) => sqlType(c.types))).toEqual(['text', 'text', 'bigint', 'double precision', 'boolean', 'jsonb']);
    expect(runPrefix('AbC-123')).toBe('dssc_abc_123_');
  });

  it('creates a table and reads back every value as written (upsert, update, delete)', async () => {
    const table = await db.createTable('Types Ünï/"x"', 'id', COLUMNS);
    expect(table.name).toMatch(/^dssc_abc_123_types_/);
    expect(table.name).toMatch(/^[a-z0-9_]+$/);
    const rows: Row[] = [
      { id: 'a', t: 'Zoë 山田 🚀 "q" \\ back\nslash', i: 9007199254740991, n: 1.5, b: true, mixed: 9007199254740991 },
      { id: 'b', t: null, i: -9007199254740991, n: null, b: false, mixed: '1' },
      { id: 'c', t: '', i: 0, n: -0.25, b: true, mixed: 1 },
      { id: 'd', t: 'x', i: 1, n: 2, b: false, mixed: null },
      { id: 'e', t: 'y', i: 2, n: 3, b: false, mixed: 1.5 },
    ];
    await db.upsert(table, rows);
    await db.upsert(table, [{ ...rows[3]!, t: 'changed', mixed: 'now a string' }]);
    await db.delete(table, ['e']);
    const back = await db.rows(table);
    // bigint comes back as text from pg (it may exceed 2^53); jsonb is parsed, keeping "1" apart from 1.
    expect(back).toEqual([
      { ...rows[0], i: '9007199254740991' },
      { ...rows[1], i: '-9007199254740991' },
      { ...rows[2], i: '0' },
      { ...rows[3], i: '1', t: 'changed', mixed: 'now a string' },
    ]);
  });

  it('writes the webhook scenarios\' columns and edge rows (large ints, "1" vs 1, nulls, unicode)', async () => {
    const table = await db.createTable('edge', 'id', SOURCE_COLUMNS);
    await db.upsert(table, EDGE_ROWS);
    const back = new Map((await db.rows(table)).map((r) => [r.id, r]));
    for (const row of EDGE_ROWS) expect(back.get(row.id)).toEqual(row);
  });

  it('writes a long source (1100 rows) in one statement', async () => {
    const table = await db.createTable('long', 'id', COLUMNS);
    const rows: Row[] = Array.from({ length: 1100 }, (_, i) => ({ id: `r${String(i).padStart(6, '0')}`, t: `t${i}`, i, n: i / 4, b: i % 2 === 0, mixed: i % 3 === 0 ? String(i) : i }));
    const query = vi.spyOn(db as unknown as { query: (text: string, params?: unknown[]) => Promise<unknown> }, 'query');
    try {
      await db.upsert(table, rows);
      expect(query.mock.calls.filter(([text]) => text.startsWith('INSERT'))).toHaveLength(1);
    } finally {
      query.mockRestore();
    }
    const back = await db.rows(table);
    expect(back).toHaveLength(1100);
    expect(back[1000]).toEqual({ ...rows[1000], i: '1000' });
  });

  it('a repeated label gets a table of its own; long labels stay within 63 characters', async () => {
    const a = await db.createTable('same', 'id', COLUMNS);
    const b = await db.createTable('same', 'id', COLUMNS);
    expect(a.name).not.toBe(b.name);
    const long = await db.createTable('x'.repeat(100), 'id', COLUMNS);
    expect(long.name.length).toBeLessThanOrEqual(63);
  });

  it('drops only the tables of its run', async () => {
    const c = new pg.Client(embedded.url);
    await c.connect();
    try {
      await c.query('CREATE TABLE unrelated (id int)');
      await c.query('CREATE TABLE dssc_other_run_t (id int)');
      const dropped = await db.dropRunTables();
      expect(dropped.length).toBeGreaterThanOrEqual(4);
      const left = (await c.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((r) => r.tablename);
      expect(left).toEqual(['dssc_other_run_t', 'unrelated']);
    } finally {
      await c.end();
    }
  });

  it('an unreachable database is one line naming host:port, never the password', async () => {
    const bad = new SourceDb('postgres://u:sekret-pw@127.0.0.1:1/db', 'r1');
    const error = await bad.ping().then(() => undefined, (e: Error) => e);
    await bad.close();
    expect(error?.message).toMatch(/^the source database at 127\.0\.0\.1:1 cannot be reached/);
    expect(error?.message).not.toContain('\n');
    expect(error?.message).not.toContain('sekret-pw');
  });
});

describe('the embedded Postgres', () => {
  it('closes at once when it has not finished starting', async () => {
    const embedded = await startEmbeddedSourceDb();
    await embedded.close();
  });
});

describe('--source-db and --source-db-public-host values', () => {
  const usage = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      expect((e as Error).message).not.toContain('\n');
      return (e as Error).message;
    }
    throw new Error('no error');
  };

  it('reads a URL', () => {
    expect(parseSourceDbUrl('postgresql://us%40er:p%2Fw@db.example:6543/my_db?sslmode=require')).toMatchObject({ hostname: 'db.example', port: 6543, database: 'my_db', username: 'us@er', password: 'p/w', ssl: true });
    expect(parseSourceDbUrl('postgres://u:p@[::1]/d')).toMatchObject({ hostname: '::1', port: 5432, ssl: false });
    expect(parseSourceDbUrl('postgres://u@h')).toMatchObject({ database: 'u', password: '' });
  });

  it('bad values are one-line usage errors without the password', () => {
    expect(usage(() => parseSourceDbUrl('not a url s3cret'))).toMatch(/^--source-db must be a URL/);
    expect(usage(() => parseSourceDbUrl('not a url s3cret'))).not.toContain('s3cret');
    expect(usage(() => parseSourceDbUrl('mysql://u:s3cret@h/d'))).toMatch(/postgres:\/\//);
    expect(usage(() => parseSourceDbUrl('postgres://u:s3cret@h/d?sslmode=sometimes'))).toMatch(/sslmode/);
    expect(usage(() => parseSourceDbUrl('postgres://:s3cret@h/d'))).toMatch(/no user/);
    expect(usage(() => parsePublicHost('a b'))).toMatch(/HOST or HOST:PORT/);
    expect(usage(() => parsePublicHost('h:70000'))).toMatch(/port/);
  });

  it('the public host replaces the address the target is told', () => {
    const db = new SourceDb('postgres://u:p@127.0.0.1:5433/d', 'r', 'host.docker.internal:15433');
    expect(db.target()).toEqual({ hostname: 'host.docker.internal', port: 15433, database: 'd', username: 'u', password: 'p', ssl: false, schema: 'public' });
    expect(new SourceDb('postgres://u:p@127.0.0.1:5433/d', 'r', '[::1]').target()).toMatchObject({ hostname: '::1', port: 5433 });
    return db.close();
  });
});

const missing = postgresMissing();
const required = process.env.DSSC_REQUIRE_POSTGRES === '1';
describe('SourceDb on a real PostgreSQL', () => {
  it.skipIf(missing !== undefined && !required)(`create, upsert, read, drop${missing ? ` (skipped: ${missing})` : ''}`, async () => {
    if (missing) throw new Error(`DSSC_REQUIRE_POSTGRES=1 but ${missing}`);
    const server = await startSystemPostgres();
    const db = new SourceDb(server.url, 'sys1');
    try {
      const table = await db.createTable('edge', 'id', SOURCE_COLUMNS);
      await db.upsert(table, EDGE_ROWS);
      await db.upsert(table, [{ ...EDGE_ROWS[0]!, score: '1' }]);
      const back = await db.rows(table);
      expect(back.find((r) => r.id === 'e01')?.score).toBe('1');
      expect(back.find((r) => r.id === 'e03')).toEqual(EDGE_ROWS[2]);
      expect(await db.dropRunTables()).toEqual([`public.${table.name}`]);
    } finally {
      await db.close();
      await server.stop();
    }
  });
});
