// The spec shows no API to create a webhook connection's sync, write a source, start a run or read
// its outcome, so the webhook checks ask an adapter. The built-in adapter drives the reference and
// any target shaped like the real service; a vendor passes its own with --adapter FILE.

export interface AdapterContext {
  baseUrl: string;
  /** Secret: never log it. */
  apiKey: string;
  runId: string;
  timeoutMs: number;
  /** Sends a request to the target with the run's credentials and version header. */
  request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
}

export type Row = Record<string, string | number | boolean | null>;

export interface WebhookSyncSettings {
  name: string;
  connectionId: string;
  sourceId: string;
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
  /** The target's word for the run's end state; the suite maps it with isFailed/isCompleted. */
  status: string;
  failed: boolean;
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
  /** Creates a source of rows the suite can write, keyed by the `key` column. */
  createSource(name: string, key: string): Promise<{ id: string }>;
  /** Inserts or replaces rows (matched by key). */
  writeRows(sourceId: string, rows: Row[]): Promise<void>;
  createModelSync(settings: WebhookSyncSettings): Promise<{ id: string; name: string }>;
  startRun(syncId: string): Promise<{ id: string }>;
  /** Resolves when the run has ended (or rejects after timeoutMs). */
  waitForRun(syncId: string, runId: string, timeoutMs: number): Promise<RunOutcome>;
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

export const ADAPTER_METHODS = ['createWebhookConnection', 'createSource', 'writeRows', 'createModelSync', 'startRun', 'waitForRun'] as const;
