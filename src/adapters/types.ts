// The spec shows no API to create a webhook connection's sync, write a source, start a run or read
// its outcome, so the webhook checks ask an adapter. The built-in adapter is declarative (the
// profile's adapter.declarative, by default the real service's shape, which the reference
// serves: declarative.ts); a target that differs more passes its own with --adapter FILE.
//
// Changes since the first contract, each backwards compatible: the context has `options` and
// `poll`, request() answers carry `headers`; createSource gets a third argument (the columns);
// the sync settings carry `key`; RunOutcome may say `recordErrors`; readCaptureLog reads the capture
// log apart from the run. An adapter written against the
// first contract still loads and works as before.
//
// Since the source-database contract: the kit owns the source rows. It creates a table per
// scenario in a Postgres it controls (--source-db, or an embedded one) and writes the rows with
// SQL; an adapter with createSourceConnection + createModel only tells the target where that
// table is, as a user of the real service does (a postgresql connection, then a model over the
// table). An adapter without them feeds its own source with createSource + writeRows, as before.

export interface AdapterContext {
  baseUrl: string;
  /** Secret: never log it. */
  apiKey: string;
  runId: string;
  /** The per-request timeout. */
  timeoutMs: number;
  /**
   * Settings for this adapter that the suite does not read (a database URL, a source connection
   * id, ...): the profile's adapter.options, each overridden by `--adapter-option KEY=VALUE` (a
   * string). Values under secret-like keys (password, token, ...) are redacted in every report;
   * still, never log them.
   */
  options: Readonly<Record<string, unknown>>;
  /** How to wait for a run: the profile's adapter.poll, defaults filled in (DEFAULT_POLL). */
  poll: PollSettings;
  /** Sends a request to the target with the run's credentials and version header (a 429 is retried within the run's budget). */
  request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<AdapterResponse>;
}

export interface AdapterResponse {
  status: number;
  json: unknown;
  /** Lower-case names (Retry-After as 'retry-after'). */
  headers: Record<string, string>;
}

/**
 * Waiting for a run: the first look at once, then after initialMs, doubling up to maxMs between
 * looks; a Retry-After is waited as asked. timeoutMs bounds a run's wait, and the wait for a
 * start that a run still under way refuses (409).
 */
export interface PollSettings {
  initialMs: number;
  maxMs: number;
  timeoutMs: number;
}

/** A real service's runs can sit queued for minutes: look every 250 ms at first, at most every 5 s, for up to 10 min. */
export const DEFAULT_POLL: Readonly<PollSettings> = Object.freeze({ initialMs: 250, maxMs: 5000, timeoutMs: 600_000 });

export type Row = Record<string, string | number | boolean | null>;

/** A JSON type, as JSON Schema names it. */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'null';

/**
 * A column of a source. `types` are the JSON types of every value the suite may write into it
 * ('null' when it may be null): the checks judge that each value is delivered with its own type
 * (WH-012), so a column that takes several needs a type that keeps each (jsonb, a variant).
 */
export interface SourceColumn {
  name: string;
  types: readonly JsonType[];
  /** The row key (the `key` argument of createSource). */
  key?: boolean;
}

/** The kit's source database as the target reaches it (--source-db-public-host applied). */
export interface SourceDatabase {
  hostname: string;
  port: number;
  database: string;
  username: string;
  /** Secret: never log it. */
  password: string;
  /** Whether the server takes TLS (the embedded one does not). */
  ssl: boolean;
  /** The schema the kit creates its tables in (--source-db-schema, default public); each SourceTable names it too. */
  schema: string;
}

/** A table the kit created in its source database for one scenario; the kit writes its rows. */
export interface SourceTable {
  /** The Postgres schema the table is in (--source-db-schema, default public): the kit never relies on a search_path. */
  schema: string;
  /** The table name, beginning with the run's prefix. */
  name: string;
  /** The key column (unique in the table). */
  key: string;
  columns: readonly SourceColumn[];
}

export interface WebhookSyncSettings {
  name: string;
  connectionId: string;
  sourceId: string;
  /** The source's key column: the sync's identity (what matches a row from run to run). */
  key: string;
  /** The selected fields, in this order: source column -> delivered field name. */
  fields: Array<{ source: string; target: string }>;
  /** Spec › Webhook settings; undefined leaves the target's default. */
  batchSize?: number;
  metadata?: Record<string, string> | null;
  recordRequests?: boolean;
  syncAllRecords?: boolean;
  skipInitialBackfill?: boolean;
}

export interface RunOutcome {
  /** The target's word for the run's end state (completed, failed, canceled, interrupted, ...). */
  status: string;
  /** The run did not complete. */
  failed: boolean;
  /**
   * Records the run reports as not delivered (the real service's counts.error, or its errors[]):
   * a run that completed with recordErrors > 0 "completed with record errors". Absent: 0.
   */
  recordErrors?: number;
  /** The run's error messages, as the target words them (for reports). */
  errors?: string[];
  /**
   * The sync history's capture log of this run, one entry per logged exchange, normalised by the
   * adapter (Spec › Events › Emission 6 shows no format): [] when the log is there but empty (as
   * with capture off); null when the adapter cannot observe the log (WH-022 is then skipped).
   */
  captured: CapturedExchange[] | null;
}

/** One logged request and its response, as the adapter normalises the target's log entry. */
export interface CapturedExchange {
  /** The request as the log holds it (any non-null value: the suite only asks that it is there). */
  request: unknown;
  /** The logged response: its status; { error } when the log says no answer came; null when the entry holds no response. */
  response: { status: number } | { error: string } | null;
}

export interface TargetAdapter {
  name: string;
  /** Creates a webhook connection delivering to url; returns its id and the secret the service generated. */
  createWebhookConnection(name: string, url: string): Promise<{ id: string; secret: string }>;
  /**
   * Source-database contract: creates the target's connection to the kit's source database
   * (called once per run); returns its id.
   */
  createSourceConnection?(database: SourceDatabase): Promise<{ id: string }>;
  /**
   * Source-database contract: defines what the target reads from one of the kit's tables (the
   * real service's model: POST /api/models {name, connection_id, configuration.table,
   * identifier}); its id is the sourceId of the syncs over it.
   */
  createModel?(settings: { name: string; connectionId: string; table: SourceTable }): Promise<{ id: string }>;
  /** Own-source contract (without createModel): creates a source of rows the suite can write, keyed by the `key` column, with these columns. */
  createSource?(name: string, key: string, columns: readonly SourceColumn[]): Promise<{ id: string }>;
  /** Own-source contract: inserts or replaces rows (matched by key). */
  writeRows?(sourceId: string, rows: Row[]): Promise<void>;
  createModelSync(settings: WebhookSyncSettings): Promise<{ id: string; name: string }>;
  /** Starts a run; a start refused because a run of the sync is under way (409) is tried again within poll.timeoutMs. */
  startRun(syncId: string): Promise<{ id: string }>;
  /** Resolves when the run has ended (or rejects after timeoutMs, which is poll.timeoutMs). */
  waitForRun(syncId: string, runId: string, timeoutMs: number): Promise<RunOutcome>;
  /**
   * The capture log of an ended run, read apart from the run (the real service keeps it behind
   * signed URLs to log files: src/adapters/capture-log.ts reads those): called when waitForRun's
   * outcome has `captured: null`. [] when the log is there but empty; null when it cannot be
   * observed. A log file on another origin than the target's must be fetched without the kit's
   * credentials.
   */
  readCaptureLog?(syncId: string, runId: string): Promise<CapturedExchange[] | null>;
  /** Removes what the adapter created in this run, where the target allows it. */
  cleanup?(): Promise<void>;
}

/**
 * Thrown by an adapter operation the target cannot do (no way to write a source, say): the checks
 * that need it are skipped as 'unsupported'. An adapter module that cannot import this class
 * throws any Error whose name is 'Unsupported'. Any other exception makes those checks errors.
 */
export class Unsupported extends Error {
  override name = 'Unsupported';
}

export type AdapterFactory = (context: AdapterContext) => TargetAdapter | Promise<TargetAdapter>;

export const ADAPTER_METHODS = ['createWebhookConnection', 'createModelSync', 'startRun', 'waitForRun'] as const;
/** One of these pairs feeds the source: the kit's database through a model, or the adapter's own. */
export const SOURCE_METHOD_SETS = [
  ['createSourceConnection', 'createModel'],
  ['createSource', 'writeRows'],
] as const;

/** How a run ended, in the words the checks report. */
export type RunEnd = 'completed' | 'completed with record errors' | 'failed';

export function runEnd(outcome: RunOutcome): RunEnd {
  if (outcome.failed) return 'failed';
  return (outcome.recordErrors ?? 0) > 0 ? 'completed with record errors' : 'completed';
}
