import { describe, expect, test } from 'vitest';
import { ciSafeLine, consoleSafe, escapeControls } from '../../src/report/safe-text.ts';

describe('control characters', () => {
  test('become visible escapes; newline and tab stay', () => {
    expect(consoleSafe('a\x1b[31mred\x1b[0m\x00\r\u202e\x7f\x9b\tb\nc')).toBe('a\\x1b[31mred\\x1b[0m\\x00\\x0d\\u202e\\x7f\\x9b\tb\nc');
  });

  test('every C0 but tab and newline, DEL, all of C1, and the bidi controls', () => {
    const unsafe = [
      ...Array.from({ length: 0x20 }, (_, i) => i).filter((i) => i !== 0x09 && i !== 0x0a),
      0x7f,
      ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
      0x200e, 0x200f, 0x061c, 0x2028, 0x2029,
    ];
    for (const code of unsafe) {
      const out = escapeControls(`<${String.fromCharCode(code)}>`);
      expect(out).toMatch(/^<\\(x[0-9a-f]{2}|u[0-9a-f]{4})>$/);
      expect(out).toBe(code <= 0xff ? `<\\x${code.toString(16).padStart(2, '0')}>` : `<\\u${code.toString(16).padStart(4, '0')}>`);
    }
  });

  test('printable text, including non-ASCII, is left alone', () => {
    const text = 'naïve café — 日本語 ✓ "quotes" \\ backslash\tand\nlines';
    expect(consoleSafe(text)).toBe(text);
  });
});

describe('CI workflow commands', () => {
  test.each([
    '::error title=x::y',
    '  ::set-output name=a::b',
    '\t::add-mask::value',
    '##vso[task.setvariable variable=x]1',
    '##VSO[task.complete result=Succeeded]',
    '##[error]z',
    '\ufeff::warning::bom first',
    '\u200b::notice::zero-width first',
  ])('a line a runner would obey gets a visible prefix: %j', (line) => {
    expect(ciSafeLine(line)).toBe(`| ${line}`);
  });

  test.each(['not :: a command', 'ok', 'x ##vso[ later in the line', ': single colon', '# heading'])('other lines stay: %j', (line) => {
    expect(ciSafeLine(line)).toBe(line);
  });

  test('consoleSafe neutralises command lines wherever they are, including after CR or an escaped line break', () => {
    const out = consoleSafe('ok\n::error title=x::y\n  ::set-output name=a::b\n##vso[task.setvariable variable=x]1\n##[error]z\nnot :: a command\r::stop-commands::t\u2028::error::u');
    expect(out.split('\n').filter((l) => /^\s*(::|##vso\[|##\[)/i.test(l))).toEqual([]);
    expect(out).toContain('| ::error title=x::y');
    expect(out).toContain('not :: a command\\x0d::stop-commands::t\\u2028::error::u');
  });
});
