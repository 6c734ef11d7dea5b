import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourceKind } from '../profile/cleanup-spec.ts';
import { RunFileAppender, startRunFile } from './run-file.ts';
import { perRun } from '../run-state.ts';

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

// Created by the runner, only appended to by the worker (src/report/run-file.ts): a line written
// after the runner removed it (the run ended or was interrupted) does not bring the file back.
let log: { dir: string; file: RunFileAppender } | undefined;
perRun(() => {
  log?.file.close();
  log = undefined;
});

/** The worker's side. A lost line leaves that resource behind, named with the run's prefix. */
export function appendCreated(dir: string, resource: CreatedResource): void {
  if (log?.dir !== dir) log = { dir, file: new RunFileAppender(join(dir, CREATED_LOG_FILE)) };
  log.file.append(JSON.stringify(resource));
}

/** The runner's side, before the first pass. */
export function startCreatedLog(dir: string): void {
  startRunFile(join(dir, CREATED_LOG_FILE));
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
