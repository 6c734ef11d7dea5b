import { retryAfterMs } from '../client/retry.ts';
import type { AdapterResponse, CapturedExchange, PollSettings, RunOutcome } from './types.ts';

// Starting and waiting for a run of the real service (and the reference): its run states, the 409
// that refuses a start while a run is under way, and polling that backs off and follows Retry-After.

/** The real service's run states that are not an end (UtilExecutionStatus). */
export const IN_PROGRESS_STATES: readonly string[] = ['created', 'scheduled', 'queued', 'waiting', 'running', 'processing', 'canceling'];
/** The end states: only 'completed' is a run that did not fail. */
export const TERMINAL_STATES: readonly string[] = ['completed', 'failed', 'canceled', 'interrupted'];

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

function dataOf(answer: Answer, what: string): Record<string, unknown> {
  const d = (answer.json as { data?: unknown } | undefined)?.data;
  if (answer.status < 200 || answer.status >= 300 || !d || typeof d !== 'object') throw new Error(`${what} ${describe(answer)}`);
  return d as Record<string, unknown>;
}

/**
 * Starts a run: a 409 (a run of this sync is under way) is tried again with backoff, a 429/503
 * after its Retry-After, within poll.timeoutMs; any other refusal is an error at once.
 */
export async function startRunWaitingOutConflict(send: () => Promise<Answer>, poll: PollSettings, syncId: string): Promise<Record<string, unknown>> {
  return withBackoff(poll, `starting a run of sync ${syncId}`, async () => {
    const answer = await send();
    if (answer.status === 409) return { done: false, why: 'still refused with 409 (a run is under way)' };
    const waitMs = askedWait(answer);
    if (waitMs !== undefined) return { done: false, why: `answered ${answer.status}`, waitMs };
    return { done: true, value: dataOf(answer, 'starting a run') };
  });
}

/**
 * Reads the run until it is in an end state, and returns it. A state that is neither an end nor a
 * known state under way is an error: its outcome could not be judged.
 */
export async function pollRun(read: () => Promise<Answer>, poll: PollSettings, runId: string): Promise<Record<string, unknown>> {
  return withBackoff(poll, `run ${runId}`, async () => {
    const answer = await read();
    const waitMs = askedWait(answer);
    if (waitMs !== undefined) return { done: false, why: `reading it answered ${answer.status}`, waitMs };
    const run = dataOf(answer, 'reading a run');
    const status = run.status;
    if (typeof status === 'string' && TERMINAL_STATES.includes(status)) return { done: true, value: run };
    if (typeof status === 'string' && IN_PROGRESS_STATES.includes(status)) return { done: false, why: `still ${status}` };
    throw new Error(`run ${runId} has status ${JSON.stringify(status)}, which is neither an end (${TERMINAL_STATES.join(', ')}) nor a state under way (${IN_PROGRESS_STATES.join(', ')})`);
  });
}

/** A message of the run's errors[] (strings, or objects with a message). */
function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  const m = (e as { message?: unknown; error?: unknown } | null)?.message ?? (e as { error?: unknown } | null)?.error;
  return typeof m === 'string' ? m : JSON.stringify(e);
}

/**
 * The outcome of a run in the real service's shape (counts.error, errors[]) or the reference's
 * (error, requests): failed unless completed; record errors from counts.error, else errors[].
 */
export function outcomeOf(run: Record<string, unknown>, captured: CapturedExchange[] | null): RunOutcome {
  const status = String(run.status);
  const errors = Array.isArray(run.errors) ? run.errors.map(errorText) : typeof run.error === 'string' && run.error ? [run.error] : [];
  const counted = (run.counts as { error?: unknown } | undefined)?.error;
  const recordErrors = typeof counted === 'number' ? counted : Array.isArray(run.errors) ? run.errors.length : 0;
  return { status, failed: status !== 'completed', recordErrors, errors, captured };
}
