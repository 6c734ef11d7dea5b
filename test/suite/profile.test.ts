import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fixturesDir } from '../../src/paths.ts';
import { atPointer, loadProfile, loadReferenceProfile } from '../../src/profile/profile.ts';

describe('target profiles', () => {
  test('the reference profile is valid', () => {
    expect(loadReferenceProfile().name).toBe('reference');
  });

  test('the example staging profile is valid, and values read from the environment are secrets', () => {
    const env = { DSSC_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', DSSC_S3_SECRET_ACCESS_KEY: 's3-secret-value', DSSC_PG_PASSWORD: 'pg-secret-value' };
    const { profile, secrets } = loadProfile(join(fixturesDir, 'profiles', 'example-staging.json'), env);
    expect(profile.kinds?.relationalDatabase?.configuration?.password).toBe('pg-secret-value');
    expect(secrets).toEqual(expect.arrayContaining(['s3-secret-value', 'pg-secret-value']));
  });

  test('JSON pointers follow RFC 6901', () => {
    expect(atPointer({ data: { 'a/b': { '~x': 1 } } }, '/data/a~1b/~0x')).toBe(1);
    expect(atPointer({ data: {} }, '/data/id')).toBeUndefined();
    expect(atPointer(5, '')).toBe(5);
  });
});
