import { appendFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ERROR_ANSWERS_FILE, errorAnswer, type ErrorAnswer } from '../../src/report/error-answers.ts';
import { appendErrorAnswer, errorAnswersCollector } from '../../src/report/error-answers-log.ts';
import type { NewEvent } from '../../src/report/events.ts';

// The worker appends error answers through one descriptor and never creates the file; the
// runner reads each pass's lines and removes the file at the run's end. A line the worker writes
// after an interruption removed it (the worker runs on) must not bring the file back.

const answer = (path: string, version?: string): ErrorAnswer => errorAnswer({ method: 'GET', path, status: 404, headers: {}, body: '{}', ...(version ? { version } : {}) });

function runner() {
  const dir = mkdtempSync(join(tmpdir(), 'dssc-error-log-'));
  const emitted: ErrorAnswer[] = [];
  const log = { emit: (e: NewEvent) => (e.type === 'error-answer' && emitted.push(e.answer), undefined as never) };
  return { dir, emitted, collector: errorAnswersCollector(dir, log) };
}

test('each pass of --api-version all is collected once, and the file stays until the end', () => {
  const { dir, emitted, collector } = runner();
  appendErrorAnswer(dir, answer('/a', 'v1'));
  collector.pass();
  expect(emitted.map((a) => a.path)).toEqual(['/a']);
  expect(existsSync(join(dir, ERROR_ANSWERS_FILE))).toBe(true);
  appendErrorAnswer(dir, answer('/b', 'v2'));
  appendErrorAnswer(dir, answer('/c', 'v2'));
  collector.pass();
  expect(emitted.map((a) => a.path)).toEqual(['/a', '/b', '/c']);
  collector.end();
  expect(emitted.map((a) => a.path)).toEqual(['/a', '/b', '/c']);
  expect(existsSync(join(dir, ERROR_ANSWERS_FILE))).toBe(false);
});

test('a line the worker writes after the run removed the file does not bring it back', () => {
  const { dir, emitted, collector } = runner();
  appendErrorAnswer(dir, answer('/before'));
  collector.end();
  appendErrorAnswer(dir, answer('/after'));
  expect(existsSync(join(dir, ERROR_ANSWERS_FILE))).toBe(false);
  expect(emitted.map((a) => a.path)).toEqual(['/before']);
});

test('nor does a first line written after the removal (the worker had not opened the file yet)', () => {
  const { dir, collector } = runner();
  collector.end();
  appendErrorAnswer(dir, answer('/late'));
  expect(existsSync(join(dir, ERROR_ANSWERS_FILE))).toBe(false);
});

test('an interruption mid-line: the whole lines are collected, the cut one dropped', () => {
  const { dir, emitted, collector } = runner();
  appendErrorAnswer(dir, answer('/whole'));
  appendFileSync(join(dir, ERROR_ANSWERS_FILE), '{"method":"GET","pa');
  // After a pass only whole lines are read: the partial one waits (here it is never finished).
  collector.pass();
  expect(emitted.map((a) => a.path)).toEqual(['/whole']);
  expect(readFileSync(join(dir, ERROR_ANSWERS_FILE), 'utf8')).toContain('"pa');
  collector.end();
  expect(emitted.map((a) => a.path)).toEqual(['/whole']);
  expect(existsSync(join(dir, ERROR_ANSWERS_FILE))).toBe(false);
});

test('a later run in the same folder gets its answers: the descriptor of the ended run\'s file is not kept', () => {
  const first = runner();
  appendErrorAnswer(first.dir, answer('/first'));
  first.collector.end();
  const emitted: ErrorAnswer[] = [];
  const second = errorAnswersCollector(first.dir, { emit: (e: NewEvent) => (e.type === 'error-answer' && emitted.push(e.answer), undefined as never) });
  appendErrorAnswer(first.dir, answer('/second'));
  second.end();
  expect(emitted.map((a) => a.path)).toEqual(['/second']);
});
