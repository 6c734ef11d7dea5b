import { Agent, request } from 'undici';
import type { Redactor } from '../report/redact.ts';
import { RateLimiter } from './rate-limiter.ts';

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
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** A JSON value to send; use rawBody for bytes that are not JSON. */
  body?: unknown;
  rawBody?: string;
  contentType?: string;
  /** null omits the X-Service-Version header. */
  version?: string | null;
  auth?: AuthMode;
}

export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body: string };
  error?: string;
  durationMs: number;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  exchange: Exchange;
}

/** A request that got no HTTP answer (refused, reset, timed out, not HTTP). */
export class TransportError extends Error {
  readonly exchange: Exchange;
  constructor(message: string, exchange: Exchange) {
    super(message);
    this.exchange = exchange;
  }
}

// One keep-alive Agent per process, as every check talks to the same target.
let sharedAgent: Agent | undefined;
function agent(): Agent {
  sharedAgent ??= new Agent({ keepAliveTimeout: 10_000, connections: 8 });
  return sharedAgent;
}

export async function closeSharedAgent(): Promise<void> {
  const a = sharedAgent;
  sharedAgent = undefined;
  await a?.close();
}

const MAX_429_RETRIES = 3;
const MAX_RETRY_AFTER_MS = 30_000;

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
    for (let attempt = 0; ; attempt++) {
      const res = await this.once(req);
      const wait = retryAfterMs(res.headers['retry-after']);
      if (res.status !== 429 || attempt >= MAX_429_RETRIES || wait === undefined) return res;
      await new Promise((r) => setTimeout(r, wait));
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

  private async once(req: ApiRequest): Promise<ApiResponse> {
    await this.limiter?.take();
    const url = new URL(req.path.replace(/^\//, ''), this.options.baseUrl.endsWith('/') ? this.options.baseUrl : this.options.baseUrl + '/');
    const headers: Record<string, string> = { accept: 'application/json' };
    const version = req.version === undefined ? this.options.version : req.version;
    if (version) headers['x-service-version'] = version;
    const authorization = this.authorization(req.auth ?? 'bearer');
    if (authorization) headers.authorization = authorization;
    let body: string | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) body = JSON.stringify(req.body);
    if (body !== undefined) headers['content-type'] = req.contentType ?? 'application/json';

    const exchange: Exchange = {
      request: { method: req.method, url: url.href, headers, ...(body !== undefined ? { body } : {}) },
      durationMs: 0,
    };
    const started = performance.now();
    try {
      const res = await request(url, {
        method: req.method,
        headers,
        body,
        dispatcher: agent(),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const text = await res.body.text();
      const responseHeaders = flatten(res.headers);
      exchange.response = { status: res.statusCode, headers: responseHeaders, body: text };
      exchange.durationMs = Math.round(performance.now() - started);
      this.options.onExchange?.(exchange);
      return { status: res.statusCode, headers: responseHeaders, text, json: parseJson(text), exchange };
    } catch (error) {
      exchange.durationMs = Math.round(performance.now() - started);
      exchange.error = describeTransportError(error, this.options.timeoutMs);
      this.options.onExchange?.(exchange);
      throw new TransportError(`${req.method} ${url.pathname}: ${exchange.error}`, exchange);
    }
  }
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

function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}

export function describeTransportError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  if (e.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `no answer within ${timeoutMs} ms`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset by the target';
  if (code === 'HPE_INVALID_CONSTANT' || e.name === 'HTTPParserError' || /parse|HPE_/i.test(code ?? e.message ?? '')) return 'the target answered something that is not HTTP';
  return `${code ? code + ': ' : ''}${e.message ?? String(error)}`.split('\n')[0] ?? 'unknown error';
}
