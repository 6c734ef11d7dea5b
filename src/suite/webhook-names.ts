import { values, type DimensionValue } from '../generators/input-space.ts';
import type { Scenario } from './webhook-fixtures.ts';

// The sync names of the webhook scenarios (WH-011: object.name is 'Name of the sync as
// configured'). Each value of the input space's string-length dimension rides on the name of one
// scenario that the default run sets up anyway, so every length class is delivered on every seed
// at no extra cost; the other scenarios keep the run's usual names.

/**
 * The scenarios that carry a length class, in the order of the dimension's values. WH-011 sets up
 * every one of them, so each class is walked even when the checks that use them are not selected.
 */
export const NAME_CARRIERS = ['hash-order', 'full-sync', 'answer-413-middle-of-3-size-default', 'capture-off', 'hash-pairs', 'skip-backfill', 'main'] as const;

const classes = values('string-length');
if (classes.length > NAME_CARRIERS.length) throw new Error(`input-space.json has ${classes.length} string-length values, webhook-names.ts ${NAME_CARRIERS.length} scenarios to carry them`);

const classOf = new Map<string, DimensionValue>(classes.map((c, i) => [NAME_CARRIERS[i]!, c]));

/** The length class a scenario's sync name is given, if any. */
export function nameClass(label: string): DimensionValue | undefined {
  return classOf.get(label);
}

/** Accents (precomposed, so NFC and NFD readings differ), CJK and an emoji outside the BMP. */
const NON_ASCII = ' Zürich Ærøskøbing 東京 😀';
/** Fills the non-ASCII name to NON_ASCII_UNITS: two- and three-byte characters, one UTF-16 unit each. */
const NON_ASCII_FILL = ' Ærø東京';
/**
 * The non-ASCII name is as long as a name can be under a 255-character bound however characters
 * are counted (255 UTF-16 units, fewer code points), and its UTF-8 form is over twice as long: a
 * bound counted in bytes where the name is counted in characters shows on it, not on a short one.
 */
export const NON_ASCII_UNITS = 255;

/**
 * A name of the class built on the run's usual name `base` (dssc-<run id>-…, so an operator can
 * still find it): cut or padded to exactly that many characters; a one-character name cannot carry
 * the prefix (the scenario's webhook connection and source still do).
 */
export function classedName(base: string, c: DimensionValue): string {
  if (c === '<non-ascii>') {
    let name = base + NON_ASCII;
    while (name.length < NON_ASCII_UNITS) name += NON_ASCII_FILL;
    return name.slice(0, NON_ASCII_UNITS);
  }
  if (typeof c !== 'number') throw new Error(`webhook-names.ts cannot build a sync name of class ${c}`);
  if (c === 1) return 'd';
  // Digits that count the characters, so a name cut short shows where it was cut.
  const pad = Array.from({ length: Math.ceil(c / 10) }, (_, i) => `.${String((i + 1) * 10).padStart(9, '-')}`).join('');
  return base.length >= c ? base.slice(0, c) : (`${base}-` + pad.slice(base.length + 1)).slice(0, c);
}

const count = (s: string) => `${s.length} character${s.length === 1 ? '' : 's'}`;

/** How a delivered object.name departs from the configured one, short enough for a report line. */
export function nameProblem(got: unknown, want: string): string | undefined {
  if (got === want) return undefined;
  const shown = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 40)}…${s.slice(-12)}` : s);
  const configured = `the sync is named ${shown(want)} (${count(want)})`;
  if (typeof got !== 'string') return `object.name ${JSON.stringify(got)}, ${configured}`;
  if (got.length < want.length && want.startsWith(got)) return `object.name is the first ${got.length} characters of the sync's name: ${configured}`;
  let at = 0;
  while (at < got.length && got[at] === want[at]) at++;
  return `object.name ${shown(got)} (${count(got)}) differs from the configured name from character ${at + 1} on: ${configured}`;
}

const describeClass = (c: DimensionValue) => (typeof c === 'number' ? `${c} character${c === 1 ? '' : 's'}` : c === '<non-ascii>' ? 'non-ASCII text' : c);

/**
 * The length classes WH-011 compared (a classed name the target took, on a sync that delivered),
 * in the dimension's order, and the note that says so, with any class refused or not set up.
 */
export function namesWalked(all: ReadonlyArray<readonly [string, Scenario]>, notSetUp: readonly string[]): { classes: DimensionValue[]; note: string } {
  const delivered = (sc: Scenario) => sc.runs.some((r) => r.deliveries.length > 0);
  const taken = new Set(all.flatMap(([, sc]) => (sc.nameClass !== undefined && sc.nameRefused === undefined && delivered(sc) ? [sc.nameClass] : [])));
  const classes = values('string-length').filter((c) => taken.has(c));
  const refused = all.flatMap(([label, sc]) => (sc.nameRefused !== undefined ? [`${label} named with ${describeClass(sc.nameClass!)} (${sc.nameRefused}; created under the usual name)`] : []));
  const note = [
    `compared in ${all.filter(([, sc]) => delivered(sc)).length} scenarios; names of ${classes.map(describeClass).join(', ') || 'no length class'}`,
    ...(refused.length > 0 ? [`the target refused the sync names ${refused.join('; ')}`] : []),
    ...(notSetUp.length > 0 ? [`not set up: ${notSetUp.join('; ')}`] : []),
  ].join('; ');
  return { classes, note };
}
