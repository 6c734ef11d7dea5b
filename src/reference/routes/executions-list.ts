import { fieldError } from '../errors.ts';
import type { SyncExecution } from '../store.ts';

// GET /api/syncs/{id}/executions in the real service's shape: newest first unless `ascending`,
// `only_completed` for ended runs only, and an opaque `page_token` to continue. The token names
// the last run of the page by its ordinal, which never changes, so a run started between two
// pages neither repeats an entry nor skips one.

/** Runs per page: the real service's page size is not documented. */
export const RUNS_PAGE_SIZE = 50;

interface Cursor {
  after: number;
  ascending: boolean;
  onlyCompleted: boolean;
}

const encode = (c: Cursor) => Buffer.from(JSON.stringify([c.after, c.ascending, c.onlyCompleted])).toString('base64url');

function decode(token: string): Cursor {
  try {
    const [after, ascending, onlyCompleted] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (Number.isInteger(after) && typeof ascending === 'boolean' && typeof onlyCompleted === 'boolean') return { after: after as number, ascending, onlyCompleted };
  } catch {
    // Falls through to the one refusal below.
  }
  throw fieldError('page_token', 'is not a token this list answered (pass pagination.next_page_token back unchanged)');
}

function flag(query: Record<string, unknown>, name: string): boolean | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw fieldError(name, 'must be true or false');
}

/**
 * One page of a sync's runs. A token carries the order and filter it was made under: given
 * with other query values it continues as it began (the real service says to pass it back
 * unchanged and nothing more).
 */
export function runsPage(runs: readonly SyncExecution[], query: Record<string, unknown>, ended: (run: SyncExecution) => boolean): { page: SyncExecution[]; next: string | undefined } {
  const token = query.page_token;
  if (token !== undefined && (typeof token !== 'string' || token === '')) throw fieldError('page_token', 'must be a non-empty string');
  const cursor: Cursor = token ? decode(token) : { after: 0, ascending: flag(query, 'ascending') ?? false, onlyCompleted: flag(query, 'only_completed') ?? false };
  const ordered = (cursor.ascending ? [...runs] : [...runs].reverse()).filter((run) => !cursor.onlyCompleted || ended(run));
  const rest = token ? ordered.filter((run) => (cursor.ascending ? run.ordinal > cursor.after : run.ordinal < cursor.after)) : ordered;
  const page = rest.slice(0, RUNS_PAGE_SIZE);
  const last = page.at(-1);
  return { page, next: rest.length > RUNS_PAGE_SIZE && last ? encode({ ...cursor, after: last.ordinal }) : undefined };
}
