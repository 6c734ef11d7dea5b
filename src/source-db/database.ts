import pg from 'pg';
import type { JsonType, Row, SourceColumn, SourceDatabase, SourceTable } from '../adapters/types.ts';
import { parseSourceDbUrl, targetView, type ParsedSourceDb } from './url.ts';

// The kit's source database: one table per webhook scenario, named with the run's prefix, whose
// rows the kit writes with SQL (inserts, updates, deletes, nulls) while the target reads them. At
// the end the run drops the tables named with its prefix and touches nothing else there.

/** Postgres' identifier limit (NAMEDATALEN - 1). */
const MAX_IDENTIFIER = 63;
/** Rows per INSERT: well under Postgres' 65535 bind parameters for a few columns. */
const CHUNK = 500;

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

export class SourceDbError extends Error {}

export class SourceDb {
  readonly prefix: string;
  private readonly pool: pg.Pool;
  private readonly db: ParsedSourceDb;
  private readonly created = new Set<string>();
  private counter = 0;
  private readonly publicHost: string | undefined;

  constructor(url: string, runId: string, publicHost?: string, o: { connectTimeoutMs?: number } = {}) {
    this.publicHost = publicHost;
    this.db = parseSourceDbUrl(url);
    this.prefix = runPrefix(runId);
    // A few connections: the kit writes one scenario's rows at a time.
    this.pool = new pg.Pool({ connectionString: this.db.url, max: 3, connectionTimeoutMillis: o.connectTimeoutMs ?? 30_000, idleTimeoutMillis: 10_000, allowExitOnIdle: true });
    // An idle connection the server drops must not crash the run; the next query reports it.
    this.pool.on('error', () => undefined);
  }

  /** Where the kit connects: host:port, for messages (never the password). */
  get address(): string {
    return `${this.db.hostname.includes(':') ? `[${this.db.hostname}]` : this.db.hostname}:${this.db.port}`;
  }

  /** The connection details as the target reaches them (--source-db-public-host applied). */
  target(): SourceDatabase {
    return targetView(this.db, this.publicHost);
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
    const defs = columns.map((c) => `${quoteIdent(c.name)} ${sqlType(c.types)}${c.name === key ? ' PRIMARY KEY' : ''}`);
    this.created.add(name);
    await this.query(`CREATE TABLE ${quoteIdent(name)} (${defs.join(', ')})`);
    return { schema: 'public', name, key, columns };
  }

  /**
   * A table under a name the profile gave (its sourceObjects, with {{tablePrefix}}): created when
   * missing. Only names with this run's prefix, in public: the run never writes anything else.
   */
  async ensureTable(name: string, key: string, columns: readonly SourceColumn[]): Promise<SourceTable> {
    if (!name.startsWith(this.prefix) || name.length > MAX_IDENTIFIER) throw new SourceDbError(`the table ${name} does not begin with this run's prefix ${this.prefix} (or is longer than ${MAX_IDENTIFIER})`);
    const defs = columns.map((c) => `${quoteIdent(c.name)} ${sqlType(c.types)}${c.name === key ? ' PRIMARY KEY' : ''}`);
    this.created.add(name);
    await this.query(`CREATE TABLE IF NOT EXISTS ${quoteIdent(name)} (${defs.join(', ')})`);
    return { schema: 'public', name, key, columns };
  }

  /** Inserts rows, or updates those whose key exists (INSERT … ON CONFLICT DO UPDATE), in chunks. */
  async upsert(table: SourceTable, rows: readonly Row[]): Promise<void> {
    const cols = table.columns;
    const jsonb = cols.map((c) => sqlType(c.types) === 'jsonb');
    const others = cols.filter((c) => c.name !== table.key);
    const update = others.length ? `DO UPDATE SET ${others.map((c) => `${quoteIdent(c.name)} = EXCLUDED.${quoteIdent(c.name)}`).join(', ')}` : 'DO NOTHING';
    for (let start = 0; start < rows.length; start += CHUNK) {
      const chunk = rows.slice(start, start + CHUNK);
      const params: unknown[] = [];
      const tuples = chunk.map((row) => `(${cols.map((c, i) => {
        const value = row[c.name] ?? null;
        // jsonb goes as its JSON text: "1" stays a string and 1 a number; null is SQL NULL.
        params.push(value === null ? null : jsonb[i] ? JSON.stringify(value) : value);
        return `$${params.length}${jsonb[i] ? '::jsonb' : ''}`;
      }).join(', ')})`);
      await this.query(`INSERT INTO ${quoteIdent(table.name)} (${cols.map((c) => quoteIdent(c.name)).join(', ')}) VALUES ${tuples.join(', ')} ON CONFLICT (${quoteIdent(table.key)}) ${update}`, params);
    }
  }

  /** Deletes the rows with these keys. */
  async delete(table: SourceTable, keys: ReadonlyArray<string | number>): Promise<void> {
    if (keys.length === 0) return;
    await this.query(`DELETE FROM ${quoteIdent(table.name)} WHERE ${quoteIdent(table.key)}::text = ANY($1::text[])`, [keys.map(String)]);
  }

  /** The table's rows, keyed by the key column, as pg reads them (jsonb parsed; bigint as text: see readBack). */
  async rows(table: SourceTable): Promise<Row[]> {
    const res = await this.query(`SELECT * FROM ${quoteIdent(table.name)} ORDER BY ${quoteIdent(table.key)}`);
    return res.rows as Row[];
  }

  /**
   * Drops the tables of this run: those it created, and any other named with its prefix (made by
   * an earlier attempt of the same run id, or by the suite's worker when this is the runner).
   * Nothing else is touched. Returns the names dropped.
   */
  async dropRunTables(): Promise<string[]> {
    const like = this.prefix.replace(/[\\%_]/g, (c) => `\\${c}`) + '%';
    const res = await this.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE $1`, [like]);
    const names = [...new Set([...this.created, ...res.rows.map((r: { tablename: string }) => r.tablename)])].filter((n) => n.startsWith(this.prefix));
    for (const n of names) await this.query(`DROP TABLE IF EXISTS ${quoteIdent(n)}`);
    this.created.clear();
    return names;
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }

  /** Every query: a failure is one line naming host:port (the URL, with its password, never). */
  private async query(text: string, params?: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.pool.query(text, params);
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { code?: string };
      const reason = String(e.message || e.code || e).split('\n')[0] ?? '';
      const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'EAI_AGAIN'].includes(e.code ?? '') || /timeout|terminated|connect/i.test(reason);
      const text2 = unreachable ? `the source database at ${this.address} cannot be reached (${reason})` : `the source database at ${this.address}: ${reason}`;
      throw new SourceDbError(text2.split(this.db.password || '\u0000').join('[REDACTED]'));
    }
  }
}
