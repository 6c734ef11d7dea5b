import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BULK_VALID_BODIES, negativeCases } from '../../src/generators/coverage.ts';
import { loadProfile, loadReferenceProfile } from '../../src/profile/profile.ts';
import { validate } from '../../src/schemas.ts';
import { sameSubscribers, sameValue, wellTyped } from '../../src/suite/error-handling-model.ts';

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

  test('the spec\'s types per field', () => {
    expect(wellTyped('auto_retry_record_errors', 'true')).toBe(false);
    expect(wellTyped('subscribers', null)).toBe(true);
    expect(wellTyped('subscribers', ['a@x.org', 1])).toBe(false);
    expect(wellTyped('ingestion_failure_threshold', 0)).toBe(true);
    expect(wellTyped('ingestion_failure_threshold', 1.5)).toBe(false);
    expect(wellTyped('ingestion_failure_threshold', '60')).toBe(false);
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
