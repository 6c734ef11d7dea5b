import type { Channel, Delivery, ScriptedResponse, SuccessBody, WaitForOptions } from './types.ts';

interface Planned {
  status: number;
  delayMs: number;
}

interface Waiter {
  /** Re-evaluates after a new delivery on the channel. */
  poke(): void;
  /** Rejects: the receiver closed. */
  abort(reason: string): void;
}

/** Insert keeping seq order (deliveries are recorded when complete, which can be out of arrival order). */
export function insertBySeq(list: Delivery[], d: Delivery): void {
  let i = list.length;
  while (i > 0 && (list[i - 1] as Delivery).seq > d.seq) i--;
  list.splice(i, 0, d);
}

function checkStatus(status: unknown, what: string): number {
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
    throw new RangeError(`${what}: status must be an integer 200–599, got ${String(status)}`);
  }
  return status;
}

/** Short, secret-free summary of one delivery for error messages. */
export function summarise(d: Delivery): string {
  const v = d.violations.length > 0 ? ` [${d.violations.join('; ')}]` : '';
  const a = d.aborted ? ' (aborted)' : '';
  return `#${d.seq} ${d.method || '(malformed)'} ${d.bodyBytes} B → ${d.response.status}${a}${v}`;
}

export class ChannelState implements Channel {
  readonly id: string;
  readonly label: string | undefined;
  readonly url: string;
  /** Requests that arrived but are not recorded yet (body still coming, or being inflated). */
  inflight = 0;
  private readonly list: Delivery[] = [];
  private readonly waiters = new Set<Waiter>();
  private slot = 0;
  private plan: { statuses: ScriptedResponse[]; then: number; base: number } = { statuses: [], then: 200, base: 0 };
  private decider: ((d: Delivery) => number | undefined) | undefined;
  successBody: SuccessBody = 'json';

  constructor(id: string, label: string | undefined, url: string) {
    this.id = id;
    this.label = label;
    this.url = url;
  }

  script(statuses: Array<number | { status: number; delayMs?: number }>, then = 200): void {
    const copy = statuses.map((s, i): ScriptedResponse => {
      if (typeof s === 'number') return checkStatus(s, `script[${i}]`);
      const delayMs = s.delayMs ?? 0;
      if (!Number.isFinite(delayMs) || delayMs < 0) throw new RangeError(`script[${i}]: delayMs must be ≥ 0`);
      return { status: checkStatus(s.status, `script[${i}]`), delayMs };
    });
    this.plan = { statuses: copy, then: checkStatus(then, 'script then'), base: this.slot };
  }

  answerBy(decide: ((d: Delivery) => number | undefined) | undefined): void {
    this.decider = decide;
  }

  /** The content's answer, when answerBy set a decider and it gives one; called once the body is read. */
  decide(d: Delivery): number | undefined {
    const status = this.decider?.(d);
    return status === undefined ? undefined : checkStatus(status, 'answerBy');
  }

  answerWith(body: SuccessBody): void {
    this.successBody = body;
  }

  /** Takes the next place in the script; called when a request arrives. */
  take(): Planned {
    const entry = this.plan.statuses[this.slot - this.plan.base];
    this.slot++;
    if (entry === undefined) return { status: this.plan.then, delayMs: 0 };
    if (typeof entry === 'number') return { status: entry, delayMs: 0 };
    return { status: entry.status, delayMs: entry.delayMs ?? 0 };
  }

  deliveries(): Delivery[] {
    return this.list.slice();
  }

  record(d: Delivery): void {
    insertBySeq(this.list, d);
    for (const w of [...this.waiters]) w.poke();
  }

  abortWaiters(reason: string): void {
    for (const w of [...this.waiters]) w.abort(reason);
  }

  waitFor(predicate: (ds: Delivery[]) => boolean, opts: WaitForOptions): Promise<Delivery[]> {
    const { timeoutMs } = opts;
    const quietMs = opts.quietMs ?? 0;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) return Promise.reject(new RangeError('waitFor: timeoutMs must be a finite number ≥ 0'));
    if (!Number.isFinite(quietMs) || quietMs < 0) return Promise.reject(new RangeError('waitFor: quietMs must be a finite number ≥ 0'));
    return new Promise<Delivery[]>((resolve, reject) => {
      const started = Date.now();
      let quietTimer: NodeJS.Timeout | undefined;
      let held = false;
      let lastThrown: unknown;
      const settle = (): void => {
        clearTimeout(timeout);
        clearTimeout(quietTimer);
        this.waiters.delete(waiter);
      };
      const evaluate = (): void => {
        clearTimeout(quietTimer);
        quietTimer = undefined;
        const ds = this.list.slice();
        try {
          held = Boolean(predicate(ds));
          lastThrown = undefined;
        } catch (err) {
          held = false;
          lastThrown = err;
        }
        if (!held) return;
        if (quietMs === 0) {
          settle();
          resolve(ds);
        } else {
          quietTimer = setTimeout(() => {
            settle();
            resolve(this.list.slice());
          }, quietMs);
        }
      };
      const waiter: Waiter = {
        poke: evaluate,
        abort: (reason) => {
          settle();
          reject(new Error(`waitFor on ${this.describe()}: ${reason} after ${Date.now() - started} ms`));
        },
      };
      const timeout = setTimeout(() => {
        settle();
        reject(new Error(this.timeoutMessage(timeoutMs, quietMs, held, lastThrown)));
      }, timeoutMs);
      this.waiters.add(waiter);
      evaluate();
    });
  }

  private describe(): string {
    return this.label === undefined ? `channel ${this.id}` : `channel "${this.label}" (${this.id})`;
  }

  private timeoutMessage(timeoutMs: number, quietMs: number, held: boolean, thrown: unknown): string {
    const ds = this.list;
    const why = held
      ? `the predicate held, but deliveries kept arriving within ${quietMs} ms of each other`
      : thrown !== undefined
        ? `the predicate threw: ${thrown instanceof Error ? thrown.message : String(thrown)}`
        : 'the predicate never held';
    const lines = [`waitFor on ${this.describe()} timed out after ${timeoutMs} ms: ${why}.`];
    lines.push(`${ds.length} deliveries recorded${this.inflight > 0 ? `, ${this.inflight} still arriving` : ''}.`);
    const shown = ds.slice(-10);
    if (shown.length < ds.length) lines.push(`  … ${ds.length - shown.length} earlier deliveries not shown`);
    for (const d of shown) lines.push(`  ${summarise(d)}`);
    return lines.join('\n');
  }
}
