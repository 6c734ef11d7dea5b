// Caps the requests in flight per origin at the shared Agent's connection count. Without it, a
// request the rate limiter admits could wait in undici's queue behind a slow answer and leave
// together with later ones, so the target would see a burst the limiter never allowed; a target
// that holds its answers would turn --max-rps into nothing.

export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Resolves with a release function once a slot is free; callers are served in order. */
  async acquire(): Promise<() => void> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // A waiter inherits the slot directly, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    };
  }
}

const byOrigin = new Map<string, Slots>();

export function slotsFor(origin: string, size: number): Slots {
  let slots = byOrigin.get(origin);
  if (!slots) byOrigin.set(origin, (slots = new Slots(size)));
  return slots;
}

export function resetSlots(): void {
  byOrigin.clear();
}
