import { expect, test } from 'vitest';
import { values } from '../../src/generators/input-space.ts';
import { CAPTURE_CASE, failingLabel } from '../../src/suite/webhook-answers.ts';
import type { Scenario } from '../../src/suite/webhook-fixtures.ts';
import { classedName, nameClass, nameProblem, namesWalked, NAME_CARRIERS } from '../../src/suite/webhook-names.ts';

// WH-011's sync names: every string-length class on one scenario each, built to the exact length.

const BASE = 'dssc-0a1b2c3d-sync-full-sync-17';

test('every string-length class is carried by one scenario', () => {
  expect(values('string-length').map((c) => NAME_CARRIERS.find((label) => nameClass(label) === c))).not.toContain(undefined);
  // The failing-receiver carrier is named as webhook-answers.ts labels its scenario.
  expect(NAME_CARRIERS).toContain(failingLabel(CAPTURE_CASE));
});

test.each(values('string-length').filter((c) => typeof c === 'number'))('a name of %i characters is exactly that long', (c) => {
  for (const base of [BASE, `${BASE}-with-a-much-longer-label-than-usual`]) {
    const name = classedName(base, c);
    expect(name).toHaveLength(c as number);
    if ((c as number) >= 14) expect(name.startsWith('dssc-0a1b2c3d')).toBe(true);
  }
});

test('the non-ASCII name keeps the run prefix and holds accents, CJK and an emoji outside the BMP', () => {
  const name = classedName(BASE, '<non-ascii>');
  expect(name.startsWith(BASE)).toBe(true);
  expect(name).toMatch(/ü/);
  expect(name).toMatch(/東京/);
  expect([...name].some((ch) => ch.codePointAt(0)! > 0xffff)).toBe(true);
});

test('a name cut short, garbled or absent is described briefly', () => {
  const name = classedName(BASE, 1000);
  expect(nameProblem(name, name)).toBeUndefined();
  expect(nameProblem(name.slice(0, 255), name)).toMatch(/^object\.name is the first 255 characters of the sync's name: the sync is named ".{40}….{12}" \(1000 characters\)$/);
  expect(nameProblem('ZÃ¼rich', 'Zürich')).toContain('from character 2 on');
  expect(nameProblem(undefined, 'd')).toBe('object.name undefined, the sync is named "d" (1 character)');
});

test('a class is walked only when the target took the name and the sync delivered; refusals are noted', () => {
  const sc = (over: Partial<Scenario>, delivered = true) => ({ runs: [{ deliveries: delivered ? [{}] : [] }], ...over }) as unknown as Scenario;
  const { classes, note } = namesWalked([
    ['a', sc({ nameClass: 1 })],
    ['b', sc({ nameClass: 1000, nameRefused: 'name too long' })],
    ['c', sc({ nameClass: 32 }, false)],
    ['d', sc({})],
  ], ['e (no full sync)']);
  expect(classes).toEqual([1]);
  expect(note).toBe('compared in 3 scenarios; names of 1 character; the target refused the sync names b named with 1000 characters (name too long; created under the usual name); not set up: e (no full sync)');
});
