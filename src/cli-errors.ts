import { readFileSync } from 'node:fs';

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

/** A JSON file the user named (profile, config, baseline, results): any problem reading it is one UsageError line, `<label>: <why>`. */
export function readJsonFile(file: string, label: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e instanceof SyntaxError ? `not JSON (${withoutSnippet(e.message)})` : e.message;
    throw new UsageError(`${label}: ${why}`);
  }
}

/**
 * V8's JSON error quotes the file's text ("Unexpected token 's', "sk_live_01"... is not valid
 * JSON"): a key file given by mistake as a profile would have its key printed. The quote is left out.
 */
export function withoutSnippet(message: string): string {
  return message.replace(/, (?:\.\.\.)?"[^]*"(?:\.\.\.)? is not valid JSON$/, '');
}
