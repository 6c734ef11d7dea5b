// The client's bounds against a hostile or failing target: the rate in every sliding second, the
// size of an answer, the 429 budget, the run's deadline, giving up on a target that is gone, and
// never following a redirect. Real node:http servers in this process, so no mocking layer hides
// what undici does on the wire.
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';
import { ApiClient, closeSharedAgent, resetClientState, TransportError, type ClientOptions } from '../../src/client/http-client.ts';
import { RateLimiter } from '../../src/client/rate-limiter.ts';
import { after429, retryAfterMs } from '../../src/client/retry.ts';
import { Redactor } from '../../src/report/redact.ts';

interface Served {
  url: string;
  /** performance.now() of each request's arrival, in order. */
  arrivals: number[];
  requests: IncomingMessage[];
  close(): Promise<void>;
}

const servers: Array<{ close(): Promise<void> }> = [];

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Served> {
  const arrivals: number[] = [];
  const requests: IncomingMessage[] = [];
  const server = createHttpServer((req, res) => {
    arrivals.push(performance.now());
    requests.push(req);
    res.on('error', () => undefined);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  servers.push({ close });
  return { url: `http://127.0.0.1:${port}`, arrivals, requests, close };
}

/** A TCP server that hands each connection to `onSocket` (for answers that are not HTTP). */
async function serveRaw(onSocket: (socket: Socket) => void): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  servers.push({
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  });
  return `http://127.0.0.1:${port}`;
}

const redactor = new Redactor(['api-key-123456']);
const client = (baseUrl: string, extra: Partial<ClientOptions> = {}) => new ApiClient({ baseUrl, apiKey: 'api-key-123456', timeoutMs: 2000, redactor, ...extra });

async function failure(promise: Promise<unknown>): Promise<TransportError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TransportError);
  return error as TransportError;
}

/**
 * The longest this process's event loop was held up while `work` ran, in ms. The test servers
 * here run in this process: each arrival is stamped when the loop gets to it, up to this much
 * late, so a bound on the time between arrivals holds only up to it. Measured, not guessed: on an
 * idle machine it is a few ms, on a saturated one hundreds.
 */
async function withLag<T>(work: () => Promise<T>): Promise<[T, number]> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  try {
    const value = await work();
    return [value, h.max / 1e6];
  } finally {
    h.disable();
  }
}

/** Runs `work` with setTimeout and performance.now() under vitest's fake clock, advanced until it settles. */
async function onFakeClock<T>(work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  try {
    const done = work();
    await vi.advanceTimersByTimeAsync(10_000);
    return await done;
  } finally {
    vi.useRealTimers();
  }
}

/** The largest number of instants that fall within any `windowMs` span. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while ((sorted[j] ?? 0) - (sorted[i] ?? 0) > windowMs) i++;
    best = Math.max(best, j - i + 1);
  }
  return best;
}

afterEach(async () => {
  resetClientState();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => closeSharedAgent());

/** See the arrival tests below. */
const ARRIVAL_WINDOW_MS = 500;

describe('rate bound', () => {
  // The limiter's own arithmetic on a fake clock: what it decides, not how promptly a busy machine
  // wakes it up.
  test('the limiter admits at most N starts in any 1000 ms window, in the order asked', async () => {
    const starts: number[] = [];
    const order: number[] = [];
    await onFakeClock(async () => {
      const limiter = new RateLimiter(20);
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          limiter.take().then((start) => {
            start.sent();
            starts.push(performance.now());
            order.push(i);
          }),
        ),
      );
    });
    expect(busiestWindow(starts, 1000)).toBe(20);
    expect(order).toEqual(Array.from({ length: 60 }, (_, i) => i));
    // Not slower than needed: the third batch starts just after 2 s (two windows and their guards).
    expect((starts[59] ?? 0) - (starts[0] ?? 0)).toBeLessThan(2300);
  });

  test('a request counts from when it is sent; one never sent frees its place', async () => {
    const [waited, third] = await onFakeClock(async () => {
      const limiter = new RateLimiter(1);
      const t0 = performance.now();
      const first = await limiter.take();
      // Held back (say, by connection set-up) for 300 ms: the window starts then, not at admission.
      setTimeout(() => first.sent(), 300);
      const second = await limiter.take();
      const waited = performance.now() - t0;
      // Cancelled (refused before it went out): the next one need not wait.
      second.cancel();
      const t1 = performance.now();
      (await limiter.take()).sent();
      return [waited, performance.now() - t1];
    });
    expect(waited).toBeGreaterThan(1300);
    expect(third).toBe(0);
  });

  // Arrivals at a server in this process, stamped when its loop gets to them: judged over half a
  // second, which is what a missing or bypassed limit shows (the 60 at once, the held requests in a
  // burst), and which an arrival stamped late by a busy machine cannot fake (with two busy loops,
  // 21 arrivals fell within 990 ms less the loop's measured lag). The limiter's exact count in any
  // 1000 ms is the fake-clock test's above.
  test('60 concurrent requests at maxRps 20 never reach the server faster than the limit (at most 20 in any half second)', async () => {
    const server = await serve((_req, res) => res.end('{}'));
    const api = client(server.url, { maxRps: 20 });
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => api.with({}).get(`/api/x/${i}`)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(server.arrivals).toHaveLength(60);
    expect(busiestWindow(server.arrivals, ARRIVAL_WINDOW_MS)).toBeLessThanOrEqual(20);
  });

  test('a target that holds its answers cannot make queued requests arrive in a burst', async () => {
    // Holds the first answers 1.5 s, then answers at once: requests admitted meanwhile but stuck
    // behind the busy connections would otherwise all arrive together when those come free.
    const t0 = performance.now();
    const server = await serve((_req, res) => setTimeout(() => res.end('{}'), performance.now() - t0 < 500 ? 1500 : 0));
    const api = client(server.url, { maxRps: 20 });
    await Promise.all(Array.from({ length: 40 }, () => api.get('/api/x')));
    expect(server.arrivals).toHaveLength(40);
    expect(busiestWindow(server.arrivals, ARRIVAL_WINDOW_MS)).toBeLessThanOrEqual(20);
  });
});

describe('response size cap', () => {
  test('a 1 GB answer is cut at 8 MiB, quickly, without filling memory', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const total = 1024 ** 3;
    let written = 0;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(total) });
      // Lazily, as the client reads: the gigabyte never exists in this process either.
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      // No time bound: what shows the cut is the memory and the bytes the server got to write.
      const res = await client(server.url).get('/api/big');
      expect(res.status).toBe(200);
      expect(res.truncated).toBe(true);
      expect(res.exchange.response?.truncated).toBe(true);
      expect(res.json).toBeUndefined();
      expect(res.text.length).toBe(8 * 1024 * 1024);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(peak).toBeLessThan(400 * 1024 * 1024);
    // The transfer stopped: the server did not get to push the rest.
    await new Promise((r) => setTimeout(r, 50));
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  test('an answer within maxResponseBytes is whole; one past it keeps its prefix, json undefined', async () => {
    const server = await serve((req, res) => res.end(req.url === '/api/small' ? '{"data":1}' : '{"data":"0123456789"}'));
    const api = client(server.url, { maxResponseBytes: 10 });
    const small = await api.get('/api/small');
    expect(small.truncated).toBe(false);
    expect(small.json).toEqual({ data: 1 });
    expect(small.exchange.response).not.toHaveProperty('truncated');
    const cut = await api.get('/api/long');
    expect(cut.truncated).toBe(true);
    expect(cut.text).toBe('{"data":"0');
    expect(cut.json).toBeUndefined();
  });

  test('a body dripped byte by byte is bounded by the request timeout', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 20);
    });
    const started = performance.now();
    const error = await failure(client(server.url, { timeoutMs: 300 }).get('/api/drip'));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe('GET /api/drip: no answer within 300 ms');
    // Without the bound the drip goes on to the test's own timeout; the slack is for a busy machine.
    expect(performance.now() - started).toBeLessThan(300 + 15_000);
  });
});

describe('429', () => {
  test('a Retry-After past the cap gives up at once, naming both', async () => {
    const server = await serve((_req, res) => res.writeHead(429, { 'retry-after': '3600' }).end('{}'));
    const started = performance.now();
    const error = await failure(client(server.url).get('/api/x'));
    // "At once" against an hour: any bound far below the hour tells them apart, whatever the load.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(error.kind).toBe('throttled');
    expect(error.message).toBe('GET /api/x: throttled: still 429 after 1 attempt (Retry-After 3600 s exceeds the 60 s cap)');
    expect(error.exchange.response?.status).toBe(429);
    expect(server.requests).toHaveLength(1);
  });

  test('maxRetryAfterMs sets the cap', async () => {
    const server = await serve((_req, res) => res.writeHead(429, { 'retry-after': '2' }).end());
    const error = await failure(client(server.url, { maxRetryAfterMs: 1000 }).get('/api/x'));
    expect(error.message).toBe('GET /api/x: throttled: still 429 after 1 attempt (Retry-After 2 s exceeds the 1 s cap)');
    expect(server.requests).toHaveLength(1);
  });

  test('without Retry-After: three short backoffs, then throttled after 4 attempts', async () => {
    const server = await serve((_req, res) => res.writeHead(429).end());
    const started = performance.now();
    const [error, lag] = await withLag(() => failure(client(server.url).get('/api/x')));
    const elapsed = performance.now() - started;
    expect(error.kind).toBe('throttled');
    expect(error.message).toBe('GET /api/x: throttled: still 429 after 4 attempts');
    expect(server.requests).toHaveLength(4);
    // 250 + 500 + 1000 ms; above that, 950 ms of slack plus the loop's measured lag for each of
    // the seven turns (four exchanges, three waits) a busy machine can stretch.
    expect(elapsed).toBeGreaterThanOrEqual(1700);
    expect(elapsed).toBeLessThan(2700 + 7 * lag);
  });

  test('a Retry-After within the cap is waited, then the answer returned', async () => {
    let calls = 0;
    const server = await serve((_req, res) => (++calls === 1 ? res.writeHead(429, { 'retry-after': '0' }).end() : res.end('{"ok":true}')));
    const res = await client(server.url).get('/api/x');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true });
    expect(server.requests).toHaveLength(2);
  });

  test('a wait that would pass the deadline is not started', async () => {
    const server = await serve((_req, res) => res.writeHead(429, { 'retry-after': '50' }).end());
    const started = performance.now();
    // A wait of 50 s against 20 s left: not starting it and waiting to the deadline are 20 s apart.
    const error = await failure(client(server.url, { deadline: Date.now() + 20_000 }).get('/api/x'));
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(error.kind).toBe('deadline');
    expect(error.message).toMatch(/^GET \/api\/x: run time budget exhausted/);
    expect(server.requests).toHaveLength(1);
  });

  test('Retry-After as seconds or an HTTP date; anything else is no Retry-After', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(retryAfterMs('Tue, 31 Dec 2024 00:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('-1', now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(after429('soon', 1, { maxRetryAfterMs: 60_000 }, now)).toEqual({ retry: true, waitMs: 250 });
  });
});

describe('fail fast once the target is gone', () => {
  test('after 3 consecutive timeouts, later requests of every client throw "stopped" without sending', async () => {
    const server = await serve(() => undefined);
    const api = client(server.url, { timeoutMs: 100 });
    for (const c of [api, api.with({ version: 'v' }), client(server.url + '/', { timeoutMs: 100 })]) {
      expect((await failure(c.get('/api/x'))).kind).toBe('timeout');
    }
    // Without sending: the server's count below shows it.
    const error = await failure(client(server.url).post('/api/y', {}));
    expect(error.kind).toBe('stopped');
    expect(error.message).toBe('POST /api/y: target stopped answering: 3 consecutive requests timed out');
    expect(server.requests).toHaveLength(3);
    // Another target is not affected.
    const other = await serve((_req, res) => res.end('{}'));
    expect((await client(other.url).get('/api/x')).status).toBe(200);
  });

  test('an answer in between breaks the run of timeouts', async () => {
    const server = await serve((req, res) => (req.url === '/api/ok' ? res.end('{}') : undefined));
    const api = client(server.url, { timeoutMs: 100 });
    // The answers come through a patient client of the same target: on a busy machine an answer
    // can take longer than 100 ms, and a timeout there would be one more in the run.
    const patient = client(server.url, { timeoutMs: 30_000 });
    for (const path of ['/api/slow', '/api/slow', '/api/ok', '/api/slow', '/api/slow']) await (path === '/api/ok' ? patient : api).get(path).catch(() => undefined);
    expect((await patient.get('/api/ok')).status).toBe(200);
  });

  test('after 3 consecutive throttled give-ups, later requests throw "throttled" without sending', async () => {
    const server = await serve((_req, res) => res.writeHead(429, { 'retry-after': '3600' }).end());
    const api = client(server.url);
    for (let i = 0; i < 3; i++) expect((await failure(api.get('/api/x'))).kind).toBe('throttled');
    const error = await failure(api.get('/api/z'));
    expect(error.kind).toBe('throttled');
    expect(error.message).toContain('the target keeps answering 429');
    expect(error.exchange.response).toBeUndefined();
    expect(server.requests).toHaveLength(3);
    resetClientState();
    await failure(api.get('/api/z'));
    expect(server.requests).toHaveLength(4);
  });
});

describe('deadline', () => {
  test('a request at or after the deadline is not sent', async () => {
    const server = await serve((_req, res) => res.end('{}'));
    const error = await failure(client(server.url, { deadline: Date.now() }).get('/api/x'));
    expect(error.kind).toBe('deadline');
    expect(error.message).toBe('GET /api/x: run time budget exhausted');
    expect(server.requests).toHaveLength(0);
  });

  test('a request never waits past the deadline, and that is no timeout of the target', async () => {
    const server = await serve(() => undefined);
    const api = client(server.url, { timeoutMs: 30_000, deadline: Date.now() + 200 });
    const started = performance.now();
    const error = await failure(api.get('/api/x'));
    // The deadline (200 ms) against the target's timeout (30 s).
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(error.kind).toBe('deadline');
    expect(error.message).toMatch(/^GET \/api\/x: run time budget exhausted/);
    // Three more timeouts of the target itself are needed to give it up.
    const patient = client(server.url, { timeoutMs: 50 });
    for (let i = 0; i < 3; i++) expect((await failure(patient.get('/api/x'))).kind).toBe('timeout');
  });
});

describe('transport error kinds', () => {
  test('refused, not HTTP, reset, host not found', async () => {
    const closed = await serve(() => undefined);
    await closed.close();
    const refused = await failure(client(closed.url).get('/api/x'));
    expect([refused.kind, refused.message]).toEqual(['refused', 'GET /api/x: connection refused']);

    const garbage = await serveRaw((s) => s.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    const notHttp = await failure(client(garbage).get('/api/x'));
    expect([notHttp.kind, notHttp.message]).toEqual(['not-http', 'GET /api/x: the target answered something that is not HTTP']);

    const hangUp = await serveRaw((s) => s.once('data', () => s.destroy()));
    const reset = await failure(client(hangUp).get('/api/x'));
    expect([reset.kind, reset.message]).toEqual(['reset', 'GET /api/x: connection reset by the target']);

    const dns = await failure(client('http://dssc-no-such-host.invalid', { timeoutMs: 3000 }).get('/api/x'));
    expect(['dns', 'timeout']).toContain(dns.kind);
  });
});

describe('redirects', () => {
  test('a 302 to another origin is returned as it is; the credentials go nowhere else', async () => {
    const elsewhere = await serve((_req, res) => res.end('{}'));
    const target = await serve((_req, res) => res.writeHead(302, { location: `${elsewhere.url}/steal` }).end());
    const res = await client(target.url).get('/api/x');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${elsewhere.url}/steal`);
    expect(target.requests[0]?.headers.authorization).toBe('Bearer api-key-123456');
    await new Promise((r) => setTimeout(r, 100));
    expect(elsewhere.requests).toHaveLength(0);
  });
});
