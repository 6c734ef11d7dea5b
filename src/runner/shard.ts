import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../cli-errors.ts';
import { ERROR_ANSWERS_FILE, type ErrorAnswer } from '../report/error-answers.ts';
import type { EventLog } from '../report/events.ts';

/** --shard I/N: 1 <= I <= N <= the number of spec files (vitest shards files, not checks). */
export function parseShard(raw: string | undefined, label: string, files: number): { index: number; count: number } | undefined {
  if (raw === undefined) return undefined;
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw);
  if (!m) throw new UsageError(`${label} must be I/N (slice I of N, e.g. 2/3), got ${JSON.stringify(raw)}`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) throw new UsageError(`${label} ${raw}: I must be between 1 and N`);
  if (count > files) throw new UsageError(`${label} ${raw}: at most ${files} shards (one per spec file)`);
  return { index, count };
}

/**
 * The error answers the pass's worker appended to its file become events of the stream (the log
 * redacts each as it writes it); the file is then removed, so the next pass starts empty.
 */
export function collectErrorAnswers(dir: string, log: EventLog): void {
  const file = join(dir, ERROR_ANSWERS_FILE);
  if (!existsSync(file)) return;
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      log.emit({ type: 'error-answer', answer: JSON.parse(line) as ErrorAnswer });
    } catch {
      // A line cut short by an interruption while the worker was writing it.
    }
  }
  rmSync(file, { force: true });
}
