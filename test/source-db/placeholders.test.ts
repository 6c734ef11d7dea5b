import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { fillPlaceholders, namesSourceDb } from '../../src/profile/template.ts';
import { sourceDbValues } from '../../src/source-db/placeholders.ts';
import { ROOT, runCli } from '../suite/run-cli.ts';
import { postgresMissing, startSystemPostgres } from '../helpers/system-postgres.ts';

describe('profile placeholders for the source database', () => {
  const values = sourceDbValues({ sourceDb: { url: 'postgres://u%40x:p%2Fw@10.0.0.5:6543/db?sslmode=require', publicHost: 'db.example', embedded: false, schema: 'public' }, runId: 'AB12' });

  it('the values are the database as the target reaches it', () => {
    expect(values).toEqual({ 'sourceDb.hostname': 'db.example', 'sourceDb.port': 6543, 'sourceDb.database': 'db', 'sourceDb.username': 'u@x', 'sourceDb.password': 'p/w', 'sourceDb.ssl': true, 'sourceDb.schema': 'public', tablePrefix: 'dssc_ab12_' });
  });

  it('a string that is one placeholder takes the value with its type; others are text; unknown ones stay', () => {
    const filled = fillPlaceholders(
      { port: '{{sourceDb.port}}', ssl: '{{sourceDb.ssl}}', dsn: 'host={{sourceDb.hostname}} port={{sourceDb.port}}', objects: ['public.{{tablePrefix}}orders'], other: '{{webhookUrl}}', n: 3 },
      values,
    );
    expect(filled).toEqual({ port: 6543, ssl: true, dsn: 'host=db.example port=6543', objects: ['public.dssc_ab12_orders'], other: '{{webhookUrl}}', n: 3 });
    expect(namesSourceDb({ a: ['{{tablePrefix}}x'] })).toBe(true);
    expect(namesSourceDb({ a: '{{webhookUrl}}' })).toBe(false);
  });
});

const missing = postgresMissing();
describe('a profile kind pointed at the source database', () => {
  it.skipIf(missing !== undefined && process.env.DSSC_REQUIRE_POSTGRES !== '1')(`its tables exist before its connection, and go at the end${missing ? ` (skipped: ${missing})` : ''}`, async () => {
    if (missing) throw new Error(`DSSC_REQUIRE_POSTGRES=1 but ${missing}`);
    const server = await startSystemPostgres();
    const admin = new pg.Client(server.adminUrl);
    try {
      await admin.connect();
      // Every table created in the database, logged by an event trigger the kit knows nothing of.
      await admin.query('CREATE TABLE public.ddl_log (tag text, object text)');
      await admin.query('GRANT INSERT, SELECT ON public.ddl_log TO dssc');
      await admin.query(`CREATE FUNCTION public.log_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO public.ddl_log SELECT command_tag, object_identity FROM pg_event_trigger_ddl_commands(); END $$`);
      await admin.query('CREATE EVENT TRIGGER log_ddl ON ddl_command_end EXECUTE FUNCTION public.log_ddl()');
      // The reference profile points its relational database at the kit's source database: every
      // bulk check then runs on tables the reference really discovered there.
      const r = await runCli(['run', '--seed', '5', '--num-runs', '2', '--only', 'bulk-syncs,CONN-001', '--source-db', server.url]);
      expect(r.result!.checks.filter((c) => c.id.startsWith('BULK-')).length).toBeGreaterThan(3);
      expect(r.result!.checks.filter((c) => c.status !== 'passed').map((c) => `${c.id} ${c.status}`)).toEqual([]);
      const requests = readFileSync(join(r.reports, 'requests.json'), 'utf8');
      // The configuration went out filled and typed: the port a number (normalised), the password redacted.
      expect(requests).toContain('\\"port\\":\\"<source-db-port>\\"');
      expect(requests).not.toContain('{{sourceDb');
      expect(requests).not.toContain(new URL(server.url).password);
      const log = (await admin.query(`SELECT object FROM public.ddl_log WHERE tag = 'CREATE TABLE'`)).rows.map((x) => x.object as string);
      expect(log.sort()).toEqual([expect.stringMatching(/^public\.dssc_[0-9a-f]+_orders$/), expect.stringMatching(/^public\.dssc_[0-9a-f]+_users$/)]);
      const left = (await admin.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((x) => x.tablename);
      expect(left).toEqual(['ddl_log']);
    } finally {
      await admin.end().catch(() => undefined);
      await server.stop();
    }
  });
});
