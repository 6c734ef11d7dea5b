import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../cli-errors.ts';
import { SourceDb } from './database.ts';
import { startEmbeddedSourceDb, type EmbeddedSourceDb } from './embedded.ts';
import { parsePublicHost, parseSourceDbUrl } from './url.ts';

// The runner's side of the source database: the flags read before anything starts (a bad URL is
// exit 2), the embedded one started in parallel with the rest of the run when the webhook checks
// need it, and the end: the run's tables dropped, the embedded server stopped and its files
// removed (also on interrupt).

export interface RunSourceDb {
  url: string;
  publicHost?: string | undefined;
  embedded: boolean;
  /** Spellings of the password to redact (decoded and as written in the URL). */
  secrets: string[];
  /** Drops this run's tables (a --source-db) and stops the embedded server; bounded in time, never throws. */
  finish(runId: string): Promise<void>;
  /** The same, synchronously (an interrupt's handler): a --source-db's tables dropped by a child process waited for; the embedded server stopped and its files removed. */
  finishSync(runId: string): void;
  /** Why a --source-db does not answer (one line naming host:port), or undefined when it does; bounded in time. */
  problem(): Promise<string | undefined>;
}

/** How long the end may take: an interrupted run must still exit. */
const FINISH_MS = 5000;

/**
 * How long a run waits for its source database to answer (the embedded one to start, a failed
 * connection to be retried): a tenth of --max-duration, at least 30 s and at most 5 min. A fixed
 * 30 s was missed on a saturated machine and turned every webhook check into an error.
 */
export function sourceDbWaitMs(maxDurationMs: number): number {
  return Math.min(5 * 60_000, Math.max(30_000, Math.round(maxDurationMs / 10)));
}

/**
 * needed: the run uses a source database (webhook checks selected, or the profile names it): the
 * embedded one then starts now, in parallel with the rest of the run.
 */
export async function openRunSourceDb(o: {
  url?: string | undefined; urlLabel: string; publicHost?: string | undefined; publicHostLabel: string; needed: boolean;
  /** How long the embedded database may take to start (sourceDbWaitMs). */
  waitMs: number;
  /** A line about the embedded database (its native server failed: PGlite instead). */
  onNote?: (line: string) => void;
}): Promise<RunSourceDb | undefined> {
  if (o.publicHost !== undefined) parsePublicHost(o.publicHost, o.publicHostLabel);
  if (o.url !== undefined) {
    const parsed = parseSourceDbUrl(o.url, o.urlLabel);
    const written = /^[^:]+:\/\/[^:@/]*:([^@/]*)@/.exec(o.url.trim())?.[1];
    return {
      url: parsed.url,
      publicHost: o.publicHost,
      embedded: false,
      secrets: [parsed.password, ...(written ? [written] : [])].filter((s) => s !== ''),
      problem: async () => {
        const db = new SourceDb(parsed.url, 'check', undefined, { connectTimeoutMs: FINISH_MS });
        try {
          await db.ping();
          return undefined;
        } catch (error) {
          return (error as Error).message;
        } finally {
          await db.close();
        }
      },
      finishSync: (runId) => {
        const script = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './drop-run-tables.ts' : './drop-run-tables.js', import.meta.url));
        spawnSync(process.execPath, [script], { env: { ...process.env, DSSC_DROP_SOURCE_DB: parsed.url, DSSC_DROP_RUN_ID: runId }, stdio: 'ignore', timeout: FINISH_MS });
      },
      finish: (runId) => bounded(async () => {
        const db = new SourceDb(parsed.url, runId);
        try {
          await db.dropRunTables();
        } finally {
          await db.close();
        }
      }),
    };
  }
  if (!o.needed) return undefined;
  let embedded: EmbeddedSourceDb;
  try {
    embedded = await startEmbeddedSourceDb({ startTimeoutMs: o.waitMs, onNote: o.onNote });
  } catch (error) {
    throw new UsageError(`the embedded source database could not listen on the loopback (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const password = parseSourceDbUrl(embedded.url).password;
  return { url: embedded.url, publicHost: o.publicHost, embedded: true, secrets: [password], finish: () => bounded(() => embedded.close()), finishSync: () => embedded.closeSync(), problem: async () => undefined };
}

async function bounded(work: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, FINISH_MS)))]);
  clearTimeout(timer);
}
