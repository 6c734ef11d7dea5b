import pg from 'pg';
import type { Row, Value } from './store.ts';

// The reference's side of a postgresql connection: how its configuration becomes a pg client,
// what a database error becomes in an answer, and the three things read from a database (its
// tables, a table's columns, a table's rows). A client does one piece of work at a time; one that
// did its work without an error is kept for the next piece on the same settings (a connection, its
// SCRAM handshake and its server process cost more than most pieces of work), and every live one
// is ended when the reference closes.

/** A connect that takes longer fails: nothing waits on discovery, but runs and model creation do. */
export const CONNECT_TIMEOUT_MS = 4000;
/** One statement of discovery, model creation or a run's page may take this long. */
export const QUERY_TIMEOUT_MS = 30_000;
/** Rows read per query of a run (keyset pages: a run never holds a whole table). */
export const PAGE_ROWS = 1000;

/**
 * RFC 6761 (§6.2, §6.4, §6.5) reserves these names and every name under them: no real database
 * lives there, so the reference takes such a hostname as a made-up test configuration and does
 * not look it up (README › Connections).
 */
const MADE_UP_DOMAINS = ['test', 'invalid', 'example', 'example.com', 'example.net', 'example.org'];

export function isMadeUpHost(hostname: unknown): boolean {
  if (typeof hostname !== 'string') return false;
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return MADE_UP_DOMAINS.some((domain) => name === domain || name.endsWith(`.${domain}`));
}

/** int8 as a number when it is exact (the kit writes only those), else its text; numeric as a number. */
function int8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

function numeric(text: string): number | string {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

const identity = (text: string): string => text;

// OIDs of pg_type. Dates and times stay the database's text (pg would make Date objects); bytea its hex text.
const PARSERS: Record<number, (text: string) => unknown> = { 20: int8, 1700: numeric, 1082: identity, 1083: identity, 1114: identity, 1184: identity, 1266: identity, 17: identity };

const types = {
  getTypeParser: ((oid: number, format?: string) => PARSERS[oid] ?? pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** The pg settings of a postgresql connection's configuration (Spec › configuration by kind; `ssl` the real service's, default true). */
export function clientConfig(configuration: Record<string, unknown>): pg.ClientConfig {
  return {
    host: String(configuration.hostname),
    port: Number(configuration.port),
    database: String(configuration.database),
    user: String(configuration.username),
    password: String(configuration.password),
    ssl: configuration.ssl !== false,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    application_name: 'dss-reference',
    types,
  };
}

/** Why a database could not be used, on one line and without the password (nor anything else secret in the configuration). */
export function reason(error: unknown, configuration: Record<string, unknown>): string {
  const e = error as { code?: string; message?: string };
  let text = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  if (e?.code && !text.includes(e.code)) text += ` (${e.code})`;
  const password = configuration.password;
  // Masked where it stands alone (not inside a word: a one-letter password must not mangle "expired").
  if (typeof password === 'string' && password !== '') {
    const escaped = password.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'gu'), '****');
  }
  return text.replace(/\s+/g, ' ').trim();
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** "schema.table" or "table" (public). A dot inside a name is not supported. */
export function splitTableName(name: string): { schema: string; table: string } {
  const dot = name.indexOf('.');
  return dot < 0 ? { schema: 'public', table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
}

/** Connected clients kept per settings at most: runs started side by side each need one. */
const IDLE_PER_SETTINGS = 4;
/** How long a kept client waits for its next piece of work. */
const IDLE_MS = 5000;

/** Live clients, so that close() can end them; after close no new client is made. */
export class SourceDatabases {
  readonly #clients = new Set<pg.Client>();
  /** Connected clients at rest, by their settings (password included: other settings, other clients). */
  readonly #idle = new Map<string, pg.Client[]>();
  #closed = false;

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Runs `work` with a connected client; errors (connect ones too) are thrown as they come, and the
   * client of a failed piece of work is ended. fresh: a client of its own, connected anew and
   * ended after (a connection's discovery is its check that the database can be reached).
   */
  async withClient<T>(configuration: Record<string, unknown>, work: (client: pg.Client) => Promise<T>, { fresh = false }: { fresh?: boolean } = {}): Promise<T> {
    const { client, key } = await this.#take(configuration, fresh);
    let done = false;
    try {
      const result = await work(client);
      done = !fresh;
      return result;
    } finally {
      await this.#give(client, key, done);
    }
  }

  /**
   * The items `read` yields from a connected client, which is kept or ended when the reading ends
   * (finished, failed or stopped early): `read` awaits each query whole before it yields, so a
   * reading stopped at a yield leaves nothing in flight.
   */
  async *stream<T>(configuration: Record<string, unknown>, read: (client: pg.Client) => AsyncGenerator<T>): AsyncGenerator<T> {
    const { client, key } = await this.#take(configuration);
    let failed = true;
    try {
      for await (const item of read(client)) {
        failed = false;
        yield item;
        failed = true;
      }
      failed = false;
    } finally {
      await this.#give(client, key, !failed);
    }
  }

  async #take(configuration: Record<string, unknown>, fresh = false): Promise<{ client: pg.Client; key: string }> {
    if (this.#closed) throw new Error('the reference is closing');
    const { types: _types, ...settings } = clientConfig(configuration);
    const key = JSON.stringify(settings);
    const kept = fresh ? undefined : this.#idle.get(key)?.pop();
    if (kept) return { client: kept, key };
    const client = this.#open(configuration);
    try {
      await client.connect();
    } catch (error) {
      await this.#release(client);
      throw error;
    }
    return { client, key };
  }

  async #give(client: pg.Client, key: string, reusable: boolean): Promise<void> {
    const idle = this.#idle.get(key) ?? [];
    if (!reusable || this.#closed || !this.#clients.has(client) || idle.length >= IDLE_PER_SETTINGS) return this.#release(client);
    this.#idle.set(key, [...idle, client]);
    // A kept client not asked for again goes: a served reference holds no connection for long.
    setTimeout(() => {
      const now = this.#idle.get(key) ?? [];
      if (!now.includes(client)) return;
      this.#idle.set(key, now.filter((c) => c !== client));
      void this.#release(client);
    }, IDLE_MS).unref();
  }

  #open(configuration: Record<string, unknown>): pg.Client {
    const client = new pg.Client(clientConfig(configuration));
    // An 'error' event (the server went away between queries) must not crash the process; the
    // query in flight fails anyway, and a kept client that lost its server is not handed out again.
    client.on('error', () => {
      for (const [key, idle] of this.#idle) this.#idle.set(key, idle.filter((c) => c !== client));
      void this.#release(client);
    });
    this.#clients.add(client);
    return client;
  }

  async #release(client: pg.Client): Promise<void> {
    this.#clients.delete(client);
    await client.end().catch(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#idle.clear();
    for (const client of this.#clients) {
      // Not client.end(): pg never settles a connect() under way once end() was called. A dropped
      // socket fails the connect or the query in flight at once, and withClient/stream end as they fail.
      (client as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection?.stream?.destroy(new Error('the reference is closing'));
    }
  }
}

/** The user tables as "schema.table", the system schemas left out. */
export async function listTables(client: pg.Client): Promise<string[]> {
  const result = await client.query<{ name: string }>(
    `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
     WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg\\_%'
       AND table_type IN ('BASE TABLE', 'VIEW', 'FOREIGN')
     ORDER BY table_schema, table_name`,
  );
  return result.rows.map((row) => row.name);
}

/** A table's columns in their order; none when the table does not exist. */
export async function tableColumns(client: pg.Client, schema: string, table: string): Promise<Array<{ name: string; type: string }>> {
  const result = await client.query<{ name: string; type: string }>(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
     WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position`,
    [schema, table],
  );
  return result.rows;
}

/** A table's primary key column, when it has one of a single column (a model's default identifier). */
export async function primaryKeyColumn(client: pg.Client, schema: string, table: string): Promise<string | undefined> {
  const result = await client.query<{ name: string }>(
    `SELECT kcu.column_name AS name FROM information_schema.table_constraints tc
     JOIN information_schema.key_column_usage kcu
       ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema AND kcu.table_name = tc.table_name
     WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_schema = $1 AND tc.table_name = $2`,
    [schema, table],
  );
  return result.rows.length === 1 ? result.rows[0]!.name : undefined;
}

/**
 * A table's rows ordered by its key column, read a page at a time (keyset: key > the last one
 * read), so that rows written while a run goes on are seen if the run has not reached them yet.
 */
export async function* readTable(client: pg.Client, from: { schema: string; table: string; key: string; columns: readonly string[] }): AsyncGenerator<Row> {
  const columns = [...new Set([from.key, ...from.columns])].map(quoteIdent).join(', ');
  const table = `${quoteIdent(from.schema)}.${quoteIdent(from.table)}`;
  const key = quoteIdent(from.key);
  let last: Value | undefined;
  for (;;) {
    const where = last === undefined ? '' : `WHERE ${key} > $1`;
    const params = last === undefined ? [] : [typeof last === 'object' && last !== null ? JSON.stringify(last) : last];
    const page = await client.query<Row>(`SELECT ${columns} FROM ${table} ${where} ORDER BY ${key} LIMIT ${PAGE_ROWS}`, params);
    for (const row of page.rows) yield row;
    if (page.rows.length < PAGE_ROWS) return;
    last = page.rows.at(-1)?.[from.key];
  }
}
