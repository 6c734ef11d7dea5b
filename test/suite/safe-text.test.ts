import { expect, test } from 'vitest';
import { consoleSafe } from '../../src/report/safe-text.ts';

test('control characters become visible escapes; newline and tab stay', () => {
  expect(consoleSafe('a\x1b[31mred\x1b[0m\x00\r\u202e\x7f\x9b\tb\nc')).toBe('a\\x1b[31mred\\x1b[0m\\x00\\x0d\\u202e\\x7f\\x9b\tb\nc');
});

test('lines a CI runner takes as commands are neutralised, wherever they are', () => {
  const out = consoleSafe('ok\n::error title=x::y\n  ::set-output name=a::b\n##vso[task.setvariable variable=x]1\n##[error]z\nnot :: a command');
  expect(out.split('\n').filter((l) => /^\s*(::|##vso\[|##\[)/.test(l))).toEqual([]);
  expect(out).toContain('| ::error title=x::y');
  expect(out).toContain('not :: a command');
});
