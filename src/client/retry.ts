// What to do about a 429. The waits are bounded three ways: by the retry count, by the longest
// Retry-After the operator accepts (a target asking for an hour gets no hour), and by the run's
// deadline, so a hostile or overloaded target cannot stretch a run past its budget.

export const MAX_429_RETRIES = 3;
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;
/** Waits when a 429 names no Retry-After: short, since the target gave no hint. */
const BACKOFF_MS = [250, 500, 1000] as const;

export type After429 =
  | { retry: true; waitMs: number }
  | { retry: false; kind: 'throttled' | 'deadline'; reason: string };

/** The wait a Retry-After value asks for (delay-seconds or an HTTP date), or undefined when it is absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date has a day or month name; Date.parse alone would take "-1" for a year.
  const date = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isFinite(date) ? Math.max(date - now, 0) : undefined;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * After `attempts` requests that all got 429, the last one with this Retry-After: wait and retry,
 * or give up with the reason.
 */
export function after429(
  retryAfter: string | undefined,
  attempts: number,
  limits: { maxRetryAfterMs: number; deadline?: number | undefined },
  now = Date.now(),
): After429 {
  const asked = retryAfterMs(retryAfter, now);
  const tooLong = asked !== undefined && asked > limits.maxRetryAfterMs;
  if (tooLong || attempts > MAX_429_RETRIES) {
    const why = tooLong ? ` (Retry-After ${seconds(asked)} exceeds the ${seconds(limits.maxRetryAfterMs)} cap)` : '';
    return { retry: false, kind: 'throttled', reason: `throttled: still 429 after ${attempts} attempt${attempts === 1 ? '' : 's'}${why}` };
  }
  const waitMs = asked ?? BACKOFF_MS[Math.min(attempts, BACKOFF_MS.length) - 1] ?? 1000;
  if (limits.deadline !== undefined && now + waitMs >= limits.deadline) {
    return { retry: false, kind: 'deadline', reason: `run time budget exhausted (a 429 asked for a ${seconds(waitMs)} wait that would pass the run's deadline)` };
  }
  return { retry: true, waitMs };
}
