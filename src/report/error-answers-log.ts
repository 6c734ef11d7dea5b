import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_ANSWERS_FILE, type ErrorAnswer } from './error-answers.ts';
import type { EventLog } from './events.ts';

// The error answers go from the worker to the runner through one file in --reports. The runner
// creates it before the first pass and removes it when the run ends or is interrupted; the worker
// appends through one descriptor and never creates the file. So a line the worker writes after
// the removal (it runs on after an interruption) goes to the removed file or nowhere, and the
// reports folder is left without it, whatever the scheduling. The file stays between the passes
// of --api-version all: the runner reads each pass's lines from where the previous pass ended.

let writer: { dir: string; fd: number | undefined } | undefined;

/** The worker's side: one line per answer, through a descriptor opened once. */
export function appendErrorAnswer(dir: string, answer: ErrorAnswer): void {
  if (writer?.dir !== dir) writer = { dir, fd: undefined };
  try {
    // A descriptor of a removed file (its run ended) is dropped: a later run in the same folder
    // has a file of its own, found again below.
    if (writer.fd !== undefined && fstatSync(writer.fd).nlink === 0) {
      closeSync(writer.fd);
      writer.fd = undefined;
    }
    // No O_CREAT: a file that is not there means the run has ended, and the line has no reader.
    writer.fd ??= openSync(join(dir, ERROR_ANSWERS_FILE), constants.O_WRONLY | constants.O_APPEND);
    writeSync(writer.fd, JSON.stringify(answer) + '\n');
  } catch {
    // The reports folder was checked writable; losing a line costs the ERR evidence, not the run.
  }
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
  writeFileSync(file, '');
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
