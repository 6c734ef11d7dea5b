import { Agent, request, type Dispatcher } from 'undici';
import type { Redactor } from '../report/redact.ts';
import { onSend } from './on-send.ts';
import { RateLimiter, type Start } from './rate-limiter.ts';
import { after429, DEFAULT_MAX_RETRY_AFTER_MS } from './retry.ts';
import { resetSlots, slotsFor } from './slots.ts';
import { resetTargetStates, targetState, type TargetState } from './target-state.ts';
import { perRun } from '../run-state.ts';

export type BasicComposition = 'key-as-username' | 'key-as-password';
export type AuthMode = 'bearer' | 'basic' | 'none' | { authorization: string };

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  orgKey?: string | undefined;
  basic?: BasicComposition | undefined;
  /** Sent as X-Service-Version unless a request says otherwise; undefined sends no header. */
  version?: string | undefined;
  timeoutMs: number;
  maxRps?: number | undefined;
  redactor: Redactor;
  /** Sees every exchange, e.g. to keep a per-check log for failure messages. */
  onExchange?: ((exchange: Exchange) => void) | undefined;
  /** Epoch ms after which no request is sent; a request's timeout never reaches past it. */
  deadline?: number | undefined;
  /** Longest Retry-After a 429 is waited for (default 60 s); a longer one gives up at once. */
  maxRetryAfterMs?: number | undefined;
  /** Bytes of an answer's body that are read (default 8 MiB); the rest is cut off. */
  maxResponseBytes?: number | undefined;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** A JSON value to send; use rawBody for bytes that are not JSON. */
  body?: unknown;
  rawBody?: string;
  /** null sends the body without a Content-Type header. */
  contentType?: string | null;
  /** null omits the X-Service-Version header. */
  version?: string | null;
  auth?: AuthMode;
  /**
   * How the header names are written on the wire: in lower case (the default), or as the spec
   * writes them (X-Service-Version, Authorization, Content-Type, Accept). Field names are
   * case-insensitive (RFC 9110 §5.1); a target that reads one spelling only shows on the other.
   * The exchange log keeps the lower-case names either way.
   */
  headerSpelling?: 'lowercase' | 'spec';
}

/** The spec's spelling of the header names the client sends. */
const SPEC_SPELLING: Readonly<Record<string, string>> = { accept: 'Accept', 'x-service-version': 'X-Service-Version', authorization: 'Authorization', 'content-type': 'Content-Type' };

export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  /** truncated: the body is only the first maxResponseBytes of a longer answer. */
  response?: { status: number; headers: Record<string, string>; body: string; truncated?: boolean };
  error?: string;
  durationMs: number;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it is not JSON or was cut off. */
  json: unknown;
  /** The body was longer than maxResponseBytes; text holds its beginning only. */
  truncated: boolean;
  exchange: Exchange;
}

/**
 * Why a request got no judgeable answer: the transport failed (timeout … other), the target
 * answered nothing but 429 past the retry budget (throttled), an earlier run of timeouts showed
 * the target gone (stopped), or the run's time budget is spent (deadline).
 */
export type TransportErrorKind = 'timeout' | 'refused' | 'reset' | 'not-http' | 'dns' | 'throttled' | 'stopped' | 'deadline' | 'other';

/** A request that got no judgeable answer (refused, reset, timed out, not HTTP, throttled, not sent). */
export class TransportError extends Error {
  readonly exchange: Exchange;
  readonly kind: TransportErrorKind;
  constructor(message: string, exchange: Exchange, kind: TransportErrorKind = 'other') {
    super(message);
    this.exchange = exchange;
    this.kind = kind;
  }
}

// One keep-alive Agent per process, as every check talks to the same target.
const CONNECTIONS = 8;
let sharedAgent: Agent | undefined;
function agent(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 10_000, connections: CONNECTIONS });
  return sharedAgent;
}

export async function closeSharedAgent(): Promise<void> {
  const a = sharedAgent;
  sharedAgent = undefined;
  await a?.close();
}

/** Forgets what the process learnt about targets (give-ups, rate window); for tests. */
export function resetClientState(): void {
  resetTargetStates();
  resetSlots();
  RateLimiter.resetShared();
}
// Keep-alive connections belong to one run: a later run's embedded reference may get the same port.
perRun(async () => {
  resetClientState();
  await closeSharedAgent();
});

const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Outcomes that say nothing about the target, as no request reached it. */
const NOT_SENT: ReadonlySet<TransportErrorKind> = new Set(['stopped', 'deadline']);

export class ApiClient {
  readonly options: ClientOptions;
  private readonly limiter: RateLimiter | undefined;

  constructor(options: ClientOptions) {
    this.options = options;
    this.limiter = options.maxRps ? RateLimiter.shared(options.maxRps) : undefined;
  }

  /** The same client with other defaults (version, exchange log). */
  with(overrides: Partial<ClientOptions>): ApiClient {
    return new ApiClient({ ...this.options, ...overrides });
  }

  authorization(mode: AuthMode): string | undefined {
    if (mode === 'none') return undefined;
    if (mode === 'bearer') return `Bearer ${this.options.apiKey}`;
    if (mode === 'basic') {
      const key = this.options.orgKey ?? '';
      const pair = this.options.basic === 'key-as-password' ? `:${key}` : `${key}:`;
      return `Basic ${Buffer.from(pair).toString('base64')}`;
    }
    return mode.authorization;
  }

  async send(req: ApiRequest): Promise<ApiResponse> {
    const state = targetState(this.options.baseUrl);
    const limits = { maxRetryAfterMs: this.options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS, deadline: this.options.deadline };
    try {
      for (let attempts = 1; ; attempts++) {
        const res = await this.once(req, state);
        if (res.status !== 429) {
          state.ended('other');
          return res;
        }
        const next = after429(res.headers['retry-after'], attempts, limits);
        if (!next.retry) {
          if (next.kind === 'throttled') state.ended('throttled');
          res.exchange.error = next.reason;
          throw new TransportError(`${req.method} ${new URL(res.exchange.request.url).pathname}: ${next.reason}`, res.exchange, next.kind);
        }
        await new Promise((r) => setTimeout(r, next.waitMs));
      }
    } catch (error) {
      if (error instanceof TransportError && error.kind !== 'throttled' && !NOT_SENT.has(error.kind)) state.ended('other');
      throw error;
    }
  }

  get(path: string, extra: Omit<ApiRequest, 'method' | 'path'> = {}): Promise<ApiResponse> {
    return this.send({ method: 'GET', path, ...extra });
  }
  post(path: string, body: unknown, extra: Omit<ApiRequest, 'method' | 'path' | 'body'> = {}): Promise<ApiResponse> {
    return this.send({ method: 'POST', path, body, ...extra });
  }
  put(path: string, body: unknown, extra: Omit<ApiRequest, 'method' | 'path' | 'body'> = {}): Promise<ApiResponse> {
    return this.send({ method: 'PUT', path, body, ...extra });
  }

  private async once(req: ApiRequest, state: TargetState): Promise<ApiResponse> {
    const url = new URL(req.path.replace(/^\//, ''), this.options.baseUrl.endsWith('/') ? this.options.baseUrl : this.options.baseUrl + '/');
    // A path is relative to the target, but URL resolution reads '\\host' (or '/\\host') as another
    // host: a profile's path must never carry the key anywhere but the target.
    if (url.origin !== new URL(this.options.baseUrl).origin) throw new Error(`${req.method} ${JSON.stringify(req.path.slice(0, 120))}: the path resolves to another origin (${url.origin}) than the target's; nothing was sent`);
    const headers: Record<string, string> = { accept: 'application/json' };
    const version = req.version === undefined ? this.options.version : req.version;
    if (version) headers['x-service-version'] = version;
    const authorization = this.authorization(req.auth ?? 'bearer');
    if (authorization) headers.authorization = authorization;
    let body: string | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) body = JSON.stringify(req.body);
    if (body !== undefined && req.contentType !== null) headers['content-type'] = req.contentType ?? 'application/json';

    const exchange: Exchange = {
      request: { method: req.method, url: url.href, headers, ...(body !== undefined ? { body } : {}) },
      durationMs: 0,
    };
    const where = `${req.method} ${url.pathname}`;
    this.refuseUnsent(where, exchange, state);
    // The slot comes before the rate limiter: a request the limiter admits must go out at once.
    const release = await slotsFor(url.origin, CONNECTIONS).acquire();
    let start: Start | undefined;
    try {
      start = await this.limiter?.take();
      // Checked again: the waits may have outlived the deadline, or other requests the target.
      const timeoutMs = this.refuseUnsent(where, exchange, state);
      const started = performance.now();
      try {
        const res = await request(url, {
          method: req.method,
          headers: req.headerSpelling === 'spec' ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [SPEC_SPELLING[name] ?? name, value])) : headers,
          body,
          dispatcher: start ? onSend(agent(), start.sent) : agent(),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          // Covers the body too, so a target dripping bytes cannot hold a request open for ever.
          signal: AbortSignal.timeout(timeoutMs),
        });
        const { text, truncated } = await readCapped(res.body, this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
        const responseHeaders = flatten(res.headers);
        exchange.response = { status: res.statusCode, headers: responseHeaders, body: text, ...(truncated ? { truncated } : {}) };
        exchange.durationMs = Math.round(performance.now() - started);
        state.attempted('answered');
        this.options.onExchange?.(exchange);
        return { status: res.statusCode, headers: responseHeaders, text, json: truncated ? undefined : parseJson(text), truncated, exchange };
      } catch (error) {
        exchange.durationMs = Math.round(performance.now() - started);
        let { kind, message } = classifyTransportError(error, timeoutMs);
        if (kind === 'timeout' && timeoutMs < this.options.timeoutMs) {
          // The deadline shortened this wait: the run's budget ran out, the target did not fail.
          kind = 'deadline';
          message = `run time budget exhausted (no answer within ${timeoutMs} ms, when the run's time budget ended)`;
        }
        if (kind !== 'deadline') state.attempted(kind === 'timeout' ? 'timeout' : 'failed');
        exchange.error = message;
        this.options.onExchange?.(exchange);
        throw new TransportError(`${where}: ${message}`, exchange, kind);
      }
    } finally {
      // Frees the limiter's place of a request that never went out (refused, not sent).
      start?.cancel();
      release();
    }
  }

  /** Throws when the request must not be sent; otherwise the timeout it may use. */
  private refuseUnsent(where: string, exchange: Exchange, state: TargetState): number {
    const blocked = state.blocked();
    if (blocked) {
      exchange.error = blocked.reason;
      throw new TransportError(`${where}: ${blocked.reason}`, exchange, blocked.kind);
    }
    const { deadline, timeoutMs } = this.options;
    if (deadline === undefined) return timeoutMs;
    const left = deadline - Date.now();
    if (left <= 0) {
      exchange.error = 'run time budget exhausted';
      throw new TransportError(`${where}: run time budget exhausted`, exchange, 'deadline');
    }
    return Math.max(1, Math.min(timeoutMs, Math.floor(left)));
  }
}

/** The body as text, at most maxBytes of it: a hostile target cannot fill the kit's memory. */
async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > maxBytes) {
      chunks.push(chunk.subarray(0, maxBytes - size));
      truncated = true;
      // Stops the transfer (and drops the connection) instead of draining the rest.
      body.destroy();
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  // TextDecoder drops a leading BOM, as undici's body.text() did.
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), truncated };
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What kind of transport failure an error is, and the one line a report shows for it. */
export function classifyTransportError(error: unknown, timeoutMs: number): { kind: TransportErrorKind; message: string } {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (e.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { kind: 'timeout', message: `no answer within ${timeoutMs} ms` };
  if (code === 'ECONNREFUSED') return { kind: 'refused', message: 'connection refused' };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return { kind: 'dns', message: 'host not found' };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return { kind: 'reset', message: 'connection reset by the target' };
  if (code === 'HPE_INVALID_CONSTANT' || e.name === 'HTTPParserError' || /parse|HPE_/i.test(code ?? e.message ?? '')) {
    return { kind: 'not-http', message: 'the target answered something that is not HTTP' };
  }
  return { kind: 'other', message: `${code ? code + ': ' : ''}${e.message ?? String(error)}`.split('\n')[0] ?? 'unknown error' };
}

export function describeTransportError(error: unknown, timeoutMs: number): string {
  return classifyTransportError(error, timeoutMs).message;
}
