import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../cli-errors.ts';
import { WALKED_FILE, type LoggedRequest, type WalkedRecord } from '../report/request-log.ts';

// requests.json and walked.json of a merged run: each shard's, one after another in shard order.
// Each shard numbered the ids its target assigned from <id1>; the merge numbers them on, so one
// placeholder never stands for two ids, and two merges of one seed's shards compare equal.

const ID = /<id(\d+)>/g;

function readList<T>(file: string): T[] | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(value) ? (value as T[]) : undefined;
  } catch {
    return undefined;
  }
}

/** An entry of a shard's requests.json a merge can carry (a hand-edited file may hold anything). */
const isRequest = (r: unknown): r is LoggedRequest => typeof r === 'object' && r !== null && typeof (r as { path?: unknown }).path === 'string';

/** Every shard's requests, its id placeholders shifted past the previous shards'. */
export function mergeRequestLists(lists: readonly LoggedRequest[][]): LoggedRequest[] {
  const out: LoggedRequest[] = [];
  let offset = 0;
  for (const list of lists) {
    let highest = 0;
    const shift = (text: string) =>
      text.replace(ID, (_, n: string) => {
        highest = Math.max(highest, Number(n));
        return `<id${Number(n) + offset}>`;
      });
    for (const r of list) out.push({ ...r, path: shift(r.path), ...(r.body !== undefined ? { body: shift(r.body) } : {}) });
    offset += highest;
  }
  return out;
}

/** Every walk once, in the stable order a run writes them (src/report/request-log.ts). */
export function mergeWalked(lists: readonly WalkedRecord[][]): WalkedRecord[] {
  const seen = new Map<string, WalkedRecord>();
  for (const r of lists.flat()) seen.set(JSON.stringify(r), r);
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

/**
 * Writes the merged requests.json and walked.json into `out`; returns the shard folders that had
 * no requests.json (a shard stopped before it could write one), which the merge names.
 */
export function writeMergedRequests(dirs: readonly string[], out: string): string[] {
  const requests = dirs.map((d) => readList<LoggedRequest>(join(d, 'requests.json'))?.filter(isRequest).map(({ body, ...r }) => (typeof body === 'string' ? { ...r, body } : r)));
  const missing = dirs.filter((_, i) => requests[i] === undefined);
  try {
    writeFileSync(join(out, 'requests.json'), JSON.stringify(mergeRequestLists(requests.map((r) => r ?? [])), null, 1) + '\n');
    writeFileSync(join(out, WALKED_FILE), JSON.stringify(mergeWalked(dirs.map((d) => readList<WalkedRecord>(join(d, WALKED_FILE)) ?? [])), null, 1) + '\n');
  } catch (error) {
    throw new UsageError(`merge: --reports ${out}: cannot write requests.json (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return missing;
}
