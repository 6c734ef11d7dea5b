// Bounds the request rate against shared endpoints (staging); a token bucket with a burst of one
// second's worth of requests. One per process, because every check shares the target.
export class RateLimiter {
  private static instance: RateLimiter | undefined;
  private tokens: number;
  private last = performance.now();
  private queue: Promise<void> = Promise.resolve();
  private readonly rps: number;

  constructor(rps: number) {
    this.rps = rps;
    this.tokens = rps;
  }

  static shared(rps: number): RateLimiter {
    if (!RateLimiter.instance || RateLimiter.instance.rps !== rps) RateLimiter.instance = new RateLimiter(rps);
    return RateLimiter.instance;
  }

  take(): Promise<void> {
    // Chained so concurrent callers are served in order.
    this.queue = this.queue.then(async () => {
      const now = performance.now();
      this.tokens = Math.min(this.rps, this.tokens + ((now - this.last) / 1000) * this.rps);
      this.last = now;
      if (this.tokens < 1) {
        await new Promise((r) => setTimeout(r, ((1 - this.tokens) / this.rps) * 1000));
        this.tokens = 1;
        this.last = performance.now();
      }
      this.tokens -= 1;
    });
    return this.queue;
  }
}
