import type { ApiResponse } from '../client/http-client.ts';
import { values } from '../generators/input-space.ts';
import { atPointer } from '../profile/profile.ts';
import { api } from './context.ts';
import { dataOf, expectStatus, fail } from './expect.ts';
import { BULK_SYNC, MODEL_SYNC, sameSubscribers, type Reader, type Resource } from './error-handling-model.ts';
import { walked } from './input-space-record.ts';
import { otherActivity, type OtherWrite } from './later.ts';
import type { Observation } from './webhook-answers.ts';

// Subscriber lists of every length of the input space's `list-length` dimension, sent in a PUT and
// read back: a target that keeps part of a list (a cap of 10, a page of 10 on the read) is seen
// only by a list longer than the cut. The addresses walk the valid lengths of the `string-length`
// dimension too.

/** Longest valid address: RFC 5321's path holds 256 octets, angle brackets included. */
export const LONGEST_ADDRESS = 254;

/**
 * A valid address of exactly `length` characters: the local part names the list (RFC 5321 limits
 * it to 64), the domain fills the rest with labels of at most 63 characters under example.com.
 */
export function addressOfLength(length: number, tag: string): string {
  const local = `dssc-${tag}`;
  let rest = length - local.length - 1 - '.example.com'.length;
  if (rest < 1) throw new Error(`an address of ${length} characters cannot carry the tag ${tag}`);
  const labels: string[] = [];
  while (rest > 0) {
    // 63 characters and a dot, unless that would leave exactly nothing after the dot.
    const take = rest <= 63 ? rest : rest - 64 >= 1 ? 63 : 62;
    labels.push('x'.repeat(take));
    rest -= take + 1;
  }
  return `${local}@${labels.join('.')}.example.com`;
}

/**
 * A valid address of each value of the `address-form` dimension: the characters a narrow pattern
 * (letters, digits and hyphens only, one domain label) refuses and RFC 5322's dot-atom and the
 * WHATWG address syntax both take, so a form input's validator takes them too.
 */
export const ADDRESS_FORMS: Readonly<Record<string, (tag: string) => string>> = {
  'plus-tag': (tag) => `dssc-${tag}+alerts@example.com`,
  'dotted-local': (tag) => `dssc.${tag}.ops@example.com`,
  subdomain: (tag) => `dssc-${tag}@mail.eu.example.com`,
  'other-atext': (tag) => `dssc_${tag}_o'neil@example.com`,
};

/** The `address-form` values, in the model's order, each with the address it makes. */
export function addressForms(): Array<[string, (tag: string) => string]> {
  return values<string>('address-form').map((form) => {
    const make = ADDRESS_FORMS[form];
    if (!make) throw new Error(`no address is made for the address-form ${form} of input-space.json`);
    return [form, make];
  });
}

/**
 * A list of n distinct addresses; from 3 on it holds one address of each valid length class of
 * the `string-length` dimension (32, 33, up to 254), then, as far as n allows, one of each
 * `address-form`. Lengths past 254 are not e-mail addresses (the spec's 'E-mail addresses
 * (<EMAIL>)'), and internationalised ones need an SMTP extension a service may lack, so neither
 * is sent as a list the target must take.
 */
export function subscribersOf(n: number, tag: string): string[] {
  const lengths = values('string-length').filter((v): v is number => typeof v === 'number' && v >= 32).map((v) => Math.min(v, LONGEST_ADDRESS));
  const special: Array<(tag: string) => string> = [...[...new Set(lengths)].map((length) => (t: string) => addressOfLength(length, t)), ...addressForms().map(([, make]) => make)];
  return Array.from({ length: n }, (_, i) => (n >= 3 && i < special.length ? special[i]!(`${tag}-${i}`) : `dssc-${tag}-${i}@example.com`));
}

/** The address forms a list of n holds (subscribersOf), for walked(). */
export function formsIn(n: number): string[] {
  const lengths = new Set(values('string-length').filter((v): v is number => typeof v === 'number' && v >= 32).map((v) => Math.min(v, LONGEST_ADDRESS)));
  return n < 3 ? [] : addressForms().map(([form]) => form).slice(0, Math.max(0, n - lengths.size));
}

/**
 * Longer lists than this may meet a limit the spec does not show (Limits: 'request size limits:
 * not shown'): a 400 for them is taken as the target's limit, with the settings left as they were.
 * Shorter lists are ordinary notification lists, and must be taken.
 */
export const UNSHOWN_LIMIT_FROM = 100;

export interface ListWalk {
  resource: Resource;
  syncId: string;
  /** The lengths to send, in order (values of the `list-length` dimension). */
  lengths: readonly number[];
  /** Judge the PUT's answer (the list it reports, if it reports one). */
  answer: boolean;
  /** Judge a read after each PUT: it holds the list (the read's subscribers, if it reports them). */
  reader?: Reader | undefined;
  /** The lengths whose outcome this check judges (default all); the others only set the state. */
  judged?: (n: number) => boolean;
  tag: string;
  /** Paths of another resource's error handling, written ({}) before the read again later (later.ts). */
  otherWrites?: readonly OtherWrite[];
}

/** The list lengths of the input space, without 0 (the empty list is Rule 2's second sentence). */
export const nonEmptyLengths = () => values<number>('list-length').filter((n) => n > 0);

const listOrNull = (v: unknown) => Array.isArray(v) || v === null;

function mismatch(what: string, owed: string[], got: unknown): string {
  const have = new Set(Array.isArray(got) ? got.map((a) => String(a).toLowerCase()) : []);
  const missing = owed.filter((a) => !have.has(a.toLowerCase()));
  const shown = Array.isArray(got) ? `${got.length} addresses` : JSON.stringify(got);
  const lacking = missing.length > 0 ? `; missing ${missing.length}, e.g. ${missing.slice(0, 2).join(', ')}` : '; the same addresses, but not the same list';
  return `${what} ${shown} of the ${owed.length} owed${lacking} (PUT Rules 2: the list sent replaces the whole current list)`;
}

async function read(reader: Reader, syncId: string): Promise<{ res: ApiResponse; list: unknown; reported: boolean }> {
  const res = await api().get(reader.path(syncId));
  expectStatus(res, 200, reader.what);
  const data = atPointer(res.json, reader.pointer);
  const reported = !!data && typeof data === 'object' && 'subscribers' in data && listOrNull((data as Record<string, unknown>).subscribers);
  return { res, list: reported ? (data as Record<string, unknown>).subscribers : undefined, reported };
}

/**
 * Sends each length's list and judges what the walk asks. A field the answer or read leaves out
 * is not reported (the spec makes every field optional in answers), so it is not judged; returns
 * how many comparisons were made, so a caller can say when nothing was observable.
 */
export async function walkListLengths(walk: ListWalk): Promise<number> {
  const { resource, syncId, reader } = walk;
  let current: string[] | undefined;
  let owed: string[] | undefined;
  let writes = 0;
  let compared = 0;
  for (const n of walk.lengths) {
    const sent = subscribersOf(n, `${walk.tag}${n}`);
    const res = await api().put(resource.path(syncId), { subscribers: sent });
    if (res.status === 400 && n > UNSHOWN_LIMIT_FROM) {
      // The target's own limit; what it holds must still be the list before.
      if (reader && current) {
        const after = await read(reader, syncId);
        if (after.reported) {
          compared += 1;
          if (!sameSubscribers(current, after.list)) fail(`a PUT of ${n} subscribers was refused (400), yet ${reader.what} no longer holds the list before it`, res, after.res);
        }
      }
      continue;
    }
    expectStatus(res, 200, `PUT of ${n} subscribers`);
    if (resource === MODEL_SYNC) for (const form of formsIn(n)) walked('PUT /api/syncs/{id}/error-handling', { 'address-form': form });
    current = sent;
    if (walk.judged && !walk.judged(n)) continue;
    const data = dataOf(res);
    // A list answered with the wrong type is the answer-shape check's finding (EHS-005, EHB-001), judged once there.
    if (walk.answer && data && 'subscribers' in data && listOrNull(data.subscribers)) {
      compared += 1;
      if (!sameSubscribers(sent, data.subscribers)) fail(mismatch('the PUT answered subscribers', sent, data.subscribers), res);
    }
    if (reader) {
      // The read owes what the PUT answered (the list sent, when the answer does not report one):
      // a PUT that kept part of the list is the answer's finding, not the read's.
      owed = data && 'subscribers' in data && Array.isArray(data.subscribers) ? (data.subscribers as string[]) : sent;
      const after = await read(reader, syncId);
      if (after.reported) {
        compared += 1;
        observed(resource, n, writes > 0 ? 'after another write' : 'right away');
        if (!sameSubscribers(owed, after.list)) fail(mismatch(`${reader.what} reads subscribers`, owed, after.list), res, after.res);
      }
    }
    writes += 1;
  }
  // The last list read once more at the end, after other activity (a creation, a write to another
  // resource): a list kept in a cache until something else is written, in front of a store that
  // dropped part of it, shows only then. 'Later' is never a wait (later.ts).
  if (reader && owed) {
    const activity = await otherActivity(walk.otherWrites ?? []);
    const later = await read(reader, syncId);
    if (later.reported) {
      compared += 1;
      observed(resource, owed.length, 'again later');
      if (!sameSubscribers(owed, later.list)) fail(mismatch(`read again later (after ${activity.join(', ') || 'the reads before'}), ${reader.what} reads subscribers`, owed, later.list), later.res);
    }
  }
  return compared;
}

/** What the reads walked of the input space (schemas/input-space.json), for `coverage --input-space`. */
function observed(resource: Resource, length: number, observation: Observation): void {
  if (resource === BULK_SYNC) walked('GET /api/bulk/syncs/{id}/error-handling', { 'list-length': length, observation });
  if (resource === MODEL_SYNC) walked('PUT /api/syncs/{id}/error-handling', { observation });
}
