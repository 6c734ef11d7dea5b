import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ERROR_KEYS, faultCatalogue } from '../../src/reference/index.ts';
import { receiverBenignCatalogue, receiverFaultCatalogue } from '../../src/reference-receiver/index.ts';

const readme = readFileSync(join(import.meta.dirname, '../../src/reference/README.md'), 'utf8');

/** `| \`name\` | cell | ...` rows of the README's tables, by their first cell. */
const rows = new Map(
  [...readme.matchAll(/^\| `([a-z0-9_-]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]),
);

test('the README lists every error key with its status', () => {
  for (const [key, { status }] of Object.entries(ERROR_KEYS)) expect(rows.get(key), key).toBe(String(status));
});

test('the README lists every fault with the requirement IDs it breaks', () => {
  for (const fault of faultCatalogue()) expect(rows.get(fault.name), fault.name).toBe(fault.breaks.join(', '));
});

/** The `| \`name\` | cell |` rows of one `### heading` section of the README. */
function sectionRows(heading: string): Map<string, string> {
  const start = readme.indexOf(`\n### ${heading}\n`);
  const end = readme.slice(start + 1).search(/\n##/);
  const text = readme.slice(start, end === -1 ? undefined : start + 1 + end);
  return new Map([...text.matchAll(/^\| `([a-z0-9_-]+)` \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]));
}

test('the README lists every receiver fault with the IDs it breaks, and every benign variant', () => {
  const faults = sectionRows('Receiver faults');
  expect(Object.fromEntries(faults)).toEqual(Object.fromEntries(receiverFaultCatalogue().map((f) => [f.name, f.breaks.join(', ')])));
  expect([...sectionRows('Receiver benign variants').keys()].sort()).toEqual(receiverBenignCatalogue().map((v) => v.name).sort());
});
