import { ownCopy, reparse } from './body.ts';
import type { Delivery } from './types.ts';

/** Bytes of a body kept for a request on an unknown path: enough to see what it was. */
export const UNKNOWN_PATH_PREFIX = 4096;

export interface KeepLimits {
  /** Body bytes (raw and inflated) kept over all deliveries. */
  maxKeptBytes: number;
  /** Requests on no channel (unknown paths, malformed bytes, CONNECT) kept as records. */
  maxJunkRecords: number;
  /** The gunzip cap, for parsing a kept body again. */
  maxInflatedBytes: number;
}

/**
 * Bounds what the receiver holds whatever a sender does; nothing that arrived goes unreported.
 *
 * - A delivery on a channel is always judged and listed. Its parsed JSON is never held: parsed,
 *   a body is several times its gzip bytes (a 2.8 KB delivery is ~30 KB of objects), so `json`
 *   parses the kept bytes again on each read, and what is kept is bytes only, under the cap.
 *   Past maxKeptBytes the body goes (`dropped`); bodyBytes, sha256, headers, violations and the
 *   answer stay.
 * - Junk (a request on no channel) keeps a 4 KiB prefix of its body, and past maxJunkRecords it
 *   is counted by kind instead of kept.
 */
export class Keeper {
  private readonly limits: KeepLimits;
  private keptBytes = 0;
  private junkKept = 0;
  /** Junk requests past maxJunkRecords, by kind. */
  private readonly counted = new Map<string, number>();

  constructor(limits: KeepLimits) {
    this.limits = limits;
  }

  /** False for junk past the count cap: counted under `kind`, and not to be recorded. */
  admitJunk(kind: string): boolean {
    if (this.junkKept < this.limits.maxJunkRecords) {
      this.junkKept++;
      return true;
    }
    this.counted.set(kind, (this.counted.get(kind) ?? 0) + 1);
    return false;
  }

  notKept(): Record<string, number> {
    return Object.fromEntries(this.counted);
  }

  /** Applies the caps to a delivery about to be listed. */
  keep(d: Delivery, onChannel: boolean): void {
    if (!onChannel) {
      if (d.body.length > UNKNOWN_PATH_PREFIX) d.body = ownCopy([d.body], UNKNOWN_PATH_PREFIX);
      delete d.inflated;
      if (d.bodyBytes > UNKNOWN_PATH_PREFIX) delete d.json;
    }
    const size = d.body.length + (d.inflated?.length ?? 0);
    if (this.keptBytes + size > this.limits.maxKeptBytes) {
      d.body = Buffer.alloc(0);
      delete d.inflated;
      delete d.json;
      d.dropped = true;
      return;
    }
    this.keptBytes += size;
    if (d.json !== undefined) parseOnRead(d, this.limits.maxInflatedBytes);
  }
}

/**
 * Replaces the parsed JSON by a getter that parses the kept bytes again. Assigning `json` (a
 * streaming verifier that lets it go) turns it back into a plain value.
 */
function parseOnRead(d: Delivery, maxInflatedBytes: number): void {
  Object.defineProperty(d, 'json', {
    enumerable: true,
    configurable: true,
    get(this: Delivery): unknown {
      return reparse(this.body, this.inflated, maxInflatedBytes);
    },
    set(this: Delivery, value: unknown): void {
      Object.defineProperty(this, 'json', { value, writable: true, enumerable: true, configurable: true });
    },
  });
}
