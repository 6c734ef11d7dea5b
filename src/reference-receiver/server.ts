import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BadInput, header, type Answer, type Incoming, type Outcome, type ProcessedLog, type ReceiverSteps } from './steps.ts';

// The HTTP side of the reference receiver: node:http rather than fastify, because a receiver's
// faults live in how it reads raw bytes (gzip with or without Content-Encoding), and a framework's
// body parsers would decide that before the steps could.

export const INSPECT_PATH = '/_dssc/processed';
export const DELIVERY_PATH = '/deliveries';

/** Raw bodies above this are refused 413 before they are read whole. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface ServerSettings {
  secret: string;
  maxAgeSeconds: number;
  steps: ReceiverSteps;
  host: string;
  port: number;
}

export interface Listening {
  url: string;
  inspectUrl: string;
  log: ProcessedLog;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.pause();
        resolve(undefined);
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    // A sender that goes away mid-body leaves nothing to answer (a no-op once 'end' resolved).
    request.on('close', () => resolve(undefined));
    request.on('error', reject);
  });
}

/** What the steps make of one delivery request, in the order a careful receiver checks. */
function judge(incoming: Incoming, settings: ServerSettings, log: ProcessedLog): Outcome {
  const { steps } = settings;
  if (!steps.authorize(header(incoming, 'authorization'), settings.secret)) return { kind: 'unauthorized' };
  const stale = steps.checkTimestamp(header(incoming, 'service-signature-timestamp'), Date.now(), settings.maxAgeSeconds);
  if (stale !== undefined) return { kind: 'stale', reason: stale };
  try {
    const value = steps.parse(steps.decode(incoming));
    const event = steps.eventOf(value);
    if (!steps.knows(event)) return { kind: 'unknown-event', event };
    const delivery = steps.shape(value);
    return { kind: 'accepted', delivery, added: steps.process(delivery, log, incoming) };
  } catch (error) {
    if (error instanceof BadInput) return { kind: 'malformed', reason: error.message };
    throw error;
  }
}

function send(response: ServerResponse, answer: Answer): void {
  const body = answer.body ?? '';
  const chunked = Object.entries(answer.headers ?? {}).some(([n, v]) => n.toLowerCase() === 'transfer-encoding' && v === 'chunked');
  response.writeHead(answer.status, { ...answer.headers, ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }) });
  response.end(body);
}

export async function listen(settings: ServerSettings): Promise<Listening> {
  const log: ProcessedLog = { list: [], seen: new Set() };
  const closing = new AbortController();
  const server = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      if (path === INSPECT_PATH) {
        if (request.method !== 'GET') return send(response, { status: 405, headers: { allow: 'GET' } });
        return send(response, { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ processed: log.list }) });
      }
      if (request.method !== 'POST') return send(response, { status: 405, headers: { allow: 'POST' } });
      const body = await readBody(request);
      if (response.destroyed) return;
      if (body === undefined) return send(response, { status: 413, headers: { connection: 'close' } });
      const outcome = judge({ headers: request.headers, body }, settings, log);
      const answer = await settings.steps.answer(outcome, closing.signal);
      if (!response.destroyed) send(response, answer);
    } catch (error) {
      // A step that throws anything but BadInput is a crash: answered as a crashing server would.
      if (closing.signal.aborted || response.headersSent) return void response.destroy();
      send(response, { status: 500, headers: { 'content-type': 'text/plain' }, body: `internal error: ${(error as Error).name}` });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const base = `http://${host}:${port}`;
  return {
    url: `${base}${DELIVERY_PATH}`,
    inspectUrl: `${base}${INSPECT_PATH}`,
    log,
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
