import type { ReferenceConfig } from './config.ts';
import { listTables, reason, type SourceDatabases } from './source-db.ts';
import type { Connection } from './store.ts';

/** Discoveries under way at once: a check that creates dozens of made-up connections must not open dozens of sockets. */
export const DISCOVERY_CONCURRENCY = 4;
/** A database's table list younger than this is not read again on demand (refresh). */
export const REFRESH_AFTER_MS = 1000;

/**
 * Schema discovery of postgresql connections, in the background (Spec › Errors › Specific cases 1:
 * the schema cache is built after creation). A connection's schemas count as cached once its
 * tables were listed AND the configured schema-cache delay since its creation has passed; a
 * database that cannot be read never caches, and the connection says why (status_error).
 */
export class Discovery {
  readonly #databases: SourceDatabases;
  readonly #config: ReferenceConfig;
  readonly #waiting: Array<() => Promise<void>> = [];
  readonly #active = new Set<Promise<void>>();
  /** When each discovered connection's tables were last listed. */
  readonly #listedAt = new WeakMap<Connection, number>();

  constructor(databases: SourceDatabases, config: ReferenceConfig) {
    this.#databases = databases;
    this.#config = config;
  }

  /** Queues the discovery of a new connection (created 'pending', schemasReadyAt Infinity); returns at once. */
  discover(connection: Connection, createdAt: number): void {
    this.#waiting.push(() => this.#run(connection, createdAt));
    this.#next();
  }

  /**
   * Lists a discovered database's tables again, so that tables created after discovery can be
   * named (a bulk sync's schemas); at most once per REFRESH_AFTER_MS. A failure keeps the list
   * as it was: the connection was readable, and the request then refuses the unknown name.
   */
  async refresh(connection: Connection): Promise<void> {
    const listedAt = this.#listedAt.get(connection);
    if (listedAt === undefined || Date.now() - listedAt < REFRESH_AFTER_MS) return;
    this.#listedAt.set(connection, Date.now());
    try {
      connection.sourceObjects = await this.#databases.withClient(connection.configuration, listTables);
    } catch {
      // Kept as it was (see above).
    }
  }

  /** Pending discoveries are dropped; those under way end with their client (databases.close()). */
  async close(): Promise<void> {
    this.#waiting.length = 0;
    await Promise.allSettled([...this.#active]);
  }

  #next(): void {
    while (this.#active.size < DISCOVERY_CONCURRENCY && this.#waiting.length > 0 && !this.#databases.closed) {
      const work = this.#waiting.shift()!()
        .catch(() => {})
        .finally(() => {
          this.#active.delete(work);
          this.#next();
        });
      this.#active.add(work);
    }
  }

  async #run(connection: Connection, createdAt: number): Promise<void> {
    try {
      // Connected anew: the discovery is the connection's check that its database can be reached.
      const tables = await this.#databases.withClient(connection.configuration, listTables, { fresh: true });
      connection.sourceObjects = tables;
      this.#listedAt.set(connection, Date.now());
      connection.status = 'healthy';
      connection.statusError = null;
      // Read the delay now, so that a fault that edits it (no-schemas-stage) is seen.
      connection.schemasReadyAt = Math.max(createdAt + this.#config.schemaCacheDelayMs, Date.now());
    } catch (error) {
      if (this.#databases.closed) return;
      connection.status = 'failed';
      connection.statusError = `schema discovery failed: ${reason(error, connection.configuration)}`;
      connection.schemasReadyAt = Infinity;
    }
  }
}
