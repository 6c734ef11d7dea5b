import { UsageError } from '../cli-errors.ts';
import type { SourceDatabase } from '../adapters/types.ts';

// --source-db postgres://USER:PASSWORD@HOST[:PORT]/DATABASE[?sslmode=…], read once: the kit's
// pool connects with the URL as given; the target is told the same database, under
// --source-db-public-host when it reaches the server under another address.

/** sslmode values of libpq: TLS is on for the target when the URL asks for it (require and stricter). */
const TLS_MODES: Record<string, boolean> = { disable: false, allow: false, prefer: false, require: true, 'verify-ca': true, 'verify-full': true, 'no-verify': true };

/** The URL's database; the schema is a setting of its own (--source-db-schema). */
export interface ParsedSourceDb extends Omit<SourceDatabase, 'schema'> {
  /** The URL the kit connects with. */
  url: string;
}

/** Where the kit's tables go unless --source-db-schema names another schema. */
export const DEFAULT_SCHEMA = 'public';

/**
 * --source-db-schema NAME: a plain lower-case identifier, so that the name means the same schema
 * to a target that quotes it and to one that does not (Postgres folds unquoted names to lower
 * case). pg_* and information_schema belong to the system.
 */
export function parseSourceDbSchema(raw: string | undefined, label = '--source-db-schema'): string {
  if (raw === undefined) return DEFAULT_SCHEMA;
  const name = raw.trim();
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new UsageError(`${label} must be a lower-case schema name of letters, digits and _ (at most 63, not starting with a digit), got ${JSON.stringify(raw)}`);
  if (name.startsWith('pg_') || name === 'information_schema') throw new UsageError(`${label}: ${name} is a system schema`);
  return name;
}

/** One-line UsageErrors naming the flag, never the password. */
export function parseSourceDbUrl(raw: string, label = '--source-db'): ParsedSourceDb {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new UsageError(`${label} must be a URL like postgres://USER:PASSWORD@HOST:5432/DATABASE`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new UsageError(`${label} must be a postgres:// or postgresql:// URL, got ${u.protocol}//…`);
  if (!u.hostname) throw new UsageError(`${label} names no host (postgres://USER:PASSWORD@HOST:5432/DATABASE)`);
  const decode = (s: string, what: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw new UsageError(`${label}: the ${what} is not valid percent-encoding`);
    }
  };
  const username = decode(u.username, 'user name');
  if (!username) throw new UsageError(`${label} names no user (postgres://USER:PASSWORD@HOST:5432/DATABASE)`);
  const database = decode(u.pathname.replace(/^\//, ''), 'database name') || username;
  if (database.includes('/')) throw new UsageError(`${label}: the database name cannot contain '/'`);
  const sslmode = u.searchParams.get('sslmode') ?? 'disable';
  const ssl = TLS_MODES[sslmode];
  if (ssl === undefined) throw new UsageError(`${label}: sslmode must be one of ${Object.keys(TLS_MODES).join(', ')}, got ${JSON.stringify(sslmode)}`);
  return { url: raw.trim(), hostname: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : 5432, database, username, password: decode(u.password, 'password'), ssl };
}

/** --source-db-public-host H[:P] (IPv6 as [::1]:5432): where the target reaches the database. */
export function parsePublicHost(raw: string, label = '--source-db-public-host'): { hostname: string; port?: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(raw.trim());
  if (!m) throw new UsageError(`${label} must be HOST or HOST:PORT, got ${JSON.stringify(raw)}`);
  const port = m[2] !== undefined ? Number(m[2]) : undefined;
  if (port !== undefined && (port < 1 || port > 65535)) throw new UsageError(`${label}: the port must be between 1 and 65535, got ${m[2]}`);
  return { hostname: m[1]!.replace(/^\[|\]$/g, ''), ...(port !== undefined ? { port } : {}) };
}

/** The database as the target reaches it: the URL's, under the public host when one is given, and the schema of the kit's tables. */
export function targetView(db: ParsedSourceDb, publicHost?: string, schema = DEFAULT_SCHEMA): SourceDatabase {
  const pub = publicHost ? parsePublicHost(publicHost) : undefined;
  return { hostname: pub?.hostname ?? db.hostname, port: pub?.port ?? db.port, database: db.database, username: db.username, password: db.password, ssl: db.ssl, schema };
}
