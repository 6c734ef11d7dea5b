import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { UsageError } from '../../src/cli-errors.ts';
import { VARIABLES } from '../../src/adapters/declarative-spec.ts';
import { checkTemplate, interpolate, render } from '../../src/adapters/template.ts';
import { fixturesDir } from '../../src/paths.ts';
import { loadProfile, loadReferenceProfile } from '../../src/profile/profile.ts';
import { runCli } from '../suite/run-cli.ts';

// The declarative adapter's template language (README › Target profile › A declarative adapter),
// and the profile errors it gives: an unknown variable is found when the profile is loaded.

describe('the template language', () => {
  const vars = { name: 'n', batchSize: 7, recordRequests: false, metadata: { a: 'b' }, empty: null, fields: [{ source: 'id', target: 'key' }, { source: 'e', target: 'email' }], db: { port: 5432 } };

  test('a string that is exactly one placeholder is the value with its type', () => {
    expect(render({ n: '{{batchSize}}', b: '{{recordRequests}}', o: '{{metadata}}', z: '{{empty}}', l: '{{fields}}', p: '{{ db.port }}' }, vars, 'x')).toEqual({
      n: 7, b: false, o: { a: 'b' }, z: null, l: vars.fields, p: 5432,
    });
  });

  test('an undefined value removes its key, or its array element; null stays', () => {
    expect(render({ configuration: { batch_size: '{{batchSize}}', metadata: '{{missing}}', x: '{{empty}}' }, list: ['{{missing}}', 1] }, vars, 'x')).toEqual({ configuration: { batch_size: 7, x: null }, list: [1] });
    expect(render({ configuration: { metadata: '{{missing}}' } }, vars, 'x')).toEqual({ configuration: {} });
  });

  test('placeholders inside longer text are interpolated as text; in a path, URL-encoded', () => {
    expect(render('size {{batchSize}} for {{name}}', vars, 'x')).toBe('size 7 for n');
    expect(interpolate('/api/syncs/{{syncId}}/executions/{{runId}}', { syncId: 'a/b c', runId: 'ü?#' }, 'x', encodeURIComponent)).toBe('/api/syncs/a%2Fb%20c/executions/%C3%BC%3F%23');
    expect(() => interpolate('/api/syncs/{{syncId}}', {}, 'reading a run')).toThrow('reading a run: {{syncId}} has no value here');
  });

  test('$each maps a list, binding each element to its name', () => {
    const template = { fields: { $each: 'fields', as: 'field', value: { source: { model_id: '{{name}}', field: '{{field.source}}' }, target: '{{field.target}}' } } };
    expect(render(template, vars, 'x')).toEqual({ fields: [{ source: { model_id: 'n', field: 'id' }, target: 'key' }, { source: { model_id: 'n', field: 'e' }, target: 'email' }] });
    expect(render({ f: { $each: 'fields', as: 'f', value: '{{f.target}}' } }, vars, 'x')).toEqual({ f: ['key', 'email'] });
  });

  test('literals (numbers, booleans, $-keys other than $each) are kept as written', () => {
    expect(render({ a: 1, b: true, c: null, d: [{ e: 'plain' }], $ref: 'x' }, vars, 'x')).toEqual({ a: 1, b: true, c: null, d: [{ e: 'plain' }], $ref: 'x' });
  });

  test('checking: unknown variables, parts and malformed $each are named with where they are', () => {
    const scope = VARIABLES.createModelSync;
    expect(checkTemplate({ a: ['{{name}}', { b: '{{fields}}' }], c: { $each: 'fields', as: 'f', value: '{{f.source}}' } }, scope, '/body')).toBeUndefined();
    expect(checkTemplate({ a: ['x', { b: '{{nmae}}' }] }, scope, '/body')).toMatch(/^\/body\/a\/1\/b: unknown variable \{\{nmae\}\} \(known here: .*name.*\)$/);
    expect(checkTemplate('{{fields.source}}', scope, '/p')).toMatch(/unknown variable \{\{fields.source\}\}/);
    expect(checkTemplate({ c: { $each: 'fields', as: 'f', value: '{{f.sauce}}' } }, scope, '/body')).toMatch(/^\/body\/c\/value: unknown variable \{\{f.sauce\}\}/);
    expect(checkTemplate({ c: { $each: 'name', as: 'f', value: 1 } }, scope, '/body')).toMatch(/^\/body\/c\/\$each: "name" is not a list variable/);
    expect(checkTemplate({ c: { $each: 'fields', value: 1 } }, scope, '/body')).toMatch(/a \$each takes exactly/);
    expect(checkTemplate('{{a-b}}', scope, '/p')).toBe('/p: "{{a-b}}" is not a variable name');
    expect(checkTemplate('{{runId}}', VARIABLES.createWebhookConnection, '/p')).toMatch(/unknown variable \{\{runId\}\} \(known here: name, url\)/);
  });
});

describe('profile errors of adapter.declarative', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dssc-declarative-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const reference = JSON.parse(readFileSync(join(fixturesDir, 'profiles', 'reference.json'), 'utf8')) as { adapter: { declarative: Record<string, unknown> } };

  function load(edit: (d: Record<string, any>) => void): string {
    const profile = structuredClone(reference);
    edit(profile.adapter.declarative);
    const file = join(dir, `p-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ ...profile, $schema: undefined }));
    try {
      loadProfile(file);
    } catch (error) {
      expect(error).toBeInstanceOf(UsageError);
      const message = (error as Error).message;
      expect(message.split('\n')).toHaveLength(1);
      return message.slice(message.indexOf(': ') + 2);
    }
    return 'loaded';
  }

  test('the reference profile has a declarative section, and it loads', () => {
    expect(Object.keys(loadReferenceProfile().adapter?.declarative ?? {})).toEqual(['$comment', 'createWebhookConnection', 'createSourceConnection', 'createModel', 'createModelSync', 'startRun', 'readRun', 'statuses']);
  });

  test.each([
    ['an unknown variable in a body', (d: Record<string, any>) => (d.createModel.body.identifier = '{{kye}}'), /^\/adapter\/declarative\/createModel\/body\/identifier: unknown variable \{\{kye\}\} \(known here: connectionId, key, name, table\)$/],
    ['an unknown variable in a path', (d: Record<string, any>) => (d.readRun.path = '/api/syncs/{{syncId}}/runs/{{run}}'), /^\/adapter\/declarative\/readRun\/path: unknown variable \{\{run\}\}/],
    ['a variable of another operation', (d: Record<string, any>) => (d.startRun.body = { run: '{{runId}}' }), /startRun\/body\/run: unknown variable \{\{runId\}\} \(known here: syncId\)/],
    ['a status word in two lists', (d: Record<string, any>) => d.statuses.failed.push('completed'), /^\/adapter\/declarative\/statuses: "completed" is both completed and failed$/],
    ['a missing operation (schema)', (d: Record<string, any>) => delete d.readRun, /must have required property 'readRun'/],
    ['an unknown field (schema)', (d: Record<string, any>) => (d.startRun.idPointer = '/data/id'), /startRun must NOT have additional properties/],
    ['a pointer that is not one (schema)', (d: Record<string, any>) => (d.readRun.status = 'data.status'), /readRun\/status must match pattern/],
    ['no completed word (schema)', (d: Record<string, any>) => (d.statuses.completed = []), /statuses\/completed must NOT have fewer than 1 items/],
  ])('%s is one profile line', (_what, edit, message) => {
    expect(load(edit)).toMatch(message);
  });

  test('through the CLI: exit 2 before any request, one line on stderr', async () => {
    const file = join(dir, 'typo.json');
    const profile = structuredClone(reference) as { adapter: { declarative: Record<string, any> } };
    profile.adapter.declarative.createModelSync.body.target.configuration.batch_size = '{{batch_size}}';
    writeFileSync(file, JSON.stringify({ ...profile, $schema: undefined }));
    const r = await runCli(['run', '--profile', file, '--seed', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`dss-conformance: profile ${file}: /adapter/declarative/createModelSync/body/target/configuration/batch_size: unknown variable {{batch_size}} (known here: batchSize, connectionId, fields, key, keyTarget, metadata, name, recordRequests, skipInitialBackfill, sourceId, syncAllRecords)`);
  });

  test('the JSON pointer to the webhook secret is not itself a secret; a literal password in a body is', () => {
    const file = join(dir, 'secrets.json');
    const profile = structuredClone(reference) as { adapter: { declarative: Record<string, any> } };
    profile.adapter.declarative.createSourceConnection.body.configuration.password = 'literal-db-password';
    writeFileSync(file, JSON.stringify({ ...profile, $schema: undefined }));
    const { secrets } = loadProfile(file);
    expect(secrets).toContain('literal-db-password');
    expect(secrets).not.toContain('/data/configuration/secret');
    expect(secrets.some((s) => s.includes('{{'))).toBe(false);
  });
});
