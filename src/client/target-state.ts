// What the process has learnt about a target, shared by every ApiClient for the same base URL
// (clients are cheap copies made with with()). Once the target has stopped answering, or answers
// nothing but 429, each further request would only wait out its own timeout or retry budget and
// a run could take hours to reach the same verdict; later requests fail at once instead.

/** Consecutive outcomes after which the target is given up. */
export const GIVE_UP_AFTER = 3;

export type Blocked = { kind: 'stopped' | 'throttled'; reason: string };

export class TargetState {
  private timeouts = 0;
  private throttled = 0;

  /** Why no request should be sent any more, or undefined while the target is worth asking. */
  blocked(): Blocked | undefined {
    if (this.timeouts >= GIVE_UP_AFTER) return { kind: 'stopped', reason: `target stopped answering: ${this.timeouts} consecutive requests timed out` };
    if (this.throttled >= GIVE_UP_AFTER) return { kind: 'throttled', reason: `throttled: the target keeps answering 429 (${this.throttled} consecutive requests gave up)` };
    return undefined;
  }

  /** One attempt's outcome: any HTTP answer, even a 429, shows the target is there. */
  attempted(outcome: 'answered' | 'timeout' | 'failed'): void {
    this.timeouts = outcome === 'timeout' ? this.timeouts + 1 : 0;
  }

  /** How a whole send ended: only an unbroken run of throttled give-ups counts. */
  ended(outcome: 'throttled' | 'other'): void {
    this.throttled = outcome === 'throttled' ? this.throttled + 1 : 0;
  }
}

const byBaseUrl = new Map<string, TargetState>();

export function targetState(baseUrl: string): TargetState {
  const key = baseUrl.replace(/\/+$/, '');
  let state = byBaseUrl.get(key);
  if (!state) byBaseUrl.set(key, (state = new TargetState()));
  return state;
}

export function resetTargetStates(): void {
  byBaseUrl.clear();
}
