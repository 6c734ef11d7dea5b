import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';

// Loopback targets that misbehave in one way each, for the hostile-target matrix. Those that need
// a working API behind the misbehaviour proxy to an embedded reference.

export interface Hostile {
  url: string;
  /** Requests seen that carried an Authorization header (for the cross-origin redirect case). */
  authorized: number;
  close(): Promise<void>;
}

function track(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

async function listen(server: Server, extra: Partial<Hostile> = {}): Promise<Hostile> {
  const sockets = track(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const hostile: Hostile = {
    url: `http://127.0.0.1:${port}`,
    authorized: 0,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
    ...extra,
  };
  return hostile;
}

/** A raw TCP server: what it does with each connection. */
export function tcpTarget(onConnection: (socket: Socket) => void): Promise<Hostile> {
  return listen(createTcpServer(onConnection));
}

/** An HTTP server answering every request with the handler. */
export async function httpTarget(handler: (req: IncomingMessage, res: ServerResponse, hostile: Hostile) => void): Promise<Hostile> {
  let self: Hostile | undefined;
  const server = createHttpServer((req, res) => {
    if (req.headers.authorization && self) self.authorized += 1;
    req.resume();
    handler(req, res, self!);
  });
  self = await listen(server);
  return self;
}

export interface Exchange {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The request as the proxy got it. */
  request: { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: Buffer };
}

/**
 * A proxy to a working target that rewrites answers (transform), and can stop in one of two ways
 * after `after` requests: 'die' (close every connection, refuse new ones) or 'hang' (never answer);
 * delayMs holds every answer back that long (a slow target).
 */
export async function proxyTarget(upstream: string, transform: (e: Exchange) => Exchange | void, stop?: { after: number; how: 'die' | 'hang' }, delayMs = 0): Promise<Hostile> {
  let count = 0;
  let self: Hostile | undefined;
  const server = createHttpServer((req, res) => {
    count += 1;
    if (stop && count > stop.after) {
      if (stop.how === 'die') {
        req.socket.destroy();
        if (server.listening) void self?.close();
      }
      return; // hang: never answer
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = new URL(req.url ?? '/', upstream);
      const out = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (up) => {
        const parts: Buffer[] = [];
        up.on('data', (c: Buffer) => parts.push(c));
        up.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(up.headers)) if (typeof v === 'string' && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') headers[k] = v;
          const exchange: Exchange = { status: up.statusCode ?? 502, headers, body: Buffer.concat(parts), request: { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body } };
          const result = transform(exchange) ?? exchange;
          setTimeout(() => {
            if (res.destroyed) return;
            res.writeHead(result.status, { ...result.headers, 'content-length': String(result.body.length) });
            res.end(result.body);
          }, delayMs);
        });
      });
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  self = await listen(server);
  return self;
}

/** Rewrites a JSON body; non-JSON bodies are left alone. */
export function rewriteJson(e: Exchange, edit: (json: Record<string, unknown>) => unknown): Exchange {
  try {
    const json = JSON.parse(e.body.toString('utf8')) as Record<string, unknown>;
    return { ...e, body: Buffer.from(JSON.stringify(edit(json))) };
  } catch {
    return e;
  }
}

/**
 * Echoes each request into its answer: its headers as a member, its headers and body (as text)
 * inside the error message, a JSON string, so a secret the body holds JSON-escaped is escaped once
 * more in the message and again in the answer's text; the headers base64 and raw in headers.
 * `seen` gets each request, so a test can show the secrets were really sent.
 */
export function echoRequests(seen?: (request: Exchange['request']) => void): (e: Exchange) => Exchange {
  return (e) => {
    seen?.(e.request);
    const echo = { headers: e.request.headers, body: e.request.body.toString('utf8') };
    const out = rewriteJson(e, (j) => ({ ...j, echo, message: typeof j.message === 'string' ? `${j.message} ${JSON.stringify(echo)}` : j.message }));
    return { ...out, headers: { ...out.headers, 'x-echo': Buffer.from(JSON.stringify(echo.headers)).toString('base64'), 'x-echo-auth': String(e.request.headers.authorization ?? '') } };
  };
}
