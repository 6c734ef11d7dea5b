import type { Row, SourceColumn, TargetAdapter } from '../adapters/types.ts';
import type { KindName } from '../profile/profile.ts';
import { namesSourceDb } from '../profile/template.ts';
import { TransportError } from '../client/http-client.ts';
import { SourceDb } from '../source-db/database.ts';
import { fillTemplate, once, profile, redactor, resourceName, settings, Unjudgeable, Unmet, UnsupportedOperation } from './context.ts';
import { SOURCE_COLUMNS } from './webhook-columns.ts';
import { perRun } from '../run-state.ts';

// Where a scenario's rows live. An adapter with createSourceConnection + createModel reads them
// from the kit's source database, as a real service's user would set it up: the kit creates the
// scenario's table, writes the rows with SQL, and the adapter makes a model over it (whose id is
// the sync's source). Otherwise the adapter feeds its own source (createSource + writeRows).

export interface FedSource {
  sourceId: string;
  /** Inserts or replaces rows, matched by the key 'id'. */
  write(rows: readonly Row[]): Promise<void>;
}

const usesSourceDb = (ad: TargetAdapter) => typeof ad.createSourceConnection === 'function' && typeof ad.createModel === 'function';

/**
 * The run's source database, checked to answer: one line naming host:port when it does not. Until
 * settings().sourceDb.waitUntil (derived from --max-duration) a failed connection is retried with
 * backoff: the embedded database may still be starting, a busy machine may be slow. A failure is
 * never remembered: the next check tries again (once, after that time), so one transient failure
 * is not every later check's verdict.
 */
let connected: SourceDb | undefined;
let pending: Promise<SourceDb> | undefined;
export function sourceDb(): Promise<SourceDb> {
  if (connected) return Promise.resolve(connected);
  pending ??= connectSourceDb().then(
    (db) => ((connected = db), (pending = undefined), db),
    (error: unknown) => {
      pending = undefined;
      throw error;
    },
  );
  return pending;
}
// The connection of a run that ended without its afterAll (interrupted) is closed, not reused.
perRun(async () => {
  const db = connected;
  connected = undefined;
  pending = undefined;
  await db?.close();
});

/** A connect attempt gets at least this long (a loaded machine's handshake), however close the bound. */
const MIN_CONNECT_MS = 10_000;

async function connectSourceDb(): Promise<SourceDb> {
  const s = settings().sourceDb;
  if (!s) throw new Unjudgeable('the run has no source database (it was started without webhook checks selected)');
  let backoff = 250;
  for (;;) {
    const left = (s.waitUntil ?? 0) - Date.now();
    // An embedded database holds the connection until it is up: one attempt may wait the whole bound.
    const db = new SourceDb(s.url, settings().runId, s.publicHost, { schema: s.schema, connectTimeoutMs: Math.max(MIN_CONNECT_MS, left) });
    try {
      await db.ping();
      return db;
    } catch (error) {
      await db.close();
      if (Date.now() + backoff >= (s.waitUntil ?? 0)) throw new Unjudgeable(redactor().text((error as Error).message));
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(backoff * 2, 5000);
    }
  }
}

/** The target's connection to the source database: one per run. */
function sourceConnection(ad: TargetAdapter, db: SourceDb): Promise<string> {
  return once('source-connection', async () => (await ad.createSourceConnection!(db.target()).catch(unmet('create a connection to the source database'))).id);
}

/** A source with these rows for the scenario `label` (its name or table carries the run's prefix). */
export async function openSource(ad: TargetAdapter, label: string, rows: readonly Row[]): Promise<FedSource> {
  if (!usesSourceDb(ad)) {
    const sourceId = (await ad.createSource!(resourceName(`source-${label}`), 'id', SOURCE_COLUMNS).catch(unmet('create a source'))).id;
    const write = async (more: readonly Row[]) => void (await ad.writeRows!(sourceId, [...more]).catch(unmet('write source rows')));
    await write(rows);
    return { sourceId, write };
  }
  const db = await sourceDb();
  const pass = settings().versionPass;
  // A later --api-version pass makes its own tables, as it makes its own resources.
  const table = await db.createTable(`${pass ? `v${pass.index}_` : ''}${label}`, 'id', SOURCE_COLUMNS).catch(failed('create a table'));
  const write = (more: readonly Row[]) => db.upsert(table, more).catch(failed('write source rows'));
  await write(rows);
  const connectionId = await sourceConnection(ad, db);
  const model = await ad.createModel!({ name: resourceName(`model-${label}`), connectionId, table }).catch(unmet('create a model over the source table'));
  return { sourceId: model.id, write };
}

/** The tables a kind's sourceObjects name: a few columns, a couple of rows. */
const KIND_COLUMNS: readonly SourceColumn[] = [
  { name: 'id', types: ['string'], key: true },
  { name: 'name', types: ['string'] },
  { name: 'amount', types: ['number', 'null'] },
  { name: 'active', types: ['boolean'] },
];
const KIND_ROWS: readonly Row[] = [
  { id: 'k1', name: 'first', amount: 12.5, active: true },
  { id: 'k2', name: 'second', amount: null, active: false },
];

/**
 * When a kind points at the kit's source database ({{sourceDb.*}} in its configuration) and its
 * sourceObjects name tables with {{tablePrefix}}, those tables exist, with rows, before the kind's
 * connection is created: a target that reads the database finds real schemas to cache.
 */
export function prepareKindTables(kind: KindName): Promise<void> {
  return once(`kind-tables:${kind}`, async () => {
    const k = profile().kinds?.[kind];
    if (!k || !namesSourceDb(k.configuration)) return;
    const named = (k.sourceObjects ?? []).filter((o) => o.includes('{{tablePrefix}}'));
    if (named.length === 0) return;
    const db = await sourceDb();
    for (const object of fillTemplate(named, {})) {
      // A bare name is the profile's way to name a table for a target that qualifies it itself: the kit's schema.
      const [schema, table] = object.includes('.') ? [object.slice(0, object.indexOf('.')), object.slice(object.indexOf('.') + 1)] : [db.schema, object];
      if (schema !== db.schema) throw new Unmet(`kinds.${kind}.sourceObjects: the kit creates its tables in schema ${db.schema} (--source-db-schema), not ${schema} (${object}); write {{sourceDb.schema}}.{{tablePrefix}}…`);
      const created = await db.ensureTable(table, 'id', KIND_COLUMNS).catch(failed(`create the table ${object}`));
      await db.upsert(created, KIND_ROWS).catch(failed(`write the rows of ${object}`));
    }
  });
}

/** Drops the run's tables and closes the pool (the runner drops them again, in case this never ran). */
export async function closeSourceDb(): Promise<void> {
  // Not a connection still being tried: the hook must not wait for it (the runner drops the tables).
  const db = connected;
  connected = undefined;
  if (!db) return;
  await db.dropRunTables().catch(() => undefined);
  await db.close();
}

/** The kit's own database failed: the checks that need it cannot be judged (error, not fail). */
function failed(what: string) {
  return (error: unknown): never => {
    throw new Unjudgeable(redactor().text(`the kit could not ${what} in its source database: ${String((error as Error)?.message ?? error).split('\n')[0]}`));
  };
}

/**
 * What an adapter operation's failure means for the checks that need it: an operation the
 * adapter declares unsupported (an error named 'Unsupported') is a skip; no answer from the target
 * is the check's error, as is any other exception (the operation could not be judged).
 */
export function unmet(what: string) {
  return (error: unknown): never => {
    if (error instanceof TransportError) throw error;
    const message = `the adapter could not ${what}: ${String((error as Error)?.message ?? error).split('\n')[0]}`;
    if ((error as Error)?.name === 'Unsupported') throw new UnsupportedOperation(message);
    throw new Unjudgeable(message);
  };
}
