import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { analyseBody, headerViolations, isGzip, joinHeaders, ownCopy } from './body.ts';
import { ChannelState, insertBySeq } from './channel.ts';
import { Keeper } from './keep.ts';
import type { Channel, Delivery, Receiver, ReceiverOptions, SuccessBody } from './types.ts';
import { CHANNEL_IN_PATH, classify, duration, positiveInt, rawResponse, sha256, slug, trailingViolation, type ClientFault, type Outcome, type ParserError } from './wire.ts';

const MiB = 1024 * 1024;

/**
 * Starts the capturing webhook receiver (node:http, so it sees the raw bytes). It records every
 * request, on any path, before answering it, and never writes to the console.
 */
export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const maxBody = positiveInt(options.maxBodyBytes, 8 * MiB, 'maxBodyBytes');
  const maxInflated = positiveInt(options.maxInflatedBytes, 64 * MiB, 'maxInflatedBytes');
  const keepInflated = options.keepInflated ?? true;
  const keeper = new Keeper({
    maxKeptBytes: positiveInt(options.maxKeptBytes, 64 * MiB, 'maxKeptBytes'),
    maxJunkRecords: positiveInt(options.maxJunkRecords, 1000, 'maxJunkRecords'),
    maxInflatedBytes: maxInflated,
  });
  const stallMs = positiveInt(options.stallTimeoutMs, 60_000, 'stallTimeoutMs');
  const onDelivery = options.onDelivery;
  const now = options.now ?? ((): Date => new Date());

  const all: Delivery[] = [];
  const errors: unknown[] = [];
  const channels = new Map<string, ChannelState>();
  const timers = new Set<NodeJS.Timeout>();
  /** The request whose body is being read on a socket, so a parser error can be charged to it. */
  const reading = new WeakMap<Duplex, { req: IncomingMessage; charge: (fault: ClientFault) => void }>();
  /** The latest response not yet finished on a socket (pipelining queues later ones behind it). */
  const pending = new WeakMap<Duplex, ServerResponse>();
  /**
   * The latest request on a socket: bytes that fail to parse after it completed were sent beyond
   * its declared length (a Content-Length shorter than the body), so it is charged with them.
   */
  const latest = new WeakMap<Duplex, { req: IncomingMessage; trailing: () => void }>();
  /** Sockets whose clientError was handled; a failed parser may report again. */
  const faulted = new WeakSet<Duplex>();
  let lastSeq = 0;
  let closed = false;
  let closing: Promise<void> | undefined;

  /**
   * Lists a delivery within the caps (keep.ts). onDelivery sees it first, whole: a streaming
   * verifier gets every body, past the storage cap too. Junk (no channel) past its count cap is
   * only counted under `junkKind`.
   */
  const record = (d: Delivery, ch: ChannelState | undefined, junkKind: string): void => {
    if (!ch && !keeper.admitJunk(junkKind)) return;
    if (onDelivery) {
      try {
        onDelivery(d);
      } catch (err) {
        errors.push(err);
      }
    }
    keeper.keep(d, ch !== undefined);
    insertBySeq(all, d);
    ch?.record(d);
  };

  const channelFor = (path: string): ChannelState | undefined => {
    const q = path.indexOf('?');
    const pathname = q === -1 ? path : path.slice(0, q);
    for (const m of pathname.matchAll(CHANNEL_IN_PATH)) {
      const ch = channels.get(m[1] ?? '');
      if (ch) return ch;
    }
    return undefined;
  };

  const answer = (res: ServerResponse, status: number, seq: number, close: boolean, success: SuccessBody = 'json'): void => {
    if (closed || res.destroyed || res.writableEnded) return;
    const kind = status >= 200 && status < 300 ? success : 'json';
    const payload = kind === 'json' ? JSON.stringify({ seq, status }) : kind === 'text' ? 'OK' : '';
    const headers: Record<string, string> = {
      ...(kind === 'empty' ? {} : { 'content-type': kind === 'json' ? 'application/json' : 'text/plain; charset=utf-8' }),
      'content-length': String(Buffer.byteLength(payload)),
    };
    if (close) headers['connection'] = 'close';
    try {
      res.writeHead(status, headers);
      res.end(payload);
    } catch {
      res.destroy();
    }
  };

  const answerRaw = (socket: Duplex, status: number): void => {
    if (socket.destroyed) return;
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(rawResponse(status), () => socket.destroy());
    // A peer that never reads must not keep the socket.
    const t = setTimeout(() => {
      timers.delete(t);
      socket.destroy();
    }, 2000);
    t.unref();
    timers.add(t);
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const seq = ++lastSeq;
    const receivedAt = now().toISOString();
    const socket = req.socket;
    const path = req.url ?? '';
    const ch = channelFor(path);
    const planned = ch?.take();
    if (ch) ch.inflight++;
    const chunks: Buffer[] = [];
    let kept = 0;
    let received = 0;
    let done = false;
    /** Set when bytes that are no request followed this one's body on the connection. */
    let trailing = false;
    let recorded: Delivery | undefined;
    /**
     * Cuts a body that stops arriving: no byte for stallMs (an inactivity timer, so a slow but
     * steady sender is never cut). A timer can fire late on a busy machine, before bytes already
     * waiting on the socket are read: it looks again after the poll phase, and a chunk read
     * meanwhile has re-armed it.
     */
    let chunksSeen = 0;
    const stall = setTimeout(() => {
      const seen = chunksSeen;
      setImmediate(() => {
        if (!done && chunksSeen === seen) finish({ kind: 'stalled' });
      });
    }, stallMs);
    stall.unref();

    res.on('error', () => {});
    pending.set(socket, res);
    res.on('close', () => {
      if (pending.get(socket) === res) pending.delete(socket);
    });

    const finish = (outcome: Outcome): void => {
      complete(outcome).catch((err: unknown) => {
        errors.push(err);
        socket.destroy();
      });
    };
    const complete = async (outcome: Outcome): Promise<void> => {
      if (done) return;
      done = true;
      clearTimeout(stall);
      if (reading.get(socket)?.req === req) reading.delete(socket);
      const body = ownCopy(chunks, kept);
      chunks.length = 0;
      const headers = joinHeaders(req.rawHeaders);
      const violations = headerViolations(headers, received, outcome.kind !== 'over-cap');
      if (outcome.kind === 'over-cap') violations.push('body over cap');
      if (outcome.kind === 'stalled') violations.push(`body stalled: no byte for ${duration(stallMs)}`);
      if (outcome.kind === 'refused') violations.push(outcome.violation);
      if (trailing) violations.push(trailingViolation(headers));

      const d: Delivery = {
        seq,
        channel: ch ? ch.id : null,
        receivedAt,
        method: req.method ?? '',
        path,
        httpVersion: req.httpVersion,
        rawHeaders: req.rawHeaders.slice(),
        headers,
        bodyBytes: received,
        body,
        sha256: sha256(body),
        gzip: isGzip(body),
        violations,
        response: { status: 0 },
      };
      recorded = d;
      let status: number | undefined;
      let scripted = false;
      if (outcome.kind === 'end') {
        try {
          const a = await analyseBody(body, maxInflated);
          violations.push(...a.violations);
          if (a.inflated !== undefined && keepInflated) d.inflated = a.inflated;
          if ('json' in a) d.json = a.json;
          if (a.inflatedOverCap) status = 413;
        } catch (err) {
          violations.push('receiver could not analyse the body');
          errors.push(err);
        }
        if (status === undefined) {
          let decided: number | undefined;
          try {
            decided = ch?.decide(d);
          } catch (err) {
            errors.push(err);
          }
          status = decided ?? planned?.status ?? 404;
          scripted = decided === undefined && planned !== undefined;
        }
      } else if (outcome.kind === 'over-cap') {
        status = 413;
      } else if (outcome.kind === 'stalled') {
        // The body never arrived whole, as when the client goes away, but the receiver cut it.
        status = 408;
        d.aborted = true;
        d.error = `no byte for ${duration(stallMs)}: the receiver closed the connection`;
      } else if (outcome.kind === 'refused') {
        status = outcome.status;
        d.error = outcome.error;
      } else {
        status = 0;
        d.aborted = true;
        if (outcome.error !== undefined) d.error = outcome.error;
      }
      const answered = status;
      d.response.status = answered;
      if (ch) ch.inflight--;
      record(d, ch, 'unknown path');

      if (answered === 0) {
        socket.destroy();
        return;
      }
      if (outcome.kind === 'stalled') {
        // The sender may never read the answer: the connection goes once it is written, or soon.
        res.once('finish', () => socket.destroy());
        const t = setTimeout(() => {
          timers.delete(t);
          socket.destroy();
        }, 2000);
        t.unref();
        timers.add(t);
      }
      // Unread bytes may follow (over cap) or the parser is broken: close after answering.
      const close = outcome.kind !== 'end';
      const delayMs = scripted ? (planned?.delayMs ?? 0) : 0;
      if (delayMs > 0) {
        const t = setTimeout(() => {
          timers.delete(t);
          d.response.at = now().toISOString();
          answer(res, answered, seq, close, ch?.successBody);
        }, delayMs);
        timers.add(t);
      } else {
        d.response.at = now().toISOString();
        answer(res, answered, seq, close, ch?.successBody);
      }
    };

    const onFault = (fault: ClientFault): void => {
      if (fault.kind === 'gone') finish({ kind: 'aborted', error: fault.error });
      else finish({ kind: 'refused', violation: fault.violation, status: fault.status, error: fault.error });
    };
    reading.set(socket, { req, charge: onFault });
    latest.set(socket, {
      req,
      trailing: () => {
        if (recorded === undefined) trailing = true;
        else if (!recorded.aborted) recorded.violations.push(trailingViolation(recorded.headers));
      },
    });

    req.on('data', (chunk: Buffer) => {
      if (done) return;
      chunksSeen++;
      stall.refresh();
      received += chunk.length;
      const room = maxBody - kept;
      if (chunk.length <= room) {
        chunks.push(chunk);
        kept += chunk.length;
        return;
      }
      if (room > 0) {
        chunks.push(chunk.subarray(0, room));
        kept = maxBody;
      }
      // Stop reading: the rest is neither stored nor waited for; the socket closes after the 413.
      req.pause();
      finish({ kind: 'over-cap' });
    });
    req.on('end', () => finish({ kind: 'end' }));
    req.on('error', (err: Error) => finish({ kind: 'aborted', error: err.message }));
    req.on('close', () => {
      if (!req.complete) finish({ kind: 'aborted' });
    });
  };

  /** Bytes that never became a request (garbage, or headers over node's limits) are recorded too. */
  const onClientError = (err: ParserError, socket: Duplex): void => {
    if (faulted.has(socket)) {
      socket.destroy();
      return;
    }
    faulted.add(socket);
    const fault = classify(err);
    // A request whose body is still arriving takes the blame. A complete one (its 'end' not yet
    // emitted) does not: the bad bytes came after it, e.g. more bytes than its Content-Length.
    const current = reading.get(socket);
    if (current && !current.req.complete) {
      current.charge(fault);
      return;
    }
    if (fault.kind === 'gone' && err.code !== 'HPE_INVALID_EOF_STATE') {
      socket.destroy(); // a reset between requests: nothing arrived
      return;
    }
    // Bytes after a complete request: it declared fewer bytes than it sent. They are still
    // recorded below as a malformed request, so nothing that arrived is lost.
    const previous = latest.get(socket);
    if (previous?.req.complete) previous.trailing();
    const raw = err.rawPacket;
    const body = raw ? ownCopy([raw], Math.min(raw.length, maxBody)) : Buffer.alloc(0);
    const status = fault.kind === 'refuse' ? fault.status : 400;
    const violation = fault.kind === 'refuse' ? fault.violation : 'malformed HTTP request';
    const d: Delivery = {
      seq: ++lastSeq,
      channel: null,
      receivedAt: now().toISOString(),
      method: '',
      path: '',
      httpVersion: '',
      rawHeaders: [],
      headers: Object.create(null) as Record<string, string>,
      bodyBytes: raw ? raw.length : 0,
      body,
      sha256: sha256(body),
      gzip: false,
      violations: [violation],
      response: { status },
      error: fault.error,
    };
    record(d, undefined, violation);
    const busy = pending.get(socket);
    if (busy) busy.once('close', () => answerRaw(socket, status));
    else answerRaw(socket, status);
  };

  /**
   * A CONNECT request is not a delivery; it is recorded and refused. (Requests with an Upgrade
   * header need no such handler: with no 'upgrade' listener node hands them to onRequest.)
   */
  const onConnect = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => {});
    const path = req.url ?? '';
    const ch = channelFor(path);
    if (ch) ch.take();
    const headers = joinHeaders(req.rawHeaders);
    const body = ownCopy([head], Math.min(head.length, maxBody));
    const d: Delivery = {
      seq: ++lastSeq,
      channel: ch ? ch.id : null,
      receivedAt: now().toISOString(),
      method: req.method ?? '',
      path,
      httpVersion: req.httpVersion,
      rawHeaders: req.rawHeaders.slice(),
      headers,
      bodyBytes: head.length,
      body,
      sha256: sha256(body),
      gzip: isGzip(body),
      violations: ['unexpected CONNECT request', ...headerViolations(headers, head.length, false)],
      response: { status: 400 },
    };
    record(d, ch, 'CONNECT');
    answerRaw(socket, 400);
  };

  /** Whatever happens in a handler, the process must not crash: note it and drop the connection. */
  const guard =
    <A extends unknown[]>(fn: (...args: A) => void, socketOf: (...args: A) => Duplex) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (err) {
        errors.push(err);
        socketOf(...args).destroy();
      }
    };
  const handleRequest = guard(onRequest, (req) => req.socket);
  const server = createServer({ requireHostHeader: false }, handleRequest);
  server.on('checkExpectation', handleRequest); // answer odd Expect values ourselves instead of node's bare 417
  server.on('clientError', guard(onClientError, (_err, socket) => socket));
  server.on('connect', guard(onConnect, (_req, socket) => socket));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: options.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => errors.push(err));
  const { port } = server.address() as AddressInfo;
  const localUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const baseUrl = (options.publicUrl ?? localUrl).replace(/\/+$/, '');

  const receiver: Receiver = {
    url: baseUrl,
    localUrl,
    channel(label?: string): Channel {
      if (closed) throw new Error('receiver is closed');
      const rand = randomBytes(9).toString('base64url');
      const s = label === undefined ? '' : slug(label);
      const id = s ? `${s}-${rand}` : rand;
      const ch = new ChannelState(id, label, `${baseUrl}/c/${id}/`);
      channels.set(id, ch);
      return ch;
    },
    deliveries: () => all.slice(),
    junkNotKept: () => keeper.notKept(),
    errors: () => errors.slice(),
    close(): Promise<void> {
      if (closing) return closing;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const ch of channels.values()) ch.abortWaiters('the receiver closed');
      closing = new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
  return receiver;
}
