import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { fixturesDir } from '../../src/paths.ts';
import { atPointer, idPointer, loadProfile, loadReferenceProfile } from '../../src/profile/profile.ts';

describe('target profiles', () => {
  test('the reference profile is valid', () => {
    expect(loadReferenceProfile().name).toBe('reference');
    // Runs load the shipped profile without compiling the schema: this is where it is checked.
    expect(loadProfile(join(fixturesDir, 'profiles', 'reference.json')).profile.name).toBe('reference');
  });

  test('the example staging profile is valid, and values read from the environment are secrets', () => {
    const env = { DSSC_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', DSSC_S3_SECRET_ACCESS_KEY: 's3-secret-value', DSSC_PG_PASSWORD: 'pg-secret-value' };
    const { profile, secrets } = loadProfile(join(fixturesDir, 'profiles', 'example-staging.json'), env);
    expect(profile.kinds?.relationalDatabase?.configuration?.password).toBe('pg-secret-value');
    expect(secrets).toEqual(expect.arrayContaining(['s3-secret-value', 'pg-secret-value']));
  });

  test('each creation\'s id is read at its own pointer when the profile gives one, else at pointers.id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-profile-'));
    try {
      const file = join(dir, 'pointers.json');
      writeFileSync(file, JSON.stringify({ name: 'mixed', pointers: { id: '/data/id', connectionId: '/id' }, versions: { unknownStatus: 400, unknownDates: 'nearest-earlier' } }));
      const { profile } = loadProfile(file, {});
      expect([idPointer(profile, 'connection'), idPointer(profile, 'bulkSync'), idPointer(profile, 'modelSync')]).toEqual(['/id', '/data/id', '/data/id']);
      expect(idPointer({ name: 'none' }, 'bulkSync')).toBe('/data/id');
      writeFileSync(file, JSON.stringify({ name: 'bad', versions: { unknownDates: 'nearest' } }));
      expect(() => loadProfile(file, {})).toThrow(/unknownDates/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('literal strings under secret-like keys are secrets too, however deep; other values are not', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-profile-'));
    try {
      const file = join(dir, 'literal.json');
      writeFileSync(file, JSON.stringify({
        name: 'literal',
        kinds: {
          objectStore: { type: 's3', configuration: { cloud_access_key_id: 'AKIALITERAL', cloud_secret_access_key: 'literal-s3-secret', object_store_bucket_region: 'eu-west-1' } },
          relationalDatabase: { type: 'postgresql', configuration: { username: 'dssc', password: 'literal-pg-pw', hostname: 'db.example.test', port: 5432 } },
          crm: { type: 'salesforce', configuration: { client_secret: 'literal-client-secret', api_key: 'abc', credentials: { user: 'cred-user', list: ['cred-item'], $comment: 'prose about the credentials' } } },
          webhook: { type: 'webhook', configuration: { url: '{{webhookUrl}}', auth_token: '{{webhookToken}}', private_key: { $env: 'DSSC_TEST_PRIVATE_KEY' } } },
        },
      }));
      const { secrets } = loadProfile(file, { DSSC_TEST_PRIVATE_KEY: 'env-private-key' });
      expect(secrets.sort()).toEqual(['AKIALITERAL', 'abc', 'cred-item', 'cred-user', 'env-private-key', 'literal-client-secret', 'literal-pg-pw', 'literal-s3-secret']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the reference profile\'s literal example credentials are secrets', () => {
    const { secrets } = loadProfile(join(fixturesDir, 'profiles', 'reference.json'));
    expect(secrets).toEqual(expect.arrayContaining(['dssc-example-secret-key', 'AKIADSSCEXAMPLE']));
    // The relational database's password is the kit's source database's ({{sourceDb.password}}), redacted as the run's secret.
    expect(secrets.some((s) => s.includes('{{'))).toBe(false);
    expect(secrets).not.toContain('dssc');
  });

  test('webhooks.productName is an HTTP token: a name with a space, a slash or nothing is refused', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-profile-'));
    try {
      const file = join(dir, 'product.json');
      const load = (productName: unknown) => {
        writeFileSync(file, JSON.stringify({ name: 'product', webhooks: { productName } }));
        return loadProfile(file).profile.webhooks?.productName;
      };
      expect(load('Acme-Sync')).toBe('Acme-Sync');
      for (const bad of ['Acme Sync', 'Acme/1.0', '', 7]) expect(() => load(bad), JSON.stringify(bad)).toThrow(/productName/);
      writeFileSync(file, JSON.stringify({ name: 'product', webhooks: { product: 'Acme' } }));
      expect(() => loadProfile(file)).toThrow(/product/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('JSON pointers follow RFC 6901', () => {
    expect(atPointer({ data: { 'a/b': { '~x': 1 } } }, '/data/a~1b/~0x')).toBe(1);
    expect(atPointer({ data: {} }, '/data/id')).toBeUndefined();
    expect(atPointer(5, '')).toBe(5);
  });
});
