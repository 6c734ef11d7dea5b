import { Agent, request } from 'undici';
import { classifyTransportError, type TransportErrorKind } from '../client/http-client.ts';
import { onSend } from '../client/on-send.ts';
import type { RateLimiter, Start } from '../client/rate-limiter.ts';
import type { BuiltDelivery } from '../deliveries/build.ts';

// The receiver checks' one way to the receiver under test: a POST of a built delivery, timed, its
// answer read up to a cap (a receiver cannot fill the kit's memory), redirects never followed (the
// secret never crosses to another origin).

/** What the receiver answered. */
export interface Answer {
  status: number;
  /** From the request going out to the answer's end. */
  ms: number;
  headers: Record<string, string>;
  /** The first ANSWER_CAP bytes of the body, as text. */
  body: string;
}

const ANSWER_CAP = 64 * 1024;
/**
 * The inspection endpoint lists every hash a long-lived harness has processed (67 bytes each):
 * 64 KiB would cut off a conforming one after ~1,000 records, and its checks could not be judged.
 */
const LISTING_CAP = 32 * 1024 * 1024;

/** No judgeable answer: refused, reset, not HTTP, no answer in time, the run's budget spent. */
export class NoAnswer extends Error {
  readonly kind: TransportErrorKind | 'stopped';
  readonly ms: number;
  constructor(message: string, kind: TransportErrorKind | 'stopped', ms: number) {
    super(message);
    this.kind = kind;
    this.ms = ms;
  }
}

export interface Sender {
  post(url: string, delivery: Pick<BuiltDelivery, 'headers' | 'body'>, timeoutMs: number): Promise<Answer>;
  /** Posts them all at the same moment (each settles as post would): admitted by the rate bound together, then sent. */
  postTogether(url: string, deliveries: Pick<BuiltDelivery, 'headers' | 'body'>[], timeoutMs: number): Promise<PromiseSettledResult<Answer>[]>;
  get(url: string, timeoutMs: number): Promise<Answer>;
  close(): Promise<void>;
}

export function createSender(limiter?: RateLimiter): Sender {
  // Keep-alive like the service; one connection at a time, as the checks send one after another.
  const agent = new Agent({ keepAliveTimeout: 4_000, connections: 4 });
  const send = async (url: string, method: 'POST' | 'GET', headers: Record<string, string>, body: Buffer | undefined, timeoutMs: number, cap = ANSWER_CAP, admitted?: Start): Promise<Answer> => {
    const start = admitted ?? (await limiter?.take());
    const started = performance.now();
    try {
      const res = await request(url, {
        method,
        headers,
        ...(body ? { body } : {}),
        dispatcher: start ? onSend(agent, start.sent) : agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        // Covers the body too: a receiver dripping bytes cannot hold a check for ever.
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await readCapped(res.body as unknown as AsyncIterable<Buffer> & { destroy(): void }, cap);
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      return { status: res.statusCode, ms: Math.round(performance.now() - started), headers: out, body: text };
    } catch (error) {
      const { kind, message } = classifyTransportError(error, timeoutMs);
      throw new NoAnswer(message.replace('the target', 'the receiver'), kind, Math.round(performance.now() - started));
    } finally {
      start?.cancel();
    }
  };
  return {
    post: (url, d, timeoutMs) => send(url, 'POST', d.headers, d.body, timeoutMs),
    postTogether: async (url, ds, timeoutMs) => {
      // Every admission first: taken one by one and sent at once, the second would trail the first
      // by the bound's spacing (50 ms at 20 per second), and the two would no longer overlap.
      const starts: Array<Start | undefined> = [];
      for (let i = 0; i < ds.length; i++) starts.push(await limiter?.take());
      return Promise.allSettled(ds.map((d, i) => send(url, 'POST', d.headers, d.body, timeoutMs, ANSWER_CAP, starts[i])));
    },
    get: (url, timeoutMs) => send(url, 'GET', { accept: 'application/json' }, undefined, timeoutMs, LISTING_CAP),
    // Destroyed, not closed: a receiver that never answered must not hold the run open.
    close: () => agent.destroy(),
  };
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, cap: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= cap) {
      body.destroy();
      break;
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, cap));
}

/** An answer body as one short line: what `send` prints and what a failure quotes. */
export function excerpt(body: string, max = 120): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}
