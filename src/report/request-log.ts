import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunFileAppender, startRunFile } from './run-file.ts';

// requests.json: every request the suite sent, normalised so that two runs with one seed compare
// equal. The worker appends each request (and each id the target assigned) to a raw log as it goes,
// one write per line, so nothing is lost when the run is interrupted; the runner renders
// requests.json from it once, at the end of the run or at its interruption. Rewriting the whole
// file after every spec file cost seconds between files on a deep run.

/** Where the worker appends (in --reports); every pass of the run appends to the same file. */
export const REQUEST_LOG_FILE = '.dssc-requests.ndjson';

/** walked.json: what the checks walked of the input space that requests cannot show (src/suite/input-space-record.ts). */
export const WALKED_FILE = 'walked.json';

export interface LoggedRequest {
  method: string;
  path: string;
  /** X-Service-Version as sent, or "<absent>" (the request-level version dimension). */
  version?: string;
  /** The class of the Authorization header sent (src/report/credential-class.ts), never the key. */
  credential?: string;
  /** Content-Type as sent with a body. */
  contentType?: string;
  body?: string;
}

/** What a check walked: an operation of input-space.json and the values it took. */
export interface WalkedRecord {
  operation: string;
  values: Record<string, string | number>;
  check?: string;
}

/** A line of the raw log: a request sent (its body already redacted), an id the target assigned, or a walk. */
type RawLine = { request: LoggedRequest } | { learned: string } | { walked: WalkedRecord };

/** The runner's side, before the first pass: the file the worker appends to (src/report/run-file.ts). */
export function startRequestLog(dir: string): void {
  startRunFile(join(dir, REQUEST_LOG_FILE));
}

/** The worker's side: one write per line; after one that fails (the file is gone), none. */
export class RequestLogWriter {
  private failed = false;
  private readonly file: RunFileAppender;

  constructor(dir: string) {
    this.file = new RunFileAppender(join(dir, REQUEST_LOG_FILE));
  }

  request(entry: LoggedRequest): void {
    this.line({ request: entry });
  }

  walked(record: WalkedRecord): void {
    this.line({ walked: record });
  }

  /** An id the target assigned (read from a creation's answer): replaced by `<idN>` in requests.json. */
  learned(id: string): void {
    this.line({ learned: id });
  }

  private line(line: RawLine): void {
    // Losing the file costs requests.json, not the run.
    if (!this.failed) this.failed = !this.file.append(JSON.stringify(line));
  }

  close(): void {
    this.file.close();
  }
}

/** What the normalisation replaces: the run's own values, which differ between two runs of one seed. */
export interface RunValues {
  runId: string;
  baseUrl: string;
  /** The source database's port as the target reaches it (a free port for the embedded one). */
  sourceDbPort?: string | number | undefined;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The normalised requests of a raw log: the run id, the target's address and the ids the target
 * assigned replaced by placeholders. A request repeated back to back (polling the schema cache, a
 * run's status) is listed once: how often depends on time. A line cut short by an interruption is left out.
 */
export function normaliseRequestLog(text: string, run: RunValues): LoggedRequest[] {
  const requests: LoggedRequest[] = [];
  const labels = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: RawLine;
    try {
      parsed = JSON.parse(line) as RawLine;
    } catch {
      continue;
    }
    if ('learned' in parsed) {
      if (!labels.has(parsed.learned)) labels.set(parsed.learned, `<id${labels.size + 1}>`);
    } else if ('request' in parsed) requests.push(parsed.request);
  }
  // One pattern for every id, longest first (so no id is cut by another it contains): one pass per text.
  const ids = [...labels.keys()].sort((a, b) => b.length - a.length);
  const idPattern = ids.length > 0 ? new RegExp(ids.map(escape).join('|'), 'g') : undefined;
  const normalise = (s: string) => {
    let out = s.split(run.runId).join('<run>').split(run.baseUrl).join('<target>');
    if (idPattern) out = out.replace(idPattern, (id) => labels.get(id)!);
    if (run.sourceDbPort !== undefined) out = out.split(`"port":${run.sourceDbPort}`).join('"port":"<source-db-port>"');
    return out.replace(/\/c\/[A-Za-z0-9_-]+\//g, '/c/<channel>/').replace(/:\/\/127\.0\.0\.1:\d+/g, '://127.0.0.1:<port>');
  };
  const out: LoggedRequest[] = [];
  let previous = '';
  for (const r of requests) {
    const entry: LoggedRequest = { method: r.method, path: normalise(r.path) };
    for (const k of ['version', 'credential', 'contentType'] as const) if (r[k] !== undefined) entry[k] = r[k];
    if (r.body !== undefined) entry.body = normalise(r.body);
    const key = JSON.stringify(entry);
    if (key !== previous) out.push(entry);
    previous = key;
  }
  return out;
}

/** The walks of a raw log, each once, in a stable order (two runs of one seed compare equal). */
export function walkedRecords(text: string): WalkedRecord[] {
  const seen = new Map<string, WalkedRecord>();
  for (const line of text.split('\n')) {
    if (!line.includes('"walked"')) continue;
    try {
      const parsed = JSON.parse(line) as RawLine;
      if ('walked' in parsed) seen.set(JSON.stringify(parsed.walked), parsed.walked);
    } catch {
      // A line cut short by an interruption.
    }
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

/** The runner's side: requests.json and walked.json from the raw log, written once; the raw log is then removed. */
export function writeRequestLog(dir: string, run: RunValues): void {
  const raw = join(dir, REQUEST_LOG_FILE);
  const text = existsSync(raw) ? readFileSync(raw, 'utf8') : '';
  writeFileSync(join(dir, 'requests.json'), JSON.stringify(normaliseRequestLog(text, run), null, 1) + '\n');
  writeFileSync(join(dir, WALKED_FILE), JSON.stringify(walkedRecords(text), null, 1) + '\n');
  rmSync(raw, { force: true });
}
