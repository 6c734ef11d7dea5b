import { retryAfterMs } from '../client/retry.ts';
import type { AdapterResponse, PollSettings } from './types.ts';

// Starting and waiting for a run of the real service (and the reference): the 409 that refuses a
// start while a run is under way, polling that backs off and follows Retry-After, and the target's
// words for the run's states (the profile's adapter.declarative.statuses).

/** A target's words for a run's states, by what they mean to the suite. */
export interface RunStatuses {
  inProgress: readonly string[];
  completed: readonly string[];
  failed: readonly string[];
  canceled: readonly string[];
}

type Answer = Pick<AdapterResponse, 'status' | 'json'> & { headers?: Record<string, string> };

/** One try: done with a value, or not yet (why, and a wait the target asked for). */
type Attempt<T> = { done: true; value: T } | { done: false; why: string; waitMs?: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A 429 or 503 with a Retry-After asks to come back later: the wait it asks, else undefined. */
function askedWait(answer: Answer): number | undefined {
  if (answer.status !== 429 && answer.status !== 503) return undefined;
  return retryAfterMs(answer.headers?.['retry-after']);
}

/**
 * Tries at once, then after initialMs, doubling up to maxMs, until `attempt` is done or
 * timeoutMs has passed (then throws with `what` and the last reason). A wait the target asked
 * for is kept as asked; one that would pass the budget ends the wait at once.
 */
export async function withBackoff<T>(poll: PollSettings, what: string, attempt: () => Promise<Attempt<T>>): Promise<T> {
  const started = Date.now();
  const deadline = started + poll.timeoutMs;
  let delay = Math.max(poll.initialMs, 1);
  for (;;) {
    const result = await attempt();
    if (result.done) return result.value;
    const now = Date.now();
    if (result.waitMs !== undefined && now + result.waitMs > deadline) {
      throw new Error(`${what}: ${result.why}, and Retry-After asks for ${result.waitMs} ms, past the ${poll.timeoutMs} ms budget`);
    }
    if (now >= deadline) throw new Error(`${what}: ${result.why} after ${now - started} ms (budget ${poll.timeoutMs} ms)`);
    const wait = result.waitMs ?? Math.min(delay, deadline - now);
    if (result.waitMs === undefined) delay = Math.min(delay * 2, Math.max(poll.maxMs, 1));
    await sleep(wait);
  }
}

function describe(answer: Answer): string {
  const message = (answer.json as { message?: unknown } | undefined)?.message;
  return `answered ${answer.status}${typeof message === 'string' && message ? ` (${message.split('\n')[0]!.slice(0, 200)})` : ''}`;
}

/** The answer when it is a success, else an error naming what was asked and what came back. */
export function successOf<A extends Answer>(answer: A, what: string): A {
  if (answer.status < 200 || answer.status >= 300) throw new Error(`${what} ${describe(answer)}`);
  return answer;
}

/**
 * Starts a run: a 409 (a run of this sync is under way) is tried again with backoff, a 429/503
 * after its Retry-After, within poll.timeoutMs; any other refusal is an error at once. Returns
 * the accepting answer.
 */
export async function startRunWaitingOutConflict<A extends Answer>(send: () => Promise<A>, poll: PollSettings, syncId: string): Promise<A> {
  return withBackoff(poll, `starting a run of sync ${syncId}`, async () => {
    const answer = await send();
    if (answer.status === 409) return { done: false, why: 'still refused with 409 (a run is under way)' };
    const waitMs = askedWait(answer);
    if (waitMs !== undefined) return { done: false, why: `answered ${answer.status}`, waitMs };
    return { done: true, value: successOf(answer, 'starting a run') };
  });
}

/**
 * Where a state stands: ended (and whether it failed), or under way. A word in none of the lists
 * is an error naming it: the run's outcome could not be judged.
 */
export function classifyStatus(status: unknown, statuses: RunStatuses, runId: string): { ended: false } | { ended: true; failed: boolean } {
  if (typeof status === 'string') {
    if (statuses.inProgress.includes(status)) return { ended: false };
    if (statuses.completed.includes(status)) return { ended: true, failed: false };
    if (statuses.failed.includes(status) || statuses.canceled.includes(status)) return { ended: true, failed: true };
  }
  const ends = [...statuses.completed, ...statuses.failed, ...statuses.canceled];
  throw new Error(`run ${runId} has status ${JSON.stringify(status)}, which is neither an end (${ends.join(', ')}) nor a state under way (${statuses.inProgress.join(', ')})`);
}

/**
 * Reads the run until `statusOf` its answer is an end state, and returns that answer with the
 * state. A 429/503 with Retry-After is waited as asked; any other non-success is an error.
 */
export async function pollRun<A extends Answer>(
  read: () => Promise<A>,
  poll: PollSettings,
  runId: string,
  statusOf: (answer: A) => unknown,
  statuses: RunStatuses,
): Promise<{ answer: A; status: string; failed: boolean }> {
  return withBackoff(poll, `run ${runId}`, async () => {
    const answer = await read();
    const waitMs = askedWait(answer);
    if (waitMs !== undefined) return { done: false, why: `reading it answered ${answer.status}`, waitMs };
    const status = statusOf(successOf(answer, 'reading a run'));
    const where = classifyStatus(status, statuses, runId);
    if (!where.ended) return { done: false, why: `still ${String(status)}` };
    return { done: true, value: { answer, status: status as string, failed: where.failed } };
  });
}
