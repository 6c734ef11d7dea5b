import { createHash } from 'node:crypto';
import { values } from '../generators/input-space.ts';
import { learnId, settings, unknownId } from './context.ts';
import { walked } from './input-space-record.ts';

// Unknown ids in every shape of the input space's `unknown-id` dimension, and one shaped like the
// target's own ids: an implementation often takes another code path for an id that parses as its
// own kind (a UUID column lookup, a cache keyed by the id's form) than for one that does not, so an
// unknown id of one shape only says how that path answers.

export interface UnknownId {
  /** The value of the `unknown-id` dimension. */
  shape: string;
  /** The raw id; paths carry it percent-encoded (encodeURIComponent). */
  id: string;
}

/**
 * Hex digits derived from the run's seed and the label: the same ids for the same seed (requests.json
 * of two runs of one seed compare equal), distinct per label.
 */
function hex(label: string, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i++) out += createHash('sha256').update(`${settings().seed}/${label}/${i}`).digest('hex');
  return out.slice(0, length);
}

/** A version-4 UUID, as the reference (and many services) mint them. */
function uuidShaped(label: string): string {
  const h = hex(`uuid/${label}`, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16]!, 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const ALPHABETS = ['0123456789', 'abcdef', 'ABCDEF', 'abcdefghijklmnopqrstuvwxyz', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'];

/**
 * An id of the same length and character classes as `own` (each letter or digit replaced by
 * another of its narrowest class, e.g. a hex digit by a hex digit; separators kept): an id the
 * target could have minted, which it did not.
 */
export function sameShapeAs(own: string, label: string): string {
  const h = hex(`own/${label}`, own.length * 2);
  return [...own]
    .map((c, i) => {
      const alphabet = ALPHABETS.find((a) => a.includes(c));
      if (!alphabet) return c;
      // A shift of 1 to length-1 places never gives back the same character.
      const shift = 1 + (parseInt(h.slice(i * 2, i * 2 + 2), 16) % (alphabet.length - 1));
      return alphabet[(alphabet.indexOf(c) + shift) % alphabet.length]!;
    })
    .join('');
}

const CLASS: Record<string, (label: string, own?: string, others?: readonly string[]) => string[]> = {
  '<uuid-unknown>': (label) => [uuidShaped(label)],
  '<opaque-unknown>': (label) => [`dssc${hex(`opaque/${label}`, 20)}`],
  '<long-unknown>': (label) => [`dssc-${unknownId(label)}-${hex(`long/${label}`, 200)}`.slice(0, 200)],
  '<url-special-unknown>': (label) => [`dssc ${hex(`special/${label}`, 8)}%20/?x=1#frag`],
  // Derived from an id the target minted, so it differs between runs: requests.json names it like
  // an assigned id (<idN>), and walked() records its shape.
  '<own-shape-unknown>': (label, own) => {
    if (!own) return [];
    const id = sameShapeAs(own, label);
    learnId(id);
    return [id];
  },
  // Ids the target minted for resources of other kinds (a model sync's on a bulk sync route, a
  // connection's): a target that keeps every resource in one table, or every sync in one, finds
  // them on the wrong route. Assigned ids, so walked() records the shape.
  '<other-resource-unknown>': (_label, _own, others) => [...new Set(others ?? [])],
};

/**
 * Every value of the `unknown-id` dimension for `label`; the target's own shape only when `own`,
 * an id the target minted in this run, is given; ids of other resources only when `others`
 * (ids the target minted for resources of other kinds) holds some.
 */
export function unknownIds(label: string, own?: string, others: readonly string[] = []): UnknownId[] {
  return values<string>('unknown-id').flatMap((shape) => {
    const make = CLASS[shape];
    if (!make) throw new Error(`no unknown id is made for the class ${shape} of input-space.json`);
    return make(label, own, others).map((id) => ({ shape, id }));
  });
}

/** Ids of the run's resources, each of which may be missing (a precondition unmet): for unknownIds' `others`. */
export async function idsOf(...gets: Array<() => Promise<string>>): Promise<string[]> {
  const ids = await Promise.all(gets.map((get) => get().catch(() => undefined)));
  return ids.filter((id): id is string => id !== undefined);
}

/**
 * The X-Service-Version values to pair with each unknown id: every value of the `version`
 * dimension (null: the header omitted); under a pass of --api-version all, that pass's version
 * only (the passes walk the others).
 */
export function versionsToPair(): Array<string | null> {
  if (settings().versionPass) return [settings().apiVersion];
  return values<string>('version').map((v) => (v === '<absent>' ? null : v));
}

/** Each unknown id with each version (the input space's pair version × unknown-id), every id at least once. */
export function idVersionPairs(ids: readonly UnknownId[]): Array<{ unknown: UnknownId; version: string | null }> {
  const versions = versionsToPair();
  return ids.flatMap((unknown) => versions.map((version) => ({ unknown, version })));
}

export const versionLabel = (v: string | null) => (v === null ? 'no X-Service-Version' : `X-Service-Version ${v}`);

/** The shapes whose ids the request log names like assigned ids (<idN>), so that it cannot classify them. */
const ASSIGNED = new Set(['<own-shape-unknown>', '<other-resource-unknown>']);

/**
 * Records the ids shaped like the target's own, and other resources' ids: the request log cannot tell them from another
 * shape (the reference's own ids are UUIDs), so `coverage --input-space` reads them from here.
 */
export function walkedOwnShape(operation: string, cases: ReadonlyArray<{ unknown: UnknownId; version: string | null | undefined }>): void {
  for (const c of cases) {
    if (!ASSIGNED.has(c.unknown.shape) || c.version === undefined) continue;
    walked(operation, { 'unknown-id': c.unknown.shape, version: c.version ?? '<absent>' });
  }
}
