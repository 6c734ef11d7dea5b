import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli-errors.ts';
import { SourceDb } from '../../src/source-db/database.ts';
import { parseSourceDbSchema } from '../../src/source-db/url.ts';
import { SOURCE_COLUMNS } from '../../src/suite/webhook-columns.ts';
import { postgresMissing, startSystemPostgres, type SystemPostgres } from '../helpers/system-postgres.ts';
import { ROOT, runCli, withoutTargetEnv } from '../suite/run-cli.ts';

// The schema of the kit's tables: named in every statement and told to the target, whatever the
// role's search_path says. The bug this guards against: a role that owns a schema of its own name
// ("$user" comes first in the default search_path) got the kit's tables there while the target
// was told public.<table>, and the cleanup looked in public only.

describe('--source-db-schema values', () => {
  const usage = (raw: string) => {
    try {
      parseSourceDbSchema(raw);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    throw new Error('no error');
  };

  it('defaults to public; takes a plain lower-case name', () => {
    expect(parseSourceDbSchema(undefined)).toBe('public');
    expect(parseSourceDbSchema(' kit_tables ')).toBe('kit_tables');
  });

  it('refuses names a target could read as another schema, and the system\'s', () => {
    expect(usage('Alice')).toMatch(/^--source-db-schema must be a lower-case schema name/);
    expect(usage('a.b')).toMatch(/lower-case/);
    expect(usage('1abc')).toMatch(/lower-case/);
    expect(usage('x'.repeat(64))).toMatch(/at most 63/);
    expect(usage('pg_catalog')).toMatch(/system schema/);
    expect(usage('information_schema')).toMatch(/system schema/);
  });
});

const missing = postgresMissing();
const skip = missing !== undefined && process.env.DSSC_REQUIRE_POSTGRES !== '1';
const why = missing ? ` (skipped: ${missing})` : '';

describe.skipIf(skip)(`the schema on a real PostgreSQL${why}`, () => {
  let server: SystemPostgres;
  let admin: pg.Client;
  /** Every table named dssc_… in any schema, as schema.table. */
  const kitTables = async () => (await admin.query(`SELECT schemaname || '.' || tablename AS t FROM pg_tables WHERE tablename LIKE 'dssc\\_%' ORDER BY 1`)).rows.map((r) => r.t as string);

  beforeAll(async () => {
    if (missing) throw new Error(`DSSC_REQUIRE_POSTGRES=1 but ${missing}`);
    server = await startSystemPostgres();
    admin = new pg.Client(server.adminUrl);
    await admin.connect();
    // The kit's role (dssc, which owns the database and so may create in public) owns a schema of
    // its own name: an unqualified CREATE TABLE would land there.
    await admin.query('CREATE SCHEMA dssc AUTHORIZATION dssc');
    await admin.query(`CREATE ROLE stranger LOGIN PASSWORD 'stranger-pw-1'`);
  });
  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await server?.stop();
  });

  it('tables go where the target is told, with the run and its creation time as their comment', async () => {
    const inPublic = new SourceDb(server.url, 'a1b2c3d4');
    const inKit = new SourceDb(server.url, 'a1b2c3d4', undefined, { schema: 'kit_tables' });
    try {
      const a = await inPublic.createTable('orders', 'id', SOURCE_COLUMNS);
      expect(a.schema).toBe('public');
      expect(inPublic.target().schema).toBe('public');
      const b = await inKit.createTable('users', 'id', SOURCE_COLUMNS);
      expect(b.schema).toBe('kit_tables');
      expect(inKit.target().schema).toBe('kit_tables');
      await inKit.upsert(b, [{ id: 'r1', name: 'x' }]);
      expect((await inKit.rows(b)).map((r) => r.id)).toEqual(['r1']);
      expect(await kitTables()).toEqual(['kit_tables.dssc_a1b2c3d4_users', 'public.dssc_a1b2c3d4_orders']);
      const comment = (await admin.query(`SELECT obj_description('kit_tables.dssc_a1b2c3d4_users'::regclass, 'pg_class') AS c`)).rows[0].c as string;
      expect(comment).toMatch(/^dss-conformance run a1b2c3d4 created \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Math.abs(Date.parse(comment.split(' ').at(-1)!) - Date.now())).toBeLessThan(10 * 60_000);
      // Cleanup finds the run's tables in every schema, also one a search_path put elsewhere
      // (as the kit did before it named the schema), and nothing else.
      await admin.query('CREATE TABLE dssc.dssc_a1b2c3d4_stray (id int); ALTER TABLE dssc.dssc_a1b2c3d4_stray OWNER TO dssc');
      await admin.query('CREATE TABLE public.orders (id int); CREATE TABLE public.dssc_a1b2c3d5_other (id int); ALTER TABLE public.dssc_a1b2c3d5_other OWNER TO dssc');
      const dropped = await inPublic.dropRunTables();
      expect(dropped.sort()).toEqual(['dssc.dssc_a1b2c3d4_stray', 'kit_tables.dssc_a1b2c3d4_users', 'public.dssc_a1b2c3d4_orders']);
      expect(await kitTables()).toEqual(['public.dssc_a1b2c3d5_other']);
      // The schema the kit created stays (another run may be creating a table in it).
      expect((await admin.query(`SELECT 1 FROM pg_namespace WHERE nspname = 'kit_tables'`)).rowCount).toBe(1);
    } finally {
      await inPublic.close();
      await inKit.close();
      await admin.query('DROP TABLE IF EXISTS public.orders, public.dssc_a1b2c3d5_other');
    }
  });

  it('the interrupt\'s child process drops the run\'s tables in any schema', async () => {
    const db = new SourceDb(server.url, 'e5f6a7b8', undefined, { schema: 'kit_tables' });
    try {
      await db.createTable('t1', 'id', SOURCE_COLUMNS);
      await admin.query('CREATE TABLE dssc.dssc_e5f6a7b8_stray (id int); ALTER TABLE dssc.dssc_e5f6a7b8_stray OWNER TO dssc');
    } finally {
      await db.close();
    }
    const script = join(ROOT, 'src/source-db/drop-run-tables.ts');
    const child = spawnSync(process.execPath, [script], { env: { ...process.env, DSSC_DROP_SOURCE_DB: server.url, DSSC_DROP_RUN_ID: 'e5f6a7b8' }, encoding: 'utf8', timeout: 60_000 });
    expect(child.status, child.stderr).toBe(0);
    expect(await kitTables()).toEqual([]);
  });

  it('a role that may not create in the schema gets a line saying what to do', async () => {
    const url = new URL(server.url);
    url.username = 'stranger';
    url.password = 'stranger-pw-1';
    // PostgreSQL 15 gives no CREATE on public to a role that does not own the database.
    const db = new SourceDb(url.toString(), 'c0ffee00');
    try {
      const error = await db.createTable('t', 'id', SOURCE_COLUMNS).then(() => undefined, (e: Error) => e);
      expect(error?.message).toMatch(/permission denied for schema public .*the role stranger may not create tables in schema public.*--source-db-schema/);
      expect(error?.message).not.toContain('stranger-pw-1');
      expect(error?.message).not.toContain('\n');
    } finally {
      await db.close();
    }
    // Nor may it create a schema in a database it does not own.
    const own = new SourceDb(url.toString(), 'c0ffee00', undefined, { schema: 'strangers' });
    try {
      const error = await own.createTable('t', 'id', SOURCE_COLUMNS).then(() => undefined, (e: Error) => e);
      expect(error?.message).toMatch(/permission denied .*the role stranger may not create schema strangers: .*CREATE SCHEMA strangers AUTHORIZATION stranger/);
    } finally {
      await own.close();
    }
  });

  it('a run whose role owns a schema of its name: BULK-004 and a webhook check pass, no table is left', async () => {
    const r = await runCli(['run', '--seed', '5', '--num-runs', '2', '--only', 'BULK-004,WH-001', '--source-db', server.url]);
    expect(r.result, r.stderr).toBeDefined();
    expect(r.result!.checks.map((c) => `${c.id} ${c.status}`).sort()).toEqual(expect.arrayContaining(['BULK-004 passed', 'WH-001 passed']));
    expect(r.result!.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}`)).toEqual([]);
    expect(await kitTables()).toEqual([]);
  });

  it('--source-db-schema: the tables go there, the target is told so, and an interrupted run leaves none', async () => {
    const r = await runCli(['run', '--seed', '6', '--num-runs', '2', '--only', 'BULK-004,WH-001', '--source-db', server.url, '--source-db-schema', 'kit_run']);
    expect(r.result!.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}`)).toEqual([]);
    expect(r.result!.checks.map((c) => c.id)).toEqual(expect.arrayContaining(['BULK-004', 'WH-001']));
    // The bulk sync names the profile's {{sourceDb.schema}}.{{tablePrefix}}orders; the model its
    // table (requests.json writes the run id as <run>).
    const requests = readFileSync(join(r.reports, 'requests.json'), 'utf8');
    const named = [...new Set(requests.match(/kit_run\.dssc_(?:<run>|[0-9a-f]{8})_[a-z0-9_]+/g))];
    expect(named.some((n) => n.endsWith('_orders'))).toBe(true);
    expect(named.some((n) => !/_(orders|users)$/.test(n))).toBe(true);
    expect(r.stdout).toContain('--source-db-schema kit_run');
    expect(await kitTables()).toEqual([]);

    // Interrupted while the webhook checks have tables in kit_run: none is left.
    const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), 'run', '--seed', '3', '--only', 'webhooks', '--reports', mkdtempSync(join(tmpdir(), 'dssc-interrupt-'))], {
      cwd: ROOT, env: { ...withoutTargetEnv(process.env), DSS_SOURCE_DB: server.url, DSS_SOURCE_DB_SCHEMA: 'kit_run' }, stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      while ((await kitTables()).filter((t) => t.startsWith('kit_run.')).length < 2) {
        if (child.exitCode !== null) throw new Error(`the run ended (${child.exitCode}) before it made two tables`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      child.kill('SIGINT');
      expect(await exited).toBe(4);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    expect(await kitTables()).toEqual([]);
  });
});
