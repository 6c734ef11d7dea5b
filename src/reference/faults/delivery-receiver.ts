import { connect } from 'node:net';
import { DEFAULT_BATCH_SIZE, type BatchContext, type DeliveryOutcome, type DeliveryPipeline, type DeliveryRequest, type Transport } from '../delivery.ts';
import { editSuccess, ROUTES, type Fault, type ReferenceSeams } from './fault.ts';

// Faults in how a delivery meets the receiver: its answer (WH-020/021), the capture log of the
// exchanges (WH-022), the timestamp against the receiver's clock (WH-007) and the length the
// request declares (WH-005). The data a delivery carries is faults/delivery-data.ts's.

function wrapStep<K extends keyof DeliveryPipeline>(pipeline: DeliveryPipeline, name: K, wrap: (original: DeliveryPipeline[K]) => DeliveryPipeline[K]): void {
  pipeline[name] = wrap(pipeline[name]);
}

/** Runs of the engine send their batches one after another, so a step keyed by run sees them in order. */
function perRun<T>(): { get(runId: string): T | undefined; set(runId: string, value: T): void } {
  const map = new Map<string, T>();
  return {
    get: (id) => map.get(id),
    set: (id, value) => {
      map.delete(id); // most recent last: the oldest are dropped past a few hundred runs
      map.set(id, value);
      if (map.size > 500) map.delete(map.keys().next().value!);
    },
  };
}

function shiftTimestamp(headers: Record<string, string>, ms: number): void {
  headers['Service-Signature-Timestamp'] = new Date(Date.parse(headers['Service-Signature-Timestamp']!) + ms).toISOString();
}

/**
 * Sends one request over a connection of its own with node:net, so the declared Content-Length can
 * lie (undici refuses to). `trailer` is written after the body; `halfClose` ends the writing side
 * at once, as a client that has nothing more to send. The answer is read up to its own
 * Content-Length; then the connection is closed and waited for, so whatever the receiver makes of
 * the leftover bytes happens before the run goes on. Bounded by the transport's time limit.
 */
function rawSend(sent: DeliveryRequest, declared: number, transport: Transport, opts: { trailer?: Buffer; halfClose?: boolean } = {}): Promise<DeliveryOutcome> {
  const url = new URL(sent.url);
  const body = Buffer.from(sent.body as Uint8Array);
  const headers = Object.entries(sent.headers).filter(([name]) => !/^(content-length|host)$/i.test(name));
  const host = Object.entries(sent.headers).find(([name]) => name.toLowerCase() === 'host')?.[1] ?? url.host;
  const head = [`${sent.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${host}`, ...headers.map(([n, v]) => `${n}: ${v}`), `Content-Length: ${declared}`, '', ''].join('\r\n');
  return new Promise((resolve) => {
    let outcome: DeliveryOutcome = { error: 'the connection was closed by the receiver (no answer)' };
    const chunks: Buffer[] = [];
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) }, () => {
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body, opts.trailer ?? Buffer.alloc(0)]));
      if (opts.halfClose) socket.end();
    });
    const timer = setTimeout(() => {
      outcome = { error: `no answer within ${transport.timeoutMs} ms` };
      socket.destroy();
    }, transport.timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1 || 'status' in outcome) return;
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length < end + 4 + length) return;
      outcome = { status: Number(text.slice(9, 12)), body: text.slice(end + 4, end + 4 + length) };
      socket.end();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!('status' in outcome)) outcome = { error: `${error.message} (${error.code ?? 'socket error'})` };
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(outcome);
    });
  });
}

/**
 * Each batch is sent once with a lie (`lie` makes the outcome); when that gets no answer, it is
 * sent again, correctly, as a retry. Every attempt is logged, so the capture log stays one entry
 * per request the receiver got.
 */
function sendWithLie(pipeline: DeliveryPipeline, lie: (request: DeliveryRequest, transport: Transport) => Promise<DeliveryOutcome>): void {
  const attempts = new WeakMap<object, DeliveryOutcome>();
  wrapStep(pipeline, 'sendBatch', (send) => async (request, transport) => {
    const first = await lie(request, transport);
    if ('status' in first) return first;
    attempts.set(request, first);
    return send(request, transport);
  });
  wrapStep(pipeline, 'capture', (capture) => (log, exchange) => {
    const first = attempts.get(exchange.request);
    if (first) capture(log, { ...exchange, outcome: first });
    capture(log, exchange);
  });
}

/** Where a batch stands in its run, and the batch size its sync sets (undefined: the default). */
type BuiltBatch = Pick<BatchContext, 'index' | 'last'> & { configuredSize: number | undefined };

/**
 * A run whose failing batch is `where` (by its place in the run) stops there as the reference
 * does, but its reads answer 'completed' with no record error: the engine stops a run at its
 * first failure, so the last batch a run built is the one that failed.
 */
function failureCompletesAt({ app, config }: ReferenceSeams, where: (batch: BuiltBatch) => boolean): void {
  const lastBuilt = perRun<BuiltBatch>();
  wrapStep(config.delivery, 'buildHeaders', (build) => (batch) => {
    const size = batch.sync.target.configuration?.batch_size;
    lastBuilt.set(batch.run.id, { index: batch.index, last: batch.last, configuredSize: typeof size === 'number' ? size : undefined });
    return build(batch);
  });
  editSuccess(app, 'GET', ROUTES.run, (data, request) => {
    const batch = lastBuilt.get(String((request.params as { execution_id?: unknown }).execution_id));
    if (data.status !== 'failed' || !batch || !where(batch)) return;
    data.status = 'completed';
    const counts = data.counts as { total: number; error: number };
    counts.total -= counts.error;
    counts.error = 0;
    data.errors = [];
  });
}

export const deliveryReceiverFaults: Fault[] = [
  {
    name: 'middle-batch-failure-completes',
    breaks: ['WH-020', 'WH-021'],
    description: "A 4xx/5xx to a batch that is neither the run's first nor its last stops the run, which ends 'completed' with no record error (as if the receiver had asked to pause).",
    apply: (seams) => failureCompletesAt(seams, (b) => b.index > 1 && !b.last),
  },
  {
    name: 'last-batch-failure-completes',
    breaks: ['WH-020', 'WH-021'],
    description: "A 4xx/5xx to the last batch of a run of several ends the run 'completed' with no record error (every batch but one was taken).",
    apply: (seams) => failureCompletesAt(seams, (b) => b.index > 1 && b.last),
  },
  {
    name: 'single-batch-failure-completes',
    breaks: ['WH-020', 'WH-021'],
    description: "A 4xx/5xx to a run's only batch ends the run 'completed' with no record error (a small run's answer is not looked at).",
    apply: (seams) => failureCompletesAt(seams, (b) => b.index === 1 && b.last),
  },
  {
    name: 'default-size-later-batch-failure-completes',
    breaks: ['WH-020', 'WH-021'],
    description: "A sync whose batch size is the default (100) goes through a streaming path that looks only at the answer to the first batch: a 4xx/5xx to a later batch stops the run, which ends 'completed' with no record error. A sync with another batch size is judged batch by batch (only runs of more than 100 records at the default show it).",
    apply: (seams) => failureCompletesAt(seams, (b) => (b.configuredSize ?? DEFAULT_BATCH_SIZE) === DEFAULT_BATCH_SIZE && b.index > 1),
  },
  {
    name: 'single-record-batches-failure-completes',
    breaks: ['WH-020', 'WH-021'],
    description: "A sync with batch size 1 is sent record by record, and a 4xx/5xx to a record ends the run 'completed' with no record error (the per-record path never marks the run): only a batch size of 1 shows it.",
    apply: (seams) => failureCompletesAt(seams, (b) => b.configuredSize === 1),
  },
  {
    name: 'later-batch-failure-ignored',
    breaks: ['WH-020', 'WH-021'],
    description: "Only the answer to a run's first batch counts: a 4xx or 5xx to any later batch is taken as delivered, and the run completes.",
    apply: ({ config }) => {
      const later = new WeakSet<object>();
      wrapStep(config.delivery, 'buildHeaders', (build) => (batch) => {
        const headers = build(batch);
        if (batch.index > 1) later.add(headers);
        return headers;
      });
      // The engine logs an exchange and then asks isFailure, with no wait between (runs.ts), so
      // what capture saw is the batch isFailure judges. The log itself stays true.
      let laterBatch = false;
      wrapStep(config.delivery, 'capture', (capture) => (log, exchange) => {
        laterBatch = later.has(exchange.request.headers);
        capture(log, exchange);
      });
      wrapStep(config.delivery, 'isFailure', (isFailure) => (status) => !laterBatch && isFailure(status));
    },
  },
  {
    name: 'gone-answers-complete',
    breaks: ['WH-020'],
    description: 'A 404 or 410 answer is read as "the receiver is gone": the batch is dropped as delivered and the run completes (other 4xx still fail it).',
    apply: ({ config }) => wrapStep(config.delivery, 'isFailure', (isFailure) => (status) => (status === 404 || status === 410 ? false : isFailure(status))),
  },
  {
    name: 'bad-gateway-completes',
    breaks: ['WH-021'],
    description: 'A 502 answer is taken as delivered (a proxy hiccup): the run goes on and completes (other 5xx still fail it).',
    apply: ({ config }) => wrapStep(config.delivery, 'isFailure', (isFailure) => (status) => (status === 502 ? false : isFailure(status))),
  },
  {
    name: 'capture-requests-only',
    breaks: ['WH-022'],
    description: "The capture log holds each request but no response (the entry's response is null).",
    apply: ({ config }) =>
      wrapStep(config.delivery, 'capture', (capture) => (log, exchange) => {
        capture(log, exchange);
        const entry = log?.at(-1) as { response: unknown } | undefined;
        if (entry) entry.response = null;
      }),
  },
  {
    name: 'capture-first-batch-only',
    breaks: ['WH-022'],
    description: "The capture log keeps only the first exchange of a run: later batches' requests and responses are not logged.",
    apply: ({ config }) =>
      wrapStep(config.delivery, 'capture', (capture) => (log, exchange) => {
        if (log && log.length === 0) capture(log, exchange);
      }),
  },
  {
    name: 'capture-failure-logged-200',
    breaks: ['WH-022'],
    description: 'The capture log records status 200 for a delivery the receiver answered with a 4xx or 5xx (the run still fails).',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'capture', (capture) => (log, exchange) => {
        const { outcome } = exchange;
        capture(log, 'status' in outcome && config.delivery.isFailure(outcome.status) ? { ...exchange, outcome: { ...outcome, status: 200 } } : exchange);
      }),
  },
  {
    name: 'timestamp-two-minutes-ahead',
    breaks: ['WH-007'],
    description: 'Service-Signature-Timestamp is 2 minutes after the request was created: within the 300 s tolerance, past the 60 s allowance for clocks ahead.',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildHeaders', (build) => (batch) => {
        const headers = build(batch);
        shiftTimestamp(headers, 120_000);
        return headers;
      }),
  },
  {
    name: 'timestamp-backwards',
    breaks: ['WH-007'],
    description: "Each batch after a run's first carries a Service-Signature-Timestamp 1 ms before the previous batch's (fresh, but going backwards).",
    apply: ({ config }) => {
      const previous = perRun<number>();
      wrapStep(config.delivery, 'buildHeaders', (build) => (batch) => {
        const headers = build(batch);
        const last = previous.get(batch.run.id);
        if (batch.index > 1 && last !== undefined) headers['Service-Signature-Timestamp'] = new Date(last - 1).toISOString();
        previous.set(batch.run.id, Date.parse(headers['Service-Signature-Timestamp']!));
        return headers;
      });
    },
  },
  {
    name: 'content-length-one-short',
    breaks: ['WH-005'],
    description: 'Each delivery is followed on its connection by one byte more than its Content-Length declares (sent over node:net; the gzip body itself is whole).',
    apply: ({ config }) =>
      wrapStep(config.delivery, 'sendBatch', () => (request, transport) => {
        const length = (request.body as Uint8Array).byteLength;
        return rawSend(request, length, transport, { trailer: Buffer.from('x') });
      }),
  },
  {
    name: 'content-length-one-long',
    breaks: ['WH-005'],
    description: 'Each delivery first declares one byte more than its body and ends after the body (no answer comes); then it is sent again correctly. Both attempts are logged.',
    apply: ({ config }) =>
      sendWithLie(config.delivery, (request, transport) => rawSend(request, (request.body as Uint8Array).byteLength + 1, transport, { halfClose: true })),
  },
];

/** Conforming-but-unusual ways to meet the receiver: the suite must pass under each. */
export const deliveryReceiverVariants: Fault[] = [
  {
    name: 'delivery-clock-ahead',
    breaks: [],
    description: "The sender's clock runs 30 s ahead of the receiver's: every Service-Signature-Timestamp is 30 s after the request's creation (within the 60 s allowance).",
    apply: ({ config }) =>
      wrapStep(config.delivery, 'buildHeaders', (build) => (batch) => {
        const headers = build(batch);
        shiftTimestamp(headers, 30_000);
        return headers;
      }),
  },
  {
    name: 'delivery-retries-failures',
    breaks: [],
    description: 'A batch answered with a 4xx or 5xx is sent again, up to twice, before the run fails (retries are not shown); every attempt is logged.',
    apply: ({ config }) => {
      const earlier = new WeakMap<object, DeliveryOutcome[]>();
      wrapStep(config.delivery, 'sendBatch', (send) => async (request, transport) => {
        const attempts: DeliveryOutcome[] = [];
        let outcome = await send(request, transport);
        while ('status' in outcome && config.delivery.isFailure(outcome.status) && attempts.length < 2) {
          attempts.push(outcome);
          outcome = await send(request, transport);
        }
        earlier.set(request, attempts);
        return outcome;
      });
      wrapStep(config.delivery, 'capture', (capture) => (log, exchange) => {
        for (const outcome of earlier.get(exchange.request) ?? []) capture(log, { ...exchange, outcome });
        capture(log, exchange);
      });
    },
  },
];
