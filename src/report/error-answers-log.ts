import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_ANSWERS_FILE, type ErrorAnswer } from './error-answers.ts';
import type { EventLog } from './events.ts';
import { RunFileAppender, startRunFile } from './run-file.ts';
import { perRun } from '../run-state.ts';

// The error answers go from the worker to the runner through one file in --reports, created by
// the runner and only appended to by the worker (src/report/run-file.ts). The file stays between
// the passes of --api-version all: the runner reads each pass's lines from where the previous
// pass ended.

let writer: { dir: string; file: RunFileAppender } | undefined;
perRun(() => {
  writer?.file.close();
  writer = undefined;
});

/** The worker's side: one line per answer. Losing a line costs the ERR evidence, not the run. */
export function appendErrorAnswer(dir: string, answer: ErrorAnswer): void {
  if (writer?.dir !== dir) writer = { dir, file: new RunFileAppender(join(dir, ERROR_ANSWERS_FILE)) };
  writer.file.append(JSON.stringify(answer));
}

export interface ErrorAnswersCollector {
  /** After a pass: the lines the pass appended become events of the stream. */
  pass(): void;
  /** At the run's end or interruption: the rest become events, and the file goes. */
  end(): void;
}

/**
 * The runner's side: creates the file (empty) and turns its lines into events as the run goes
 * (the log redacts each as it writes it). Only whole lines are read after a pass; at the end a
 * line cut short by an interruption is dropped.
 */
export function errorAnswersCollector(dir: string, log: Pick<EventLog, 'emit'>): ErrorAnswersCollector {
  const file = join(dir, ERROR_ANSWERS_FILE);
  startRunFile(file);
  let offset = 0;
  let ended = false;
  const read = (whole: boolean) => {
    if (!existsSync(file)) return;
    let rest: Buffer;
    try {
      rest = readFileSync(file).subarray(offset);
    } catch {
      return;
    }
    const upTo = whole ? rest.length : rest.lastIndexOf(0x0a) + 1;
    offset += upTo;
    for (const line of rest.subarray(0, upTo).toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        log.emit({ type: 'error-answer', answer: JSON.parse(line) as ErrorAnswer });
      } catch {
        // A line cut short by an interruption while the worker was writing it.
      }
    }
  };
  return {
    pass: () => {
      if (!ended) read(false);
    },
    end: () => {
      if (ended) return;
      ended = true;
      read(true);
      rmSync(file, { force: true });
    },
  };
}
