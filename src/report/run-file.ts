import { closeSync, constants, fstatSync, openSync, writeFileSync, writeSync } from 'node:fs';

// The files the worker hands to the runner through --reports (the error answers, the requests it
// sent, what it created). The runner creates each before the first pass and removes it when the
// run ends or is interrupted; the worker only appends, through one descriptor, and never creates
// one. So a line the worker writes after the removal (it runs on after an interruption) goes to
// the removed file or nowhere, and the reports folder is left without it, whatever the scheduling.

/** The runner's side: the file, empty, before the worker starts. */
export function startRunFile(path: string): void {
  writeFileSync(path, '');
}

/** The worker's side: one line per call; false when the line has no reader (the file is gone). */
export class RunFileAppender {
  private fd: number | undefined;
  private readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  append(line: string): boolean {
    try {
      // A descriptor of a removed file (its run ended) is dropped: a later run in the same folder
      // has a file of its own, found again below.
      if (this.fd !== undefined && fstatSync(this.fd).nlink === 0) this.close();
      // No O_CREAT: a file that is not there means the run has ended, and the line has no reader.
      this.fd ??= openSync(this.path, constants.O_WRONLY | constants.O_APPEND);
      writeSync(this.fd, line + '\n');
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
    this.fd = undefined;
  }
}
