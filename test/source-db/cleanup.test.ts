import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceDb } from '../../src/source-db/database.ts';
import { kitRunId, sortLeftovers } from '../../src/source-db/leftovers.ts';
import { SOURCE_COLUMNS } from '../../src/suite/webhook-columns.ts';
import { postgresMissing, startSystemPostgres, type SystemPostgres } from '../helpers/system-postgres.ts';
import { useRunServers } from '../suite/run-server-pool.ts';

// `dss-conformance cleanup --source-db URL`: what a killed run left is dropped, and nothing else:
// not a run that may still be going, not a table of another name, not one the role does not own.

// Judged by exit code and output only: one long-lived child runs the command lines one after
// another (test/suite/run-server-pool.ts), the kit loaded once instead of once per line.
const servers = useRunServers(1);

const HOUR = 3_600_000;
const comment = (runId: string, at: Date) => `dss-conformance run ${runId} created ${at.toISOString()}`;

describe('which tables are leftovers', () => {
  const now = new Date('2026-01-01T12:00:00.000Z');
  const t = (name: string, c: string | null, schema = 'public') => ({ schema, name, comment: c });

  it('only names of the kit\'s form carry a run id', () => {
    expect(kitRunId('dssc_0a1b2c3d_orders')).toBe('0a1b2c3d');
    for (const name of ['dssc_orders', 'dssc_0a1b2c3_orders', 'dssc_0A1B2C3D_orders', 'dssc_0a1b2c3d_', 'orders', 'xdssc_0a1b2c3d_t']) expect(kitRunId(name)).toBeUndefined();
  });

  it('a run is old when its newest table is; without the kit\'s comment its age is unknown', () => {
    const sorted = sortLeftovers([
      t('dssc_aaaaaaaa_x', comment('aaaaaaaa', new Date(now.getTime() - 3 * HOUR))),
      t('dssc_aaaaaaaa_y', comment('aaaaaaaa', new Date(now.getTime() - 2 * HOUR)), 'kit'),
      // One recent table keeps its whole run: the run may still be going.
      t('dssc_bbbbbbbb_x', comment('bbbbbbbb', new Date(now.getTime() - 3 * HOUR))),
      t('dssc_bbbbbbbb_y', comment('bbbbbbbb', new Date(now.getTime() - 60_000))),
      t('dssc_cccccccc_x', null),
      // A comment naming another run is no time for this one.
      t('dssc_dddddddd_x', comment('eeeeeeee', new Date(now.getTime() - 3 * HOUR))),
      t('dssc_orders', comment('aaaaaaaa', new Date(0))),
    ], now, HOUR);
    expect(sorted.old.map((r) => [r.runId, r.tables.map((x) => `${x.schema}.${x.name}`)])).toEqual([['aaaaaaaa', ['public.dssc_aaaaaaaa_x', 'kit.dssc_aaaaaaaa_y']]]);
    expect(sorted.young.map((r) => r.runId)).toEqual(['bbbbbbbb']);
    expect(sorted.unknown.map((r) => r.runId)).toEqual(['cccccccc', 'dddddddd']);
    const all = sortLeftovers([t('dssc_bbbbbbbb_y', comment('bbbbbbbb', now)), t('dssc_cccccccc_x', null)], now, 0);
    expect(all.old.map((r) => r.runId)).toEqual(['bbbbbbbb', 'cccccccc']);
  });
});

describe('cleanup without a usable database', () => {
  it('bad flags and URLs are one line, exit 2, without the password', async () => {
    for (const args of [['cleanup'], ['cleanup', '--source-db', 'mysql://u:pw-Secret-7@h/d'], ['cleanup', '--source-db', 'postgres://u:pw-Secret-7@h/d', '--older-than', '5x'], ['cleanup', '--sourcedb', 'x']]) {
      const r = await servers.run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr + r.stdout).not.toContain('pw-Secret-7');
    }
    expect((await servers.run(['cleanup'])).stderr).toMatch(/name what to clean: --source-db/);
    expect((await servers.run(['cleanup', '--sourcedb', 'x'])).stderr).toMatch(/did you mean --source-db\?/);
  });

  it('an unreachable database is exit 3, one line naming host:port and not the password', async () => {
    const r = await servers.run(['cleanup'], { DSS_SOURCE_DB: 'postgres://u:pw-Secret-8@127.0.0.1:1/d' });
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^dss-conformance: the source database at 127\.0\.0\.1:1 cannot be reached/);
    expect(r.stderr + r.stdout).not.toContain('pw-Secret-8');
  });

  it('--help documents the command', async () => {
    const r = await servers.run(['help', 'cleanup']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: dss-conformance cleanup --source-db URL/);
    expect(r.stdout).toContain('--older-than');
    expect(r.stdout).toContain('--dry-run');
  });
});

const missing = postgresMissing();
const skip = missing !== undefined && process.env.DSSC_REQUIRE_POSTGRES !== '1';

describe.skipIf(skip)(`cleanup on a real PostgreSQL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let server: SystemPostgres;
  let admin: pg.Client;
  const tables = async () => (await admin.query(`SELECT schemaname || '.' || tablename AS t FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`)).rows.map((r) => r.t as string);

  beforeAll(async () => {
    if (missing) throw new Error(`DSSC_REQUIRE_POSTGRES=1 but ${missing}`);
    server = await startSystemPostgres();
    admin = new pg.Client(server.adminUrl);
    await admin.connect();
    // A dead run (its tables three hours old, one in another schema), a run that may still be
    // going, a table an older kit made (no comment), and tables that are not the kit's.
    const old = new SourceDb(server.url, '0a1b2c3d');
    const oldElsewhere = new SourceDb(server.url, '0a1b2c3d', undefined, { schema: 'kit' });
    const young = new SourceDb(server.url, '4e5f6a7b');
    try {
      await old.createTable('orders', 'id', SOURCE_COLUMNS);
      await oldElsewhere.createTable('users', 'id', SOURCE_COLUMNS);
      await young.createTable('orders', 'id', SOURCE_COLUMNS);
    } finally {
      await Promise.all([old.close(), oldElsewhere.close(), young.close()]);
    }
    const before = new Date(Date.now() - 3 * HOUR);
    await admin.query(`COMMENT ON TABLE public.dssc_0a1b2c3d_orders IS '${comment('0a1b2c3d', before)}'`);
    await admin.query(`COMMENT ON TABLE kit.dssc_0a1b2c3d_users IS '${comment('0a1b2c3d', before)}'`);
    await admin.query('SET ROLE dssc; CREATE TABLE public.dssc_99887766_legacy (id int); CREATE TABLE public.orders (id int); CREATE TABLE public.dssc_orders (id int); CREATE TABLE public.dssc_abc_t (id int); RESET ROLE');
    // The kit's form, old, but another role's: this role could not have made it.
    await admin.query(`CREATE TABLE public.dssc_12345678_theirs (id int); COMMENT ON TABLE public.dssc_12345678_theirs IS '${comment('12345678', before)}'`);
  });
  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await server?.stop();
  });

  it('--dry-run lists the dead run\'s tables and drops nothing', async () => {
    const before = await tables();
    const r = await servers.run(['cleanup', '--source-db', server.url, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('would drop '))).toEqual([
      expect.stringMatching(/^would drop kit\.dssc_0a1b2c3d_users \(run 0a1b2c3d, created \S+Z\)$/),
      expect.stringMatching(/^would drop public\.dssc_0a1b2c3d_orders \(run 0a1b2c3d, created \S+Z\)$/),
    ]);
    expect(lines).toContainEqual(expect.stringMatching(/^kept run 4e5f6a7b: 1 table, the newest made \d+ s ago \(younger than --older-than 1 h/));
    expect(lines).toContainEqual(expect.stringMatching(/^kept run 99887766: 1 table without the kit's creation time/));
    expect(lines.at(-1)).toMatch(/^source database 127\.0\.0\.1:\d+\/dssc: would drop 2 tables of 1 run; kept 2 tables of 2 runs$/);
    expect(await tables()).toEqual(before);
    expect(r.stdout + r.stderr).not.toContain(new URL(server.url).password);
  });

  it('drops the dead run\'s tables in every schema, and nothing else', async () => {
    const r = await servers.run(['cleanup'], { DSS_SOURCE_DB: server.url });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^dropped kit\.dssc_0a1b2c3d_users \(run 0a1b2c3d, created /m);
    expect(r.stdout).toMatch(/^dropped public\.dssc_0a1b2c3d_orders \(run 0a1b2c3d, created /m);
    expect(r.stdout).toMatch(/dropped 2 tables of 1 run; kept 2 tables of 2 runs$/m);
    expect(await tables()).toEqual(['public.dssc_12345678_theirs', 'public.dssc_4e5f6a7b_orders', 'public.dssc_99887766_legacy', 'public.dssc_abc_t', 'public.dssc_orders', 'public.orders']);
    expect(r.stdout + r.stderr).not.toContain(new URL(server.url).password);
  });

  it('--older-than: a shorter bound takes the younger run; 0 takes the comment-less tables too', async () => {
    // The young run's table is made in beforeAll: a second later it is older than a 1 s bound
    // (slowness only makes it older).
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const short = await servers.run(['cleanup', '--source-db', server.url, '--older-than', '1s']);
    expect(short.code, short.stderr).toBe(0);
    expect(short.stdout).toMatch(/^dropped public\.dssc_4e5f6a7b_orders /m);
    const all = await servers.run(['cleanup', '--source-db', server.url, '--older-than', '0']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/^dropped public\.dssc_99887766_legacy \(run 99887766, no creation time\)$/m);
    expect(await tables()).toEqual(['public.dssc_12345678_theirs', 'public.dssc_abc_t', 'public.dssc_orders', 'public.orders']);
    const none = await servers.run(['cleanup', '--source-db', server.url]);
    expect(none.stdout.trim()).toMatch(/^source database \S+: dropped 0 tables of 0 runs$/);
  });
});
