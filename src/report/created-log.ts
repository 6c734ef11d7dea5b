import { existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourceKind } from '../profile/cleanup-spec.ts';

// What a run created on its target, as the worker saw each creation answered: one JSON line per
// resource, appended as it happens, so the runner can delete them at the end of the run and when
// it is interrupted (the worker may still be running then).

/** Where the worker appends (in --reports). */
export const CREATED_LOG_FILE = '.dssc-created.ndjson';

export interface CreatedResource {
  kind: ResourceKind;
  id: string;
  /** The name sent, when the body had one. */
  name?: string;
}

// The file is opened once and written through that descriptor: when the runner removes it (the
// run ended or was interrupted) while the worker is still running, a later line goes to the
// removed file, and the reports folder is left without it, whatever the scheduling.
let log: { dir: string; fd: number } | undefined;

export function appendCreated(dir: string, resource: CreatedResource): void {
  try {
    if (log?.dir !== dir) log = { dir, fd: openSync(join(dir, CREATED_LOG_FILE), 'a') };
    writeSync(log.fd, JSON.stringify(resource) + '\n');
  } catch {
    // The reports folder was checked writable; losing a line leaves that resource behind, named with the run's prefix.
  }
}

/** Every resource of the log once, in the order created; a last line cut short is dropped. */
export function readCreated(dir: string): CreatedResource[] {
  const file = join(dir, CREATED_LOG_FILE);
  if (!existsSync(file)) return [];
  const seen = new Map<string, CreatedResource>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const r = JSON.parse(line) as CreatedResource;
      if (typeof r.id === 'string' && typeof r.kind === 'string') seen.set(`${r.kind} ${r.id}`, r);
    } catch {
      // An empty or partial line.
    }
  }
  return [...seen.values()];
}
