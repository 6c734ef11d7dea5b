import { UsageError } from '../cli-errors.ts';

// A span of time as a person writes it in a flag: seconds, or a number with s, m, h or d
// (run --max-duration, cleanup --older-than).

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds, or undefined when not given; out of [minMs, maxMs] or malformed is one UsageError line. */
export function parseDuration(raw: string | undefined, label: string, bounds: { minMs: number; maxMs: number } = { minMs: 1000, maxMs: 7 * 24 * 3_600_000 }): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d+)(s|m|h|d)?$/.exec(raw.trim());
  if (!m) throw new UsageError(`${label} must be seconds or a number with s, m, h or d (90s, 30m, 1h, 1d), got ${JSON.stringify(raw)}`);
  const ms = Number(m[1]) * UNIT_MS[(m[2] ?? 's') as keyof typeof UNIT_MS];
  if (ms < bounds.minMs || ms > bounds.maxMs) throw new UsageError(`${label} must be between ${spoken(bounds.minMs)} and ${spoken(bounds.maxMs)}, got ${raw}`);
  return ms;
}

/** 1 s, 7 days: for the bounds in messages. */
export function spoken(ms: number): string {
  if (ms % 86_400_000 === 0 && ms > 0) return `${ms / 86_400_000} day${ms === 86_400_000 ? '' : 's'}`;
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}
