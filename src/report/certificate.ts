import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.ts';

// What makes a report a certificate: what was tested (the implementation and its version), with
// what (the kit's version and the revision of the requirement catalogue it held the target to),
// and a digest that ties each rendered report to the raw event stream it was rendered from.
// The chain: results.ndjson holds the catalogue's digest in its run-start event; every other
// report is written after the stream is closed and carries the stream's SHA-256; `verify`
// recomputes that digest and re-folds the verdict from the stream.

export const STREAM_FILE = 'results.ndjson';

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The short form shown where the full digest would crowd the line (git's 12 hex digits). */
export const shortDigest = (digest: string): string => digest.slice(0, 12);

let catalogue: string | undefined;
/** The revision of the requirement catalogue: the SHA-256 of specs/requirements.json as shipped. */
export function catalogueDigest(): string {
  catalogue ??= sha256(readFileSync(join(packageRoot, 'specs', 'requirements.json')));
  return catalogue;
}

/** The SHA-256 of a report folder's results.ndjson, or undefined when there is none. */
export function streamDigest(dir: string): string | undefined {
  const file = join(dir, STREAM_FILE);
  return existsSync(file) ? sha256(readFileSync(file)) : undefined;
}

/** `NAME VERSION` as given; blank is no name. */
export function implementationName(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed ? trimmed : undefined;
}
