import { UsageError } from '../cli-errors.ts';

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
