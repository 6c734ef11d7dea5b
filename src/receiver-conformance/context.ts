import { buildDelivery, type BuildDeliveryOptions, type BuiltDelivery, type Fields } from '../deliveries/build.ts';
import { checkSeed } from '../runner/settings.ts';
import { NoAnswer, excerpt, type Answer, type Sender } from './http.ts';
import { Skip, Unjudgeable, type CheckContext, type Exchange, type ReceiverTarget } from './registry.ts';

// What the checks of one receiver run share: the sender, every exchange (RCV-010 judges them
// all), the run's record counter (every record of a run is new) and the bounds.

/** An answer later than the bound is still waited for this many times the bound, so other checks can judge it. */
export const WAIT_FACTOR = 3;

/** After this many deliveries in a row got no answer in time, the receiver is taken as stopped. */
const STOPPED_AFTER = 3;

export interface RunState {
  target: ReceiverTarget;
  sender: Sender;
  runId: string;
  seed: number;
  numRuns: number;
  /** Epoch ms when the --max-duration budget ends. */
  deadline: number;
  exchanges: Exchange[];
  counter: number;
  timeoutsInRow: number;
  /** Told what the run waits for (the heartbeat says it during a long wait); undefined when the wait is over. */
  onWait?: ((wait: { what: string; boundMs?: number } | undefined) => void) | undefined;
}

export function contextFor(state: RunState, id: string, notes: string[]): CheckContext {
  const { target } = state;
  const waitMs = () => {
    const left = state.deadline - Date.now();
    if (left <= 0) throw new NoAnswer('run time budget exhausted (--max-duration)', 'deadline', 0);
    return Math.min(WAIT_FACTOR * target.responseTimeoutMs, left);
  };
  /** Sends one delivery, or several at once, and keeps each exchange (RCV-010 judges them); a failure to answer is a NoAnswer naming its label. */
  const exchange = async (labels: string[], post: (timeoutMs: number) => Promise<PromiseSettledResult<Answer>[]>): Promise<PromiseSettledResult<Answer>[]> => {
    if (state.timeoutsInRow >= STOPPED_AFTER) throw new NoAnswer(`the receiver stopped answering (${STOPPED_AFTER} deliveries in a row got no answer)`, 'stopped', 0);
    const timeoutMs = waitMs();
    state.onWait?.({ what: `the receiver's answer to ${labels.join(' and ')}`, boundMs: timeoutMs });
    const settled = await post(timeoutMs);
    state.onWait?.(undefined);
    return settled.map((result, i): PromiseSettledResult<Answer> => {
      const label = labels[i]!;
      if (result.status === 'fulfilled') {
        state.timeoutsInRow = 0;
        state.exchanges.push({ check: id, label, ms: result.value.ms, status: result.value.status });
        return result;
      }
      const error: unknown = result.reason;
      if (!(error instanceof NoAnswer)) return result;
      const timedOut = error.kind === 'timeout' && timeoutMs === WAIT_FACTOR * target.responseTimeoutMs;
      if (timedOut) state.timeoutsInRow += 1;
      state.exchanges.push({ check: id, label, ms: error.ms, error: error.message, timedOut });
      return { status: 'rejected', reason: new NoAnswer(`${label}: ${error.message}`, error.kind, error.ms) };
    });
  };
  const records = (n: number, extra: Fields = {}): Fields[] => Array.from({ length: n }, () => ({ dssc_run: state.runId, dssc_n: ++state.counter, ...extra }));
  return {
    target,
    runId: state.runId,
    seed: checkSeed(state.seed, id),
    numRuns: state.numRuns,
    records,
    delivery: (o: Partial<BuildDeliveryOptions> = {}): BuiltDelivery =>
      buildDelivery({ syncId: `dssc-${state.runId}`, syncName: `dssc-${state.runId} receiver check`, ...o, secret: o.secret ?? target.secret, records: o.records ?? records(1) }),
    send: async (label, delivery) => {
      const [settled] = await exchange([label], (timeoutMs) => state.sender.postTogether(target.url, [delivery], timeoutMs));
      if (settled!.status === 'rejected') throw settled!.reason;
      return settled!.value;
    },
    sendTogether: (labels, delivery) => exchange(labels, (timeoutMs) => state.sender.postTogether(target.url, labels.map(() => delivery), timeoutMs)),
    exchanges: () => state.exchanges,
    async processedAfter(awaited, why) {
      if (!target.inspectUrl) throw new Skip(`not observable without an inspection endpoint (profile inspectUrl, --inspect-url): ${why}`);
      const until = Date.now() + target.responseTimeoutMs;
      for (let attempt = 0; ; attempt++) {
        const listed = await inspect(state, waitMs());
        const seen = new Set(listed);
        if (awaited.every((h) => seen.has(h))) return listed;
        // Waits for the state it needs (the receiver may process after answering), bounded.
        if (Date.now() > until) throw new Skip(`precondition not met: the inspection endpoint did not list the records of a delivery answered 200 within ${target.responseTimeoutMs} ms, so it cannot show ${why}`);
        await new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 500)));
      }
    },
    note: (text) => void notes.push(text),
  };
}

/** GET inspectUrl: {"processed": [hash, ...]}; anything else is unjudgeable, said in one line. */
async function inspect(state: RunState, timeoutMs: number): Promise<string[]> {
  const url = state.target.inspectUrl!;
  let answer: Answer;
  try {
    answer = await state.sender.get(url, timeoutMs);
  } catch (error) {
    throw new Unjudgeable(`the inspection endpoint: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    json = undefined;
  }
  const list = (json as { processed?: unknown } | undefined)?.processed;
  if (answer.status !== 200 || !Array.isArray(list)) {
    throw new Unjudgeable(`the inspection endpoint answered ${answer.status} ${excerpt(answer.body)}, not 200 with {"processed": [hash, ...]}`);
  }
  // A record processed without a string hash is listed as something else: it cannot be one of ours.
  return list.filter((h): h is string => typeof h === 'string');
}

/** A field of every JSON value type (RCV-001). */
export const EVERY_TYPE: Fields = { text: 'plain text', integer: 42, float: 1.5, boolean: true, nothing: null, object: { nested: { deeper: [1, 'two'] } }, array: [1, 'x', null, false, { k: 'v' }] };
