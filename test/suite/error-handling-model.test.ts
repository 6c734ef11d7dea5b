import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BULK_VALID_BODIES, negativeCases } from '../../src/generators/coverage.ts';
import { loadProfile, loadReferenceProfile } from '../../src/profile/profile.ts';
import { isEmailAddress, validate } from '../../src/schemas.ts';
import type { ApiResponse } from '../../src/client/http-client.ts';
import {
  emptyRemovesAll, FIELDS, MODEL_SYNC, nextState, omittedUnchanged, replacesList, sameSubscribers, sameValue, sentApplied, Tally, wellTyped, type Resource, type Settings, type Step,
} from '../../src/suite/error-handling-model.ts';

// The pieces of the error-handling model that decide verdicts without a target: how answers are
// compared, which bodies the bulk checks owe 400 or 404 for, and the profile's new answers.

const BULK_UPDATE = 'bulk-sync-error-handling.schema.json#/$defs/update';

describe('comparing answers', () => {
  test('subscribers: order and case aside, an added duplicate is a change, a dropped one is not', () => {
    expect(sameSubscribers(['a@x.org', 'B@x.org'], ['b@x.org', 'A@x.org'])).toBe(true);
    expect(sameSubscribers(['a@x.org'], ['a@x.org', 'a@x.org'])).toBe(false);
    expect(sameSubscribers(['a@x.org', 'A@x.org'], ['a@x.org'])).toBe(true);
    expect(sameSubscribers([], null)).toBe(true);
  });

  test('a list answered with the wrong type equals only the same value (so the rules judge it once, as a type)', () => {
    expect(sameValue('subscribers', 'a@x.org', 'a@x.org')).toBe(true);
    expect(sameValue('subscribers', ['a@x.org'], 'a@x.org')).toBe(false);
    expect(sameValue('subscribers', 'a@x.org,b@x.org', 'a@x.org')).toBe(false);
    expect(sameValue('subscribers', undefined, [])).toBe(true);
  });

  test('an answered subscriber is any e-mail address (RFC 5321, in UTF-8 as RFC 6531 allows), not only the narrow pattern', () => {
    for (const a of ['a@x.org', 'jörg@müller.example', 'ops@localhost', '"john doe"@example.com', 'u@[192.0.2.1]']) expect(isEmailAddress(a), a).toBe(true);
    for (const a of ['', 'a', '@x.org', 'a@', 'a b@x.org', 'Name <a@x.org>', 'a@b@c']) expect(isEmailAddress(a), a).toBe(false);
    expect(validate('bulk-sync-error-handling.schema.json#/$defs/response', { data: { subscribers: ['jörg@müller.example', 'ops@localhost'] } })).toEqual([]);
    expect(validate('sync-error-handling.schema.json#/$defs/response', { data: { subscribers: ['not an address'] } })).not.toEqual([]);
  });

  test('the spec\'s types per field', () => {
    expect(wellTyped('auto_retry_record_errors', 'true')).toBe(false);
    expect(wellTyped('subscribers', null)).toBe(true);
    expect(wellTyped('subscribers', ['a@x.org', 1])).toBe(false);
    expect(wellTyped('ingestion_failure_threshold', 0)).toBe(true);
    expect(wellTyped('ingestion_failure_threshold', 1.5)).toBe(false);
    expect(wellTyped('ingestion_failure_threshold', '60')).toBe(false);
  });
});

describe('a field an answer leaves out is unknown, not changed (all fields are optional in the response)', () => {
  // A resource without a read: what the answer leaves out stays unknown.
  const resource: Resource = { ...MODEL_SYNC, reader: () => undefined };
  const full: Settings = { auto_retry_record_errors: true, notify_on_record_errors: false, subscribers: ['a@x.org'], warning_notifications: true };
  const step = (sent: Settings, before: Settings, after: Settings): Step => ({
    resource, syncId: 's1', sent, before, after, answered: after, res: {} as ApiResponse, fromRead: [], tally: new Tally(),
  });

  test('PUT {} answered {"data":{}} judges nothing, and says why', () => {
    const s = step({}, full, {});
    expect(omittedUnchanged(s)).toBeUndefined();
    expect(s.tally.nothingJudged()).toMatch(/does not report auto_retry_record_errors .*no read/);
  });

  test('a reported change of an omitted field is still a failure', () => {
    const s = step({}, full, { ...full, auto_retry_record_errors: false });
    expect(omittedUnchanged(s)).toMatch(/auto_retry_record_errors was omitted but changed from true to false/);
  });

  test('the list rules and the applied rule judge only what is reported', () => {
    for (const [rule, sent] of [[replacesList, { subscribers: ['b@x.org'] }], [emptyRemovesAll, { subscribers: [] }], [sentApplied, { warning_notifications: false }]] as const) {
      const s = step(sent, full, {});
      expect(rule(s)).toBeUndefined();
      expect(s.tally.judged).toBe(0);
    }
    expect(replacesList(step({ subscribers: ['b@x.org'] }, full, { subscribers: ['a@x.org'] }))).toMatch(/should replace/);
    expect(emptyRemovesAll(step({ subscribers: [] }, full, { subscribers: ['a@x.org'] }))).toMatch(/should remove/);
    expect(sentApplied(step({ warning_notifications: false }, full, { warning_notifications: true }))).toMatch(/sent as false/);
  });

  test('the model keeps an omitted field it could not see (Rule 1 across steps), and forgets a sent one', () => {
    expect(nextState(FIELDS, full, { subscribers: ['b@x.org'] }, {})).toEqual({ auto_retry_record_errors: true, notify_on_record_errors: false, warning_notifications: true });
    expect(nextState(FIELDS, full, {}, { warning_notifications: false })).toEqual({ ...full, warning_notifications: false });
    expect(nextState(FIELDS, {}, {}, {})).toEqual({});
  });
});

describe('the bulk PUT\'s coverage cases (EHB-004)', () => {
  test('every valid body sent to an unknown id is valid, and the shapes are all there', () => {
    for (const body of BULK_VALID_BODIES) expect(validate(BULK_UPDATE, body), JSON.stringify(body)).toEqual([]);
    expect(BULK_VALID_BODIES).toContainEqual({});
    expect(BULK_VALID_BODIES).toContainEqual({ ingestion_failure_threshold: 0 });
  });

  test('every negative case breaks the schema, near misses of an integer included', () => {
    const cases = negativeCases(BULK_UPDATE, {});
    for (const c of cases) expect(validate(BULK_UPDATE, c.value), c.name).not.toEqual([]);
    const names = cases.map((c) => c.name);
    for (const name of ['ingestion_failure_threshold = "1"', 'ingestion_failure_threshold = 1.5', 'ingestion_failure_threshold = true', 'subscribers = "a@x.org"', 'subscribers = [1]']) {
      expect(names).toContain(name);
    }
    // Only types are broken: values the spec leaves open (a negative threshold) are not cases.
    expect(names.some((n) => /= -/.test(n))).toBe(false);
  });
});

describe('profile answers for the read and the bulk write', () => {
  test('the reference declares both', () => {
    const eh = loadReferenceProfile().errorHandling;
    expect(eh?.read).toEqual({ path: '/api/syncs/{id}/error-handling', pointer: '/data' });
    expect(eh?.bulkWrite).toEqual({ path: '/api/bulk/syncs/{id}/error-handling' });
  });

  test('a path without {id} is one line of UsageError', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-eh-profile-'));
    try {
      const file = join(dir, 'p.json');
      writeFileSync(file, JSON.stringify({ name: 'p', errorHandling: { read: { path: '/api/syncs/error-handling' } } }));
      expect(() => loadProfile(file)).toThrow(/errorHandling\/read\/path/);
      writeFileSync(file, JSON.stringify({ name: 'p', errorHandling: { bulkWrite: {} } }));
      expect(() => loadProfile(file)).toThrow(/path/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
