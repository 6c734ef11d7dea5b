import type pg from 'pg';
import type { JsonType, Row, SourceColumn, SourceDatabase, SourceTable } from '../adapters/types.ts';
import { DEFAULT_SCHEMA, parseSourceDbUrl, targetView, type ParsedSourceDb } from './url.ts';

// The kit's source database: one table per webhook scenario, named with the run's prefix, in the
// schema the kit is given (every statement names it: a role's search_path, "$user" first, must
// not move a table away from where the target is told it is), whose rows the kit writes with SQL
// (inserts, updates, deletes, nulls) while the target reads them. Each table carries a comment
// with its run and creation time, for `dss-conformance cleanup`. At the end the run drops the
// tables named with its prefix, in whichever schema they are, and touches nothing else there.

/** Postgres' identifier limit (NAMEDATALEN - 1). */
const MAX_IDENTIFIER = 63;
/** Postgres' bind parameters per statement (a 16-bit count): an INSERT holds as many rows as fit. */
const MAX_PARAMS = 65_535;

/** dssc_<runid>_: what every table of this run begins with (lower case, [a-z0-9_]). */
export function runPrefix(runId: string): string {
  return `dssc_${sanitise(runId)}_`;
}

function sanitise(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9_]+/g, '_');
}

/** "name" with inner quotes doubled: every identifier the kit sends is quoted. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** 'text' with inner quotes doubled (standard_conforming_strings: backslashes are plain): for COMMENT, which takes no parameter. */
function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** "schema"."table". */
export function qualified(table: { schema: string; name: string }): string {
  return `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
}

/** The comment on each of the kit's tables: which run made it, and when (the server's clock). */
export function tableComment(runId: string, createdAt: Date): string {
  return `dss-conformance run ${runId} created ${createdAt.toISOString()}`;
}

/** A table whose name begins with dssc_, that the role may drop, in any schema but the system's. */
export interface KitTable {
  schema: string;
  name: string;
  /** Its COMMENT, if any (tableComment). */
  comment: string | null;
}

/**
 * The column's SQL type: one JSON type ('null' aside) keeps its own type; a column that takes
 * several (a score that is an integer in one row and a string in another) is jsonb, which keeps
 * each value's JSON type as written (WH-012 judges it in the deliveries).
 */
export function sqlType(types: readonly JsonType[]): string {
  const kinds = types.filter((t) => t !== 'null');
  if (kinds.length !== 1) return 'jsonb';
  return { string: 'text', integer: 'bigint', number: 'double precision', boolean: 'boolean' }[kinds[0] as 'string' | 'integer' | 'number' | 'boolean'];
}

export class SourceDbError extends Error {
  /** The SQLSTATE, when the server answered (42501: a privilege is missing). */
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

export class SourceDb {
  readonly prefix: string;
  /** The schema this run's tables are created in. */
  readonly schema: string;
  private readonly runId: string;
  /** Made at the first query: a process that never queries (most narrow runs' suite workers) does not load pg. */
  private pool: Promise<pg.Pool> | undefined;
  private readonly poolConfig: pg.PoolConfig;
  private readonly db: ParsedSourceDb;
  /** The names created by this object, all in this.schema. */
  private readonly created = new Set<string>();
  private counter = 0;
  private readonly publicHost: string | undefined;
  private prepared: Promise<void> | undefined;
  /** The server's clock minus ours: the comments carry the server's time, as `cleanup` compares with it. */
  private clockOffsetMs = 0;

  constructor(url: string, runId: string, publicHost?: string, o: { connectTimeoutMs?: number; schema?: string } = {}) {
    this.publicHost = publicHost;
    this.db = parseSourceDbUrl(url);
    this.runId = runId;
    this.prefix = runPrefix(runId);
    this.schema = o.schema ?? DEFAULT_SCHEMA;
    // A few connections: the kit writes one scenario's rows at a time.
    this.poolConfig = { connectionString: this.db.url, max: 3, connectionTimeoutMillis: o.connectTimeoutMs ?? 30_000, idleTimeoutMillis: 10_000, allowExitOnIdle: true };
  }

  private connect(): Promise<pg.Pool> {
    return (this.pool ??= import('pg').then(({ default: driver }) => {
      const pool = new driver.Pool(this.poolConfig);
      // An idle connection the server drops must not crash the run; the next query reports it.
      pool.on('error', () => undefined);
      return pool;
    }));
  }

  /** Where the kit connects: host:port, for messages (never the password). */
  get address(): string {
    return `${this.db.hostname.includes(':') ? `[${this.db.hostname}]` : this.db.hostname}:${this.db.port}`;
  }

  /** The connection details as the target reaches them (--source-db-public-host applied). */
  target(): SourceDatabase {
    return targetView(this.db, this.publicHost, this.schema);
  }

  /** Answers when the database does; a one-line SourceDbError naming host:port when it does not. */
  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  /** A table for one scenario: prefix + label (+ a counter when the label repeats), key column PRIMARY KEY. */
  async createTable(label: string, key: string, columns: readonly SourceColumn[]): Promise<SourceTable> {
    if (!columns.some((c) => c.name === key)) throw new SourceDbError(`the key column ${key} is not among the columns`);
    let name = (this.prefix + sanitise(label)).slice(0, MAX_IDENTIFIER);
    if (this.created.has(name)) {
      const suffix = `_${++this.counter}`;
      name = name.slice(0, MAX_IDENTIFIER - suffix.length) + suffix;
    }
    this.created.add(name);
    return this.create('CREATE TABLE', name, key, columns);
  }

  /**
   * A table under a name the profile gave (its sourceObjects, with {{tablePrefix}}): created when
   * missing. Only names with this run's prefix, in this.schema: the run never writes anything else.
   */
  async ensureTable(name: string, key: string, columns: readonly SourceColumn[]): Promise<SourceTable> {
    if (!name.startsWith(this.prefix) || name.length > MAX_IDENTIFIER) throw new SourceDbError(`the table ${name} does not begin with this run's prefix ${this.prefix} (or is longer than ${MAX_IDENTIFIER})`);
    this.created.add(name);
    return this.create('CREATE TABLE IF NOT EXISTS', name, key, columns);
  }

  /**
   * The table and its comment in one statement list (one implicit transaction): no table of the
   * kit is ever without its run and creation time. A missing privilege says what to do about it.
   */
  private async create(verb: string, name: string, key: string, columns: readonly SourceColumn[]): Promise<SourceTable> {
    await this.prepare();
    const table = { schema: this.schema, name, key, columns };
    const defs = columns.map((c) => `${quoteIdent(c.name)} ${sqlType(c.types)}${c.name === key ? ' PRIMARY KEY' : ''}`);
    const comment = tableComment(this.runId, new Date(Date.now() + this.clockOffsetMs));
    try {
      await this.query(`${verb} ${qualified(table)} (${defs.join(', ')}); COMMENT ON TABLE ${qualified(table)} IS ${quoteLiteral(comment)}`);
    } catch (error) {
      throw this.privilegeHint(error, `create tables in schema ${this.schema}: grant it CREATE there, or give --source-db-schema a schema it owns`);
    }
    return table;
  }

  /**
   * Once: the server's clock, and the schema created when it does not exist. Existence is looked up
   * first: CREATE SCHEMA IF NOT EXISTS wants the CREATE privilege on the database even when the
   * schema is there. A schema is never dropped (another run may be creating a table in it).
   */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      const res = await this.query(`SELECT now() AS now, EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS present`, [this.schema]);
      const row = res.rows[0] as { now: Date; present: boolean };
      this.clockOffsetMs = new Date(row.now).getTime() - Date.now();
      if (!row.present) await this.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.schema)}`).catch((error: unknown) => {
        // Two runs creating it at once: one of them meets the other's row in pg_namespace.
        if (error instanceof SourceDbError && (error.code === '23505' || error.code === '42P06')) return;
        throw this.privilegeHint(error, `create schema ${this.schema}: create it for the role (CREATE SCHEMA ${this.schema} AUTHORIZATION ${this.db.username}), or give --source-db-schema one it owns`);
      });
    })().catch((error: unknown) => {
      // A later table tries again (the database may come back).
      this.prepared = undefined;
      throw error;
    });
    return this.prepared;
  }

  /** A missing privilege (PostgreSQL 15 and later give no CREATE on public to a role that does not own the database), with what to do. */
  private privilegeHint(error: unknown, what: string): unknown {
    if (!(error instanceof SourceDbError) || error.code !== '42501') return error;
    return new SourceDbError(`${error.message} (the role ${this.db.username} may not ${what})`, error.code);
  }

  /** Inserts rows, or updates those whose key exists (INSERT … ON CONFLICT DO UPDATE), in chunks. */
  async upsert(table: SourceTable, rows: readonly Row[]): Promise<void> {
    const cols = table.columns;
    const jsonb = cols.map((c) => sqlType(c.types) === 'jsonb');
    const others = cols.filter((c) => c.name !== table.key);
    const update = others.length ? `DO UPDATE SET ${others.map((c) => `${quoteIdent(c.name)} = EXCLUDED.${quoteIdent(c.name)}`).join(', ')}` : 'DO NOTHING';
    // One statement per source in practice (1100 rows of 6 columns): each round trip costs more than its rows.
    const chunkRows = Math.max(1, Math.floor(MAX_PARAMS / cols.length));
    for (let start = 0; start < rows.length; start += chunkRows) {
      const chunk = rows.slice(start, start + chunkRows);
      const params: unknown[] = [];
      const tuples = chunk.map((row) => `(${cols.map((c, i) => {
        const value = row[c.name] ?? null;
        // jsonb goes as its JSON text: "1" stays a string and 1 a number; null is SQL NULL.
        params.push(value === null ? null : jsonb[i] ? JSON.stringify(value) : value);
        return `$${params.length}${jsonb[i] ? '::jsonb' : ''}`;
      }).join(', ')})`);
      await this.query(`INSERT INTO ${qualified(table)} (${cols.map((c) => quoteIdent(c.name)).join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT (${quoteIdent(table.key)}) ${update}`, params);
    }
  }

  /** Deletes the rows with these keys. */
  async delete(table: SourceTable, keys: ReadonlyArray<string | number>): Promise<void> {
    if (keys.length === 0) return;
    await this.query(`DELETE FROM ${qualified(table)} WHERE ${quoteIdent(table.key)}::text = ANY($1::text[])`, [keys.map(String)]);
  }

  /** The table's rows, keyed by the key column, as pg reads them (jsonb parsed; bigint as text: see readBack). */
  async rows(table: SourceTable): Promise<Row[]> {
    const res = await this.query(`SELECT * FROM ${qualified(table)} ORDER BY ${quoteIdent(table.key)}`);
    return res.rows as Row[];
  }

  /**
   * Drops the tables of this run: those it created, and any other named with its prefix in any
   * schema (made by an earlier attempt of the same run id, by the suite's worker when this is the
   * runner, or by a kit that still left the schema to the search_path). Nothing else is touched.
   * Returns the qualified names dropped ("schema.table").
   */
  async dropRunTables(): Promise<string[]> {
    const found = await this.kitTables(this.prefix);
    const tables = new Map<string, { schema: string; name: string }>();
    for (const name of this.created) tables.set(`${this.schema}.${name}`, { schema: this.schema, name });
    for (const t of found) if (t.name.startsWith(this.prefix)) tables.set(`${t.schema}.${t.name}`, t);
    for (const t of tables.values()) await this.dropTable(t);
    this.created.clear();
    return [...tables.keys()];
  }

  /**
   * The tables whose names begin with `prefix` (which begins with dssc_) that this role may drop
   * (it owns them, or is a member of their owner), in every schema but the system's.
   */
  async kitTables(prefix = 'dssc_'): Promise<KitTable[]> {
    if (!prefix.startsWith('dssc_')) throw new SourceDbError(`only tables named dssc_… are the kit's, not ${prefix}…`);
    const like = prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
    const res = await this.query(
      `SELECT n.nspname AS schema, c.relname AS name, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p') AND c.relname LIKE $1
         AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
         AND pg_has_role(c.relowner, 'USAGE')
       ORDER BY 1, 2`,
      [like],
    );
    return res.rows as KitTable[];
  }

  /** The server's clock, which the comments' times come from. */
  async serverNow(): Promise<Date> {
    return new Date((await this.query('SELECT now() AS now')).rows[0].now);
  }

  /** DROP TABLE IF EXISTS "schema"."table". */
  async dropTable(table: { schema: string; name: string }): Promise<void> {
    await this.query(`DROP TABLE IF EXISTS ${qualified(table)}`);
  }

  async close(): Promise<void> {
    if (this.pool) await (await this.pool).end().catch(() => undefined);
  }

  /** Every query: a failure is one line naming host:port (the URL, with its password, never). */
  private async query(text: string, params?: unknown[]): Promise<pg.QueryResult> {
    try {
      return await (await this.connect()).query(text, params);
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { code?: string };
      const reason = String(e.message || e.code || e).split('\n')[0] ?? '';
      const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(e.code ?? '') || /timeout|terminated|connect/i.test(reason);
      const text2 = unreachable ? `the source database at ${this.address} cannot be reached (${reason})` : `the source database at ${this.address}: ${reason}`;
      throw new SourceDbError(text2.split(this.db.password || '\u0000').join('[REDACTED]'), unreachable ? undefined : e.code);
    }
  }
}
