/**
 * Types of the capturing webhook receiver (Spec › Events: sync.records deliveries).
 *
 * The receiver records what arrived, byte for byte, and notes transport-level problems
 * ("violations"). Judging the content (header schema, body schema, the bearer secret) is left to
 * the checks that read the deliveries.
 */

export interface ReceiverOptions {
  /** Interface to bind. Default 127.0.0.1. */
  host?: string;
  /** Port to bind. Default 0 (a free port). */
  port?: number;
  /** Base URL the service under test must use to reach us (e.g. a tunnel). Default http://host:port. */
  publicUrl?: string;
  /** Raw bytes kept per delivery. Beyond it the receiver stops reading, notes 'body over cap' and answers 413. Default 8 MiB. */
  maxBodyBytes?: number;
  /** Cap on the gunzipped size. Beyond it: 'inflated body over cap' (gzip bomb), answer 413. Default 64 MiB. */
  maxInflatedBytes?: number;
  /**
   * Total raw and gunzipped bytes kept over all deliveries; past it bodies are dropped
   * (Delivery.dropped), the deliveries are still judged and listed. The parsed JSON is not held
   * (Delivery.json parses the kept bytes on each read), so this bounds the bodies' memory. Default 64 MiB.
   */
  maxKeptBytes?: number;
  /**
   * Requests on no channel (unknown paths, malformed bytes, CONNECT) kept as records; past it
   * they are still answered, but only counted by kind (Receiver.junkNotKept()). Default 1000.
   */
  maxJunkRecords?: number;
  /**
   * A body that stops arriving (no byte for this long; each chunk restarts the wait) is cut: the
   * delivery is recorded with 'body stalled: no byte for …', answered 408 and its connection
   * closed. Default 60000 (60 s), generous so that a busy machine never cuts a live sender.
   */
  stallTimeoutMs?: number;
  /** Keep the gunzipped bytes on each Delivery. Default true; turn off for long runs (the raw body is kept either way). */
  keepInflated?: boolean;
  /**
   * Called once per delivery as it is recorded, before it is listed and answered, for streaming
   * verification: it sees the whole delivery, its body and JSON, also past maxKeptBytes (a
   * verifier may let them go: d.body = Buffer.alloc(0), d.json = undefined). Junk past
   * maxJunkRecords is not recorded. Must not throw; what it throws is caught and kept in Receiver.errors().
   */
  onDelivery?: (d: Delivery) => void;
  /** Clock, for tests. */
  now?: () => Date;
}

/** One scripted answer: a status, optionally after a delay (to provoke client timeouts). */
export type ScriptedResponse = number | { status: number; delayMs?: number };

/**
 * How a channel writes its 2xx answers: a small JSON object (the default), the text OK, or no body
 * at all. The spec asks the receiver for '200 OK' and shows no body, so a sender must take each.
 */
export type SuccessBody = 'json' | 'text' | 'empty';

export interface Receiver {
  /** Public base URL (no trailing slash): publicUrl, or localUrl when none was given. */
  readonly url: string;
  /** Where the receiver actually listens, http://host:port (a tunnel forwards here). */
  readonly localUrl: string;
  /** A fresh channel on a unique path (/c/<id>/), so concurrent syncs never mix. */
  channel(label?: string): Channel;
  /**
   * Every request received, on any path (unknown paths too), ordered by arrival (seq); past
   * maxJunkRecords requests on no channel are counted instead (junkNotKept), leaving gaps in seq.
   */
  deliveries(): Delivery[];
  /** Requests on no channel past maxJunkRecords, counted by kind: 'unknown path', 'malformed HTTP request', 'request timeout', 'CONNECT'. */
  junkNotKept(): Record<string, number>;
  /** Exceptions thrown by options.onDelivery, and internal errors the receiver survived, in order. */
  errors(): unknown[];
  /** Stops listening, drops open connections, rejects pending waitFor calls. Idempotent. */
  close(): Promise<void>;
}

export interface WaitForOptions {
  timeoutMs: number;
  /** After the predicate holds, also require this long without a new delivery on the channel. Default 0. */
  quietMs?: number;
}

export interface Channel {
  readonly id: string;
  readonly label: string | undefined;
  /** Public URL of the channel: Receiver.url + '/c/<id>/'. Any path below it belongs to the channel. */
  readonly url: string;
  /**
   * Scripts the answers: statuses[n] answers the n-th delivery arriving after this call (n from 0),
   * later ones get `then` (default 200). Replaces any earlier script. Statuses must be 200–599.
   * Deliveries the receiver must refuse (body or inflated body over cap: 413, malformed: 400)
   * still use up their place in the script.
   */
  script(statuses: ScriptedResponse[], then?: number): void;
  /**
   * Answers by content: `decide` sees each delivery once its body is read (its JSON included) and
   * returns the status to answer (200–599), or undefined to leave it to the script. Replaces any
   * earlier one; undefined removes it. A delivery it answers still uses up its place in the script.
   */
  answerBy(decide: ((d: Delivery) => number | undefined) | undefined): void;
  /** Writes this channel's 2xx answers so from now on (default 'json'). */
  answerWith(body: SuccessBody): void;
  /** This channel's deliveries, ordered by arrival (seq). */
  deliveries(): Delivery[];
  /**
   * Resolves with the channel's deliveries once predicate(deliveries) holds and no new delivery
   * arrived for quietMs. A predicate that throws counts as not holding. Rejects with a
   * descriptive Error after timeoutMs, or when the receiver closes.
   */
  waitFor(predicate: (ds: Delivery[]) => boolean, opts: WaitForOptions): Promise<Delivery[]>;
}

export interface Delivery {
  /** 1-based, in order of arrival at the receiver (request head parsed, or malformed bytes rejected). */
  seq: number;
  /** Channel id, or null for a path no channel owns (answered 404). */
  channel: string | null;
  /** ISO time at which the request head arrived. */
  receivedAt: string;
  /** '' for bytes that were not a parseable HTTP request. */
  method: string;
  /** Request target exactly as sent (path and query). '' for malformed requests. */
  path: string;
  httpVersion: string;
  /** Exactly as received (node's req.rawHeaders). Holds the secret: never print it. */
  rawHeaders: string[];
  /** Lowercased names; duplicates joined with ', '. Holds the secret: never print it. */
  headers: Record<string, string>;
  /** Raw body bytes actually received (for malformed requests: the bytes the parser rejected). */
  bodyBytes: number;
  /** The body was judged but not kept: the receiver's storage cap (maxKeptBytes) was reached; no json either. */
  dropped?: boolean;
  /** Raw bytes kept (up to maxBodyBytes; a 4 KiB prefix on unknown paths; none when dropped). */
  body: Buffer;
  /** SHA-256 (hex) of the body bytes read (all of them, unless 'body over cap'), kept when the body is dropped. */
  sha256: string;
  /** The body starts with the gzip magic 1f 8b. */
  gzip: boolean;
  /** Gunzipped body, when gzip, complete, within the cap and keepInflated. */
  inflated?: Buffer;
  /**
   * Parsed JSON of the inflated body (of the raw body when not gzip), when it parses. Parsed again
   * from the kept bytes on each read (a fresh value each time), so it costs no memory while kept;
   * absent when the body was dropped (dropped) or is a cut prefix.
   */
  json?: unknown;
  /**
   * Transport-level problems, e.g. 'not gzip', 'gzip stream corrupt', 'inflated body over cap',
   * 'body over cap', 'empty body', 'invalid UTF-8', 'not JSON', 'no Authorization header',
   * 'empty Authorization header', 'no Content-Length',
   * 'Content-Length mismatch (header N, received M)', 'bytes after the declared Content-Length'
   * (the connection carried more than the declared length: the rest is also recorded as a malformed
   * request), 'malformed HTTP request', 'request timeout',
   * 'unexpected CONNECT request', 'body stalled: no byte for 60 s' (stallTimeoutMs; the delivery is
   * also aborted, with a Content-Length mismatch when it declared its length).
   */
  violations: string[];
  /**
   * What the receiver answered (0: not answered, the client went away first) and when it began
   * to send the answer (after any scripted delay; absent when not answered).
   */
  response: { status: number; at?: string };
  /** The body never arrived whole: the client went away, or it stalled and the receiver cut it ('body stalled …'). */
  aborted?: boolean;
  /** Parser or socket error behind a malformed or aborted request (code and message; no header values). */
  error?: string;
}
