import { describe, expect, test } from 'vitest';
import { boundaryCases, connectionShapeCases, negativeCases, positiveCases } from '../../src/generators/coverage.ts';
import { validate } from '../../src/schemas.ts';

// The coverage phase's cases are what they claim: every negative case breaks its schema (so a 400
// is owed), every positive one keeps to it (so a 2xx is owed), and the near misses are there.

const UPDATE = 'sync-error-handling-update.schema.json';
const CONNECTION = 'connection-request.schema.json';
const DB = 'connection-request.schema.json#/$defs/relationalDatabase';
const validDb = { hostname: 'db.example.test', port: 5432, database: 'd', username: 'u', password: 'p-secret-1' };
const validConnection = { name: 'n', type: 'postgresql', configuration: validDb, redirect_url: 'https://example.com/back' };
const validUpdate = { auto_retry_record_errors: true, notify_on_record_errors: false, subscribers: ['a@example.com'], warning_notifications: true };

describe('negative cases', () => {
  test.each([[UPDATE, {}], [UPDATE, validUpdate], [CONNECTION, validConnection], [DB, validDb]] as const)('%s: each case is invalid', (ref, base) => {
    const cases = negativeCases(ref, base);
    expect(cases.length).toBeGreaterThan(10);
    for (const c of cases) expect(validate(ref, c.value), c.name).not.toEqual([]);
  });

  test('the near misses of a lenient decoder are tried on every field', () => {
    const names = negativeCases(UPDATE, {}).map((c) => c.name);
    for (const name of ['warning_notifications = "true"', 'warning_notifications = "false"', 'warning_notifications = 1', 'warning_notifications = 0', 'subscribers = "a@x.org"', 'subscribers = {}', 'subscribers = [1]', 'subscribers = [null]', 'auto_retry_record_errors = []']) {
      expect(names).toContain(name);
    }
    const db = negativeCases(DB, validDb).map((c) => c.name);
    for (const name of ['port = "1"', 'port = 1.5', 'port = null', 'hostname missing', 'password = 1']) expect(db).toContain(name);
  });

  test('only presence and type are broken: a string property never gets a string', () => {
    for (const c of negativeCases(CONNECTION, validConnection)) expect(typeof c.value.name === 'string' || !('name' in c.value) || c.name.startsWith('name')).toBe(true);
  });
});

describe('positive cases', () => {
  test.each([[UPDATE, validUpdate], [CONNECTION, validConnection]] as const)('%s: each case is valid', (ref, sample) => {
    const cases = positiveCases(ref, sample);
    for (const c of cases) expect(validate(ref, c.value), c.name).toEqual([]);
    expect(cases.map((c) => c.name)).toContain('only the required properties');
  });

  test('every nullable field null, empty lists, each optional alone', () => {
    const names = positiveCases(UPDATE, validUpdate).map((c) => c.name);
    for (const name of ['subscribers = null', 'subscribers = []', 'only warning_notifications', 'warning_notifications = null']) expect(names).toContain(name);
  });
});

describe('CONN-004: kind × every field of that kind', () => {
  const configurations: Record<string, Record<string, unknown>> = {
    crm: { domain: 'https://crm.example.com' },
    marketing: {},
    objectStore: { cloud_access_key_id: 'a', cloud_secret_access_key: 's', object_store_bucket_region: 'r', object_store_bucket_name: 'b' },
    relationalDatabase: validDb,
  };
  const bases = Object.fromEntries(Object.entries(configurations).map(([k, configuration]) => [k, { ...validConnection, configuration }]));
  const cases = connectionShapeCases(bases, 'relationalDatabase');

  test('each case breaks the request schema or its kind\'s configuration', () => {
    for (const c of cases) {
      const kind = c.name.slice(0, c.name.indexOf(':'));
      const configuration = c.value.configuration;
      const broken = validate(CONNECTION, c.value).length > 0 || validate(`${CONNECTION}#/$defs/${kind}`, configuration).length > 0;
      expect(broken, c.name).toBe(true);
    }
  });

  test('every configuration field of every kind is missing, null and of a wrong type once; the top level on every kind', () => {
    const names = new Set(cases.map((c) => c.name));
    for (const [kind, configuration] of Object.entries(configurations)) {
      for (const field of Object.keys(configuration)) for (const shape of ['missing', '= null', '= []']) expect(names, `${kind} ${field} ${shape}`).toContain(`${kind}: configuration.${field} ${shape}`);
      for (const top of ['name missing', 'name = null', 'configuration missing', 'type = 1']) expect(names).toContain(`${kind}: ${top}`);
    }
    expect(names).toContain('objectStore: configuration.object_store_bucket_name = 1');
    expect(names).toContain('crm: configuration.domain = null');
  });

  test('the boundary cases keep to the schema', () => {
    const db = boundaryCases(DB, validDb, false);
    expect(db.map((c) => c.name)).toEqual(['port = 1', 'port = 65535']);
    for (const c of [...db, ...boundaryCases(`${CONNECTION}#/$defs/objectStore`, configurations.objectStore!)]) expect(validate(c.name.startsWith('port') ? DB : `${CONNECTION}#/$defs/objectStore`, c.value), c.name).toEqual([]);
  });
});
