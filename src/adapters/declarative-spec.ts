import { checkTemplate, type Shape } from './template.ts';

// The profile's adapter.declarative: each adapter operation as a request (method, path and body
// templates) and JSON pointers (RFC 6901) into the answer. Its JSON Schema is in
// fixtures/profiles/profile.schema.json; this module holds the types and the variables each
// operation may use, which the schema cannot check.

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface DeclarativeRequest {
  /** Default POST (GET for readRun). */
  method?: Method;
  /** A template; each placeholder is URL-encoded. */
  path: string;
  /** A template; absent: no body. */
  body?: unknown;
}

export interface DeclarativeSpec {
  createWebhookConnection: DeclarativeRequest & { id: string; secret: string };
  createSourceConnection: DeclarativeRequest & { id: string };
  createModel: DeclarativeRequest & { id: string };
  createModelSync: DeclarativeRequest & { id: string; name?: string };
  startRun: DeclarativeRequest & { id: string };
  readRun: DeclarativeRequest & {
    status: string;
    errorCount?: string;
    errors?: string;
    /** Within one entry of errors[]: its message (default /message; a string entry is its own message). */
    errorMessage?: string;
    /** Absent: the capture log is not observable (WH-022 is skipped). */
    captureLog?: string;
    /** Within one entry of the capture log (defaults /request, /response/status, /response/error). */
    capture?: { request?: string; status?: string; error?: string };
  };
  /**
   * The capture log read apart from the run (the real service: GET
   * /api/syncs/{id}/executions/{execution_id}/{type} answers signed URLs to log files), once the
   * run has ended. Used when readRun has no captureLog.
   */
  readLog?: ReadLogSpec;
  statuses: { inProgress: string[]; completed: string[]; failed: string[]; canceled: string[] };
}

/** How a run's capture log is read: the answer holds the entries, or the URLs of files that hold them. */
export interface ReadLogSpec extends DeclarativeRequest {
  /** Where the entries are in the answer (a list; null: an empty log). */
  entries?: string;
  /** Where the URL, or the list of URLs, of the log files is; each file is fetched and its entries read. */
  urls?: string;
  /** How a file holds its entries: one JSON value a line (default), or one JSON array. */
  format?: 'json-lines' | 'json-array';
  /** Whether files are gzip-compressed; absent: told by their first bytes. */
  gzip?: boolean;
  /** The origins (scheme://host[:port]) log files may be fetched from besides the target's own; absent: any. */
  origins?: string[];
  /** Within one entry (defaults /request, /response/status, /response/error). */
  capture?: { request?: string; status?: string; error?: string };
}

export type OperationName = Exclude<keyof DeclarativeSpec, 'statuses'>;
export const OPERATIONS: readonly OperationName[] = ['createWebhookConnection', 'createSourceConnection', 'createModel', 'createModelSync', 'startRun', 'readRun', 'readLog'];

const DB: Shape = { hostname: 'value', port: 'value', database: 'value', username: 'value', password: 'value', ssl: 'value', schema: 'value' };
const TABLE: Shape = { schema: 'value', name: 'value', qualifiedName: 'value', key: 'value' };
const FIELD: Shape = { source: 'value', target: 'value' };

/** The variables each operation's path and body may use. */
export const VARIABLES: Readonly<Record<OperationName, Readonly<Record<string, Shape>>>> = {
  createWebhookConnection: { name: 'value', url: 'value' },
  createSourceConnection: { name: 'value', db: DB },
  createModel: { name: 'value', connectionId: 'value', table: TABLE, key: 'value' },
  createModelSync: {
    name: 'value', connectionId: 'value', sourceId: 'value', key: 'value', keyTarget: 'value', fields: [FIELD],
    batchSize: 'value', metadata: 'value', recordRequests: 'value', syncAllRecords: 'value', skipInitialBackfill: 'value',
  },
  startRun: { syncId: 'value' },
  readRun: { syncId: 'value', runId: 'value' },
  readLog: { syncId: 'value', runId: 'value' },
};

/**
 * The first problem the schema cannot see, as "<pointer>: <what>": an unknown variable, or a
 * status word listed twice. The pointer is from the profile's root.
 */
export function checkDeclarative(spec: DeclarativeSpec, at = '/adapter/declarative'): string | undefined {
  for (const op of OPERATIONS) {
    const operation = spec[op];
    if (operation === undefined) continue;
    const { path, body } = operation;
    const problem = checkTemplate(path, VARIABLES[op], `${at}/${op}/path`) ?? (body === undefined ? undefined : checkTemplate(body, VARIABLES[op], `${at}/${op}/body`));
    if (problem) return problem;
  }
  const seen = new Map<string, string>();
  for (const [group, words] of Object.entries(spec.statuses)) {
    for (const word of words) {
      const other = seen.get(word);
      if (other !== undefined) return `${at}/statuses: ${JSON.stringify(word)} is both ${other} and ${group}`;
      seen.set(word, group);
    }
  }
  return undefined;
}
