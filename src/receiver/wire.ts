import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';

// The receiver's small pieces: how a request ended, how node's client errors are read, raw answers.

/** How a request ended before it was recorded. */
export type Outcome =
  | { kind: 'end' }
  | { kind: 'over-cap' }
  | { kind: 'stalled' }
  | { kind: 'aborted'; error?: string }
  | { kind: 'refused'; violation: string; status: number; error: string };

/** Classification of a server 'clientError'. */
export type ClientFault =
  | { kind: 'refuse'; violation: string; status: number; error: string }
  | { kind: 'gone'; error: string };

export type ParserError = Error & { code?: string; rawPacket?: Buffer };

export function classify(err: ParserError): ClientFault {
  const code = err.code ?? '';
  const error = code ? `${code}: ${err.message}` : err.message;
  // The peer ended the connection in the middle of a request: it went away rather than sent garbage.
  if (code === 'HPE_INVALID_EOF_STATE') return { kind: 'gone', error };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { kind: 'refuse', violation: 'request timeout', status: 408, error };
  if (code === 'HPE_HEADER_OVERFLOW') return { kind: 'refuse', violation: 'malformed HTTP request', status: 431, error };
  if (code.startsWith('HPE_')) return { kind: 'refuse', violation: 'malformed HTTP request', status: 400, error };
  return { kind: 'gone', error }; // ECONNRESET, EPIPE, …: socket-level
}

/** The violation of a request followed on its connection by bytes that are no request. */
export function trailingViolation(headers: Record<string, string>): string {
  return headers['content-length'] === undefined ? 'bytes after the end of the request' : 'bytes after the declared Content-Length';
}

export function rawResponse(status: number): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;
}

export function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`startReceiver: ${name} must be a positive integer`);
  return value;
}

export function slug(label: string): string {
  return label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24);
}

export const CHANNEL_IN_PATH = /(?:^|\/)c\/([^/?#]+)/g;

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

export function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
