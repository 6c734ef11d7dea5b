import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { ROOT, withoutTargetEnv } from '../suite/run-cli.ts';
import { useRunServers } from '../suite/run-server-pool.ts';
import { postgresMissing, startSystemPostgres } from '../helpers/system-postgres.ts';

// The source database through the CLI: a bad URL, an unreachable server, and a real PostgreSQL
// that the webhook checks run through (the reference reads it as the real service would).


/** Every report file's text, and the secret's spellings that must not be in it. */
function leaks(dir: string, secret: string, extra = ''): string[] {
  const forms = [secret, Buffer.from(secret).toString('base64').replace(/=+$/, ''), Buffer.from(secret).toString('hex'), encodeURIComponent(secret)];
  const texts = readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')] as const).concat([['stdout', extra]]);
  return texts.flatMap(([f, text]) => forms.filter((form) => text.includes(form)).map((form) => `${f}: ${form}`));
}

describe('--source-db', () => {
  // The runs judged by their code, output and reports go to one long-lived child that loads the kit
  // once (test/suite/run-server-pool.ts); the interrupted run is a process of its own, as a signal needs.
  const servers = useRunServers(1);

  it('a bad URL is one line, exit 2, without the password', async () => {
    const r = await servers.run(['run', '--source-db', 'mysql://u:pw-Secret-123@h/d', '--only', 'WH-001']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--source-db must be a postgres:\/\//);
    expect(leaks(r.reports, 'pw-Secret-123', r.stdout + r.stderr)).toEqual([]);
  });

  it('an unreachable one makes the webhook checks errors naming host:port, never the password', async () => {
    const r = await servers.run(['run', '--seed', '1', '--num-runs', '2', '--only', 'WH-001'], { DSS_SOURCE_DB: 'postgres://u:pw-Secret-456@127.0.0.1:1/d' });
    expect(r.code).toBe(4);
    const check = r.result!.checks.find((c) => c.id === 'WH-001')!;
    expect(check.status).toBe('error');
    expect(JSON.stringify(check)).toMatch(/source database at 127\.0\.0\.1:1 cannot be reached/);
    expect(r.stdout).toContain('--source-db "$DSS_SOURCE_DB"');
    expect(r.stdout).toMatch(/^dss-conformance: note: the source database at 127\.0\.0\.1:1 cannot be reached .*: the checks that need it are errors$/m);
    expect(leaks(r.reports, 'pw-Secret-456', r.stdout + r.stderr)).toEqual([]);
  });

  const missing = postgresMissing();
  it.skipIf(missing !== undefined && process.env.DSSC_REQUIRE_POSTGRES !== '1')(`the webhook checks run through a real PostgreSQL; only the run's tables are dropped${missing ? ` (skipped: ${missing})` : ''}`, async () => {
    if (missing) throw new Error(`DSSC_REQUIRE_POSTGRES=1 but ${missing}`);
    const server = await startSystemPostgres();
    const c = new pg.Client(server.url);
    try {
      await c.connect();
      await c.query('CREATE TABLE keep_me (id int)');
      const r = await servers.run(['run', '--seed', '7', '--num-runs', '3', '--only', 'webhooks', '--source-db', server.url]);
      const webhook = r.result!.checks.filter((x) => x.id.startsWith('WH-'));
      expect(webhook.length).toBeGreaterThan(10);
      expect(webhook.filter((x) => x.status !== 'passed').map((x) => `${x.id} ${x.status}`)).toEqual([]);
      const left = (await c.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((x) => x.tablename);
      expect(left).toEqual(['keep_me']);
      const password = new URL(server.url).password;
      expect(leaks(r.reports, password, r.stdout + r.stderr)).toEqual([]);
      expect(r.stdout).toContain('--source-db "$DSS_SOURCE_DB"');
    } finally {
      await c.end().catch(() => undefined);
      await server.stop();
    }
  });

  it.skipIf(missing !== undefined && process.env.DSSC_REQUIRE_POSTGRES !== '1')(`an interrupted run drops its tables before it exits${missing ? ` (skipped: ${missing})` : ''}`, async () => {
    if (missing) throw new Error(`DSSC_REQUIRE_POSTGRES=1 but ${missing}`);
    const server = await startSystemPostgres();
    const c = new pg.Client(server.url);
    try {
      await c.connect();
      await c.query('CREATE TABLE keep_me (id int)');
      const tables = async () => (await c.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`)).rows.map((x) => x.tablename as string);
      const child = spawn(process.execPath, [join(ROOT, 'src/cli.ts'), 'run', '--seed', '3', '--only', 'webhooks', '--reports', mkdtempSync(join(tmpdir(), 'dssc-interrupt-'))], {
        cwd: ROOT, env: { ...withoutTargetEnv(process.env), DSS_SOURCE_DB: server.url }, stdio: 'ignore',
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      while ((await tables()).length < 3) await new Promise((resolve) => setTimeout(resolve, 50));
      child.kill('SIGINT');
      expect(await exited).toBe(4);
      expect(await tables()).toEqual(['keep_me']);
    } finally {
      await c.end().catch(() => undefined);
      await server.stop();
    }
  });
});
