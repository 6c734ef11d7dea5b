// During a wait nothing finishes, and a CI log that stays silent for minutes looks hung. When
// nothing has been reported for the interval (10 s), the heartbeat says what the run is waiting
// for and for how long, and says it again each interval until something finishes.

export interface Beat {
  waitingFor: string;
  elapsedMs: number;
  boundMs?: number | undefined;
}

/** The interval; DSSC_HEARTBEAT_MS shortens it (our own tests of the heartbeat). */
export function heartbeatInterval(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.DSSC_HEARTBEAT_MS);
  return Number.isInteger(n) && n >= 100 ? n : 10_000;
}

export class Heartbeat {
  private check: { title: string; since: number } | undefined;
  private wait: { what: string; since: number; boundMs?: number | undefined } | undefined;
  private quietSince = Date.now();
  private lastReport = Date.now();
  private timer: NodeJS.Timeout | undefined;

  private readonly intervalMs: number;
  private readonly beat: (b: Beat) => void;

  constructor(intervalMs: number, beat: (b: Beat) => void) {
    this.intervalMs = intervalMs;
    this.beat = beat;
  }

  start(): void {
    this.quietSince = this.lastReport = Date.now();
    this.timer = setInterval(() => this.tick(), Math.min(1000, Math.max(100, this.intervalMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** A check started. */
  started(title: string): void {
    this.check = { title, since: Date.now() };
    this.wait = undefined;
    this.quietSince = Date.now();
  }

  /** A check says what it waits for; undefined when that wait is over. */
  waiting(wait: { what: string; boundMs?: number } | undefined): void {
    this.wait = wait ? { ...wait, since: Date.now() } : undefined;
    // The wait's own time counts from now: a heartbeat comes one interval into it.
    if (wait) this.quietSince = Date.now();
  }

  /** Something was reported (a check finished): the quiet starts again. */
  reported(): void {
    this.quietSince = this.lastReport = Date.now();
    this.check = undefined;
    this.wait = undefined;
  }

  private tick(): void {
    const now = Date.now();
    if (now - this.quietSince < this.intervalMs) return;
    this.quietSince = now;
    if (this.wait) this.beat({ waitingFor: `${this.wait.what}${this.check ? ` (${this.check.title.split(' ')[0]})` : ''}`, elapsedMs: now - this.wait.since, boundMs: this.wait.boundMs });
    else if (this.check) this.beat({ waitingFor: `check ${this.check.title}`, elapsedMs: now - this.check.since });
    else this.beat({ waitingFor: 'the next check (setting up)', elapsedMs: now - this.lastReport });
  }
}
