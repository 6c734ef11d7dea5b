/** Documented exit codes of every dss-conformance command (README › Exit codes). */
export const EXIT = {
  ok: 0,
  checkFailed: 1,
  usage: 2,
  unreachable: 3,
  incomplete: 4,
} as const;

/** A mistake in flags, a profile or an adapter: printed as one line, exit 2, never a stack trace. */
export class UsageError extends Error {
  readonly exitCode: number = EXIT.usage;
}

/** The target could not be reached or answered garbage before any check ran: exit 3. */
export class UnreachableError extends Error {
  readonly exitCode: number = EXIT.unreachable;
}

/**
 * Parses a flag value that must be a non-negative integer within bounds. label names where the
 * value came from (--seed, DSS_SEED, config FILE: seed), so the line points at what to fix.
 */
export function parseIntFlag(name: string, raw: string | undefined, min: number, max: number, label = `--${name}`): number | undefined {
  if (raw === undefined) return undefined;
  const range = `between ${min} and ${max}`;
  if (/^\s*-\d+\s*$/.test(raw)) throw new UsageError(`${label} must be ${range} (not negative), got ${raw.trim()}`);
  if (!/^\d+$/.test(raw)) throw new UsageError(`${label} must be an integer, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new UsageError(`${label} must be ${range}, got ${raw}`);
  return value;
}
