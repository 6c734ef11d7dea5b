import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { appendCreated, CREATED_LOG_FILE, readCreated, startCreatedLog } from '../../src/report/created-log.ts';
import { REQUEST_LOG_FILE, RequestLogWriter, startRequestLog } from '../../src/report/request-log.ts';
import { RunFileAppender, startRunFile } from '../../src/report/run-file.ts';

// The files the worker hands to the runner: the runner creates and removes them, the worker only
// appends. A line written after the removal (the worker runs on after an interruption) must not
// bring a file back into the reports folder, and a later run in the same folder (a run server
// doing one run after another) must get its lines into its own file. No timing involved: each
// order of events is played in sequence.

const folder = () => mkdtempSync(join(tmpdir(), 'dssc-run-file-'));

test('the worker appends to the file the runner created, and never creates one', () => {
  const dir = folder();
  const path = join(dir, 'f.ndjson');
  const writer = new RunFileAppender(path);
  expect(writer.append('early')).toBe(false);
  expect(existsSync(path)).toBe(false);
  startRunFile(path);
  expect(writer.append('a')).toBe(true);
  expect(writer.append('b')).toBe(true);
  expect(readFileSync(path, 'utf8')).toBe('a\nb\n');
  rmSync(path);
  expect(writer.append('late')).toBe(false);
  expect(existsSync(path)).toBe(false);
  // The next run in the same folder: its own file, its own lines only.
  startRunFile(path);
  expect(writer.append('next')).toBe(true);
  expect(readFileSync(path, 'utf8')).toBe('next\n');
});

test('the created log: a resource created after the run removed the log does not bring it back', () => {
  const dir = folder();
  startCreatedLog(dir);
  appendCreated(dir, { kind: 'connections', id: 'c1' });
  expect(readCreated(dir)).toEqual([{ kind: 'connections', id: 'c1' }]);
  rmSync(join(dir, CREATED_LOG_FILE));
  appendCreated(dir, { kind: 'connections', id: 'c2' });
  expect(existsSync(join(dir, CREATED_LOG_FILE))).toBe(false);
  startCreatedLog(dir);
  appendCreated(dir, { kind: 'connections', id: 'c3' });
  expect(readCreated(dir)).toEqual([{ kind: 'connections', id: 'c3' }]);
});

test('the request log: a first request after the removal (the log never opened) does not create it', () => {
  const dir = folder();
  startRequestLog(dir);
  rmSync(join(dir, REQUEST_LOG_FILE));
  const writer = new RequestLogWriter(dir);
  writer.request({ method: 'GET', path: '/api/x' });
  writer.close();
  expect(existsSync(join(dir, REQUEST_LOG_FILE))).toBe(false);
});
