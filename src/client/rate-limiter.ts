// Bounds the request rate against shared endpoints (staging). A sliding window rather than a token
// bucket: a full bucket plus its refill let 2N requests through in one second, and an operator's
// --max-rps N must hold in every 1000 ms window, the first one included. One per process, because
// every check shares the target.
//
// A request counts from the moment it goes on the wire (Start.sent), not from its admission:
// the first requests wait for their connections while later ones reuse them, and counting
// admissions would let both groups reach the target in the same second. Until then it counts as
// in the window whatever its age, so capacity is never handed out twice.

const WINDOW_MS = 1000;
/**
 * A start leaves the window this much later than 1000 ms: what the limiter sees as the moment of
 * sending and what the target sees as the moment of arrival differ by socket and scheduling
 * jitter, and the bound must hold at the target.
 */
const GUARD_MS = 60;

/** An admitted request: say when it goes out, or that it never will. */
export interface Start {
  /** The request is being written now; it counts in the window from this moment. Idempotent. */
  sent(): void;
  /** The request was not sent after all; its place is freed. A no-op after sent(). */
  cancel(): void;
}

export class RateLimiter {
  private static instance: RateLimiter | undefined;
  private readonly rps: number;
  private readonly limit: number;
  /** When admitted requests went out (performance.now()), ascending; only the last window's. */
  private readonly sentAt: number[] = [];
  /** Admitted requests not yet sent nor cancelled. */
  private pending = 0;
  private wake: (() => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(rps: number) {
    this.rps = rps;
    // The CLI only passes whole numbers; a fraction must still let requests through.
    this.limit = Math.max(1, Math.floor(rps));
  }

  static shared(rps: number): RateLimiter {
    if (!RateLimiter.instance || RateLimiter.instance.rps !== rps) RateLimiter.instance = new RateLimiter(rps);
    return RateLimiter.instance;
  }

  /** Forgets the shared limiter, so a test starts from an empty window. */
  static resetShared(): void {
    RateLimiter.instance = undefined;
  }

  /** Resolves when one more request may start; callers are served in the order they asked. */
  take(): Promise<Start> {
    const turn = this.queue.then(() => this.admit());
    // A rejected turn must not wedge the callers behind it.
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async admit(): Promise<Start> {
    for (;;) {
      const now = performance.now();
      while (this.sentAt.length > 0 && now - (this.sentAt[0] ?? now) > WINDOW_MS + GUARD_MS) this.sentAt.shift();
      if (this.pending + this.sentAt.length < this.limit) break;
      // Full: wait until the oldest start leaves the window. With none sent yet, only a send can
      // change anything (it starts the clock), so wait for that.
      const oldest = this.sentAt[0];
      await this.pause(oldest === undefined ? undefined : oldest + WINDOW_MS + GUARD_MS - now);
    }
    this.pending += 1;
    let open = true;
    const settle = (sent: boolean) => {
      if (!open) return;
      open = false;
      this.pending -= 1;
      // performance.now() is never below an earlier entry, so sentAt stays sorted.
      if (sent) this.sentAt.push(performance.now());
      this.wake?.();
    };
    return { sent: () => settle(true), cancel: () => settle(false) };
  }

  /** Sleeps ms (undefined: indefinitely), or until a request is sent or cancelled. */
  private pause(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      // +1: timers may fire a little early relative to performance.now(); the loop re-checks anyway.
      const timer = ms === undefined ? undefined : setTimeout(() => done(), Math.max(1, Math.ceil(ms) + 1));
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
    });
  }
}
