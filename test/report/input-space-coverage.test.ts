import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { credentialClass } from '../../src/report/credential-class.ts';
import { classifyRequest, unknownIdShape, stringLength } from '../../src/report/input-space-classify.ts';
import { inputSpaceCoverage } from '../../src/report/input-space-coverage.ts';
import { REQUEST_LOG_FILE, RequestLogWriter, startRequestLog, WALKED_FILE, writeRequestLog, type LoggedRequest } from '../../src/report/request-log.ts';
import { walked } from '../../src/suite/input-space-record.ts';
import { useRunServers } from '../suite/run-server-pool.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const keys = { apiKey: 'user-Key-1', orgKey: 'org-key-2', basic: 'key-as-username' as const };
const req = (r: Omit<Partial<LoggedRequest>, 'body'> & { body?: unknown }): LoggedRequest => ({
  method: 'POST',
  path: '/api/connections',
  version: '2025-09-18',
  credential: 'bearer user key',
  ...r,
  ...(r.body !== undefined ? { contentType: 'application/json', body: typeof r.body === 'string' ? r.body : JSON.stringify(r.body) } : {}),
}) as LoggedRequest;
const dbConfig = { hostname: 'h.example', port: 5432, database: 'db1', username: 'user', password: '[REDACTED]' };
const kindTypes = { relationalDatabase: 'postgresql', objectStore: 's3', crm: 'crm', marketing: 'mkt' };

describe('classifiers', () => {
  test('the credential class names the key and the scheme, or the near miss, never the key', () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, '<absent>'],
      ['Bearer user-Key-1', 'bearer user key'],
      ['bearer user-Key-1', 'bearer user key'],
      [`Basic ${b64('org-key-2:')}`, 'basic organization key'],
      [`Basic ${b64(':org-key-2')}`, 'organization key in the other place'],
      [`Basic ${b64('org-key-2')}`, 'basic not a pair'],
      [`Basic ${b64('user-Key-1:')}`, 'user key under basic'],
      ['Bearer org-key-2', 'organization key under bearer'],
      ['Bearer user-Key-1x', 'key with one character more'],
      ['Bearer user-Key-', 'key with one character less'],
      ['Bearer USER-kEY-1', 'key in other case'],
      ['Bearer user-Key-2', 'key with one character changed'],
      ['Bearer xser-Key-1', 'key with one character changed'],
      ['Bearer user-Key-1 x', 'key followed by another token'],
      ['Bearer', 'empty bearer'],
      ['Bearer nope', 'wrong key'],
      ['Token user-Key-1', 'unknown scheme'],
      ['Basic user-Key-1', 'key under basic without base64'],
    ];
    for (const [header, cls] of cases) expect([header, credentialClass(header, keys)]).toEqual([header, cls]);
    expect(credentialClass(`Basic ${b64(':org-key-2')}`, { ...keys, basic: undefined })).toBe('basic organization key');
  });

  test('unknown ids by shape; assigned ids are not unknown', () => {
    expect(unknownIdShape('<id3>')).toBeUndefined();
    expect(unknownIdShape('dssc-<run>-missing-bulk')).toBe('<opaque-unknown>');
    expect(unknownIdShape('123e4567-e89b-12d3-a456-426614174000')).toBe('<uuid-unknown>');
    expect(unknownIdShape('a'.repeat(200))).toBe('<long-unknown>');
    expect(unknownIdShape(encodeURIComponent('a b/c?d#e%'))).toBe('<url-special-unknown>');
  });

  test('string lengths count the run id at its length, and non-ASCII is its own class', () => {
    expect(stringLength('dssc-<run>-x')).toBe('dssc-12345678-x'.length);
    expect(stringLength('x'.repeat(33))).toBe(33);
    expect(stringLength('Zoë')).toBe('<non-ascii>');
    expect(stringLength('[REDACTED]')).toBeUndefined();
  });

  test('a connection body: the kind from its type, one departing field named with its shape', () => {
    const at = (body: unknown) => classifyRequest(req({ body }), { kindTypes }).map((o) => o.values);
    const valid = at({ name: 'n', type: 'postgresql', configuration: dbConfig });
    expect(valid[0]).toMatchObject({ version: '2025-09-18', credential: 'bearer user key', kind: 'relationalDatabase', 'content-type': 'application/json' });
    // A one-character name is a boundary, redirect_url absent: both valid corners.
    expect(valid.filter((v) => v['connection-field']).map((v) => `${v['connection-field']}: ${v['field-shape']}`)).toEqual(['relationalDatabase name: boundary', 'relationalDatabase redirect_url: absent']);
    const shape = (body: unknown) => at(body).filter((v) => v['connection-field']).map((v) => `${v['connection-field']}: ${v['field-shape']}`);
    expect(shape({ name: 'conn', type: 'postgresql', configuration: { ...dbConfig, port: '5432' } })).toEqual(['relationalDatabase configuration.port: look-alike']);
    // The run's own port, normalised in requests.json, is an integer.
    expect(shape({ name: 'conn', type: 'postgresql', configuration: { ...dbConfig, port: '<source-db-port>' } })).toEqual(['relationalDatabase redirect_url: absent']);
    expect(shape({ name: 'conn', type: 'postgresql', configuration: { ...dbConfig, port: null } })).toEqual(['relationalDatabase configuration.port: null']);
    expect(shape({ name: 'conn', type: 'postgresql', configuration: { ...dbConfig, port: 70000 } })).toEqual(['relationalDatabase configuration.port: boundary']);
    expect(shape({ name: 'conn', type: 'postgresql', configuration: { ...dbConfig, hostname: {} } })).toEqual(['relationalDatabase configuration.hostname: wrong type']);
    // The type itself departs: the kind is read from the configuration's fields.
    expect(shape({ name: 'conn', configuration: dbConfig })).toEqual(['relationalDatabase type: absent']);
    expect(shape({ name: 'conn', type: 'mkt', configuration: { x: 1 } })).toEqual(['marketing configuration: boundary']);
    // Two departures show no single field's shape.
    expect(shape({ name: 1, type: 'postgresql', configuration: { ...dbConfig, port: null } })).toEqual([]);
  });

  test('bulk syncs: the destination kind from its settings, per version; update bodies: the list length goes with the shape', () => {
    const bulk = { name: 'b', source_connection_id: '<id1>', destination_connection_id: '<id2>', mode: 'replicate', schedule: { frequency: 'manual' }, dest_configuration: { schema: 'public' }, schemas: ['a', 'b'] };
    const [first] = classifyRequest(req({ path: '/api/bulk/syncs', version: '2022-12-12', body: bulk }));
    expect(first!.values).toMatchObject({ 'destination-kind': 'relationalDatabase', 'list-length': 2 });
    const put = classifyRequest(req({ method: 'PUT', path: '/api/syncs/123e4567-e89b-12d3-a456-426614174000/error-handling', body: { subscribers: Array.from({ length: 11 }, (_, i) => `a${i}@example.com`), warning_notifications: 'true' } }));
    expect(put.map((o) => o.values).filter((v) => v['error-handling-field'])).toEqual([
      expect.objectContaining({ 'unknown-id': '<uuid-unknown>', 'list-length': 11, 'error-handling-field': 'warning_notifications', 'field-shape': 'look-alike' }),
    ]);
    expect(classifyRequest(req({ method: 'PUT', path: '/api/syncs/<id4>/error-handling', body: '[]' })).map((o) => o.values['field-shape'])).toContain('look-alike');
  });
});

describe('coverage --input-space', () => {
  // Judged by exit code, output and reports only: one long-lived child runs the command lines one
  // after another (test/suite/run-server-pool.ts), the kit loaded once instead of once per line.
  const servers = useRunServers(1, { sharedSourceDb: true });

  test('the figure counts values and listed pairs; a gap is named with its reason', () => {
    const c = inputSpaceCoverage([
      { operation: 'sync.records delivery', values: { 'sync-mode': 'differential', batches: 3, 'failing-batch': 'middle' } },
      { operation: 'sync.records delivery', values: { 'sync-mode': 'full sync', batches: '1' } },
    ]);
    const d = c.operations.find((o) => o.operation === 'sync.records delivery')!;
    expect(d.dimensions.find((x) => x.dimension === 'batches')).toMatchObject({ covered: 2, total: 2, missing: [] });
    expect(d.dimensions.find((x) => x.dimension === 'sync-mode')).toMatchObject({ covered: 2, missing: ['skip backfill'], reason: 'no check recorded it (walked())' });
    // One batch has no middle or last batch: 2 × 4 - 2 pairs.
    expect(d.pairs.find((p) => p.pair[0] === 'batches')).toMatchObject({ covered: 1, total: 6 });
    expect(c.total).toBeGreaterThan(d.total);
  });

  test('over a reports folder: requests.json and walked.json read, every gap named, --json; a folder without a run is exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-space-'));
    const empty = await servers.run(['coverage', '--input-space', dir]);
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim()).toBe(`dss-conformance: coverage --input-space: ${dir} holds no run (no requests.json; run 'dss-conformance run --reports ${dir}' first)`);
    // The worker's side, as in a run: requests and walks appended to the raw log, rendered once.
    startRequestLog(dir);
    const writer = new RequestLogWriter(dir);
    for (const version of ['2025-09-18', '2024-02-08', '2023-04-25', '2022-12-12', '2021-05-23', '<absent>']) writer.request({ method: 'GET', path: '/api/bulk/syncs/dssc-r1d-missing-x/error-handling', version, credential: 'bearer user key' });
    writer.walked({ operation: 'GET /api/bulk/syncs/{id}/error-handling', values: { observation: 'again later' }, check: 'EHB-001 x' });
    writer.walked({ operation: 'GET /api/bulk/syncs/{id}/error-handling', values: { observation: 'again later' }, check: 'EHB-001 x' });
    writer.close();
    writeRequestLog(dir, { runId: 'r1d', baseUrl: 'http://127.0.0.1:1' });
    expect(existsSync(join(dir, REQUEST_LOG_FILE))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, WALKED_FILE), 'utf8'))).toEqual([{ operation: 'GET /api/bulk/syncs/{id}/error-handling', values: { observation: 'again later' }, check: 'EHB-001 x' }]);
    const text = await servers.run(['coverage', '--input-space', dir]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^GET \/api\/bulk\/syncs\/\{id\}\/error-handling: [\d.]+% \(\d+\/\d+\)$/m);
    expect(text.stdout).toMatch(/^ {2}version +6\/6$/m);
    expect(text.stdout).toMatch(/^ {2}observation +1\/3 {2}missing \(no check recorded it \(walked\(\)\)\): right away, after another write$/m);
    expect(text.stdout).toMatch(/^ {2}version × unknown-id +6\/36 {2}missing: 2025-09-18 × <uuid-unknown> \| <long-unknown> \| <url-special-unknown> \| <own-shape-unknown> \| <other-resource-unknown>;/m);
    expect(text.stdout).toMatch(/^input space: [\d.]+% \(\d+\/\d+ values and value pairs/m);
    const json = await servers.run(['coverage', '--input-space', dir, '--json']);
    const parsed = JSON.parse(json.stdout) as { operations: Array<{ operation: string; dimensions: Array<{ dimension: string; covered: number }> }> };
    expect(parsed.operations.find((o) => o.operation.startsWith('GET'))!.dimensions.find((d) => d.dimension === 'unknown-id')!.covered).toBe(1);
    writeFileSync(join(dir, 'requests.json'), '{}');
    expect((await servers.run(['coverage', '--input-space', dir])).code).toBe(2);
  });

  test('walked() outside a run records nothing and does not throw', () => {
    expect(() => walked('sync.records delivery', { batches: 3 })).not.toThrow();
  });

  test('a real narrow run: run --only versions, then coverage --input-space', async () => {
    const run = await servers.run(['run', '--only', 'versions', '--seed', '3', '--num-runs', '2', '--allow-incomplete']);
    expect(run.code, run.stdout.slice(-1500)).toBe(0);
    const requests = JSON.parse(readFileSync(join(run.reports, 'requests.json'), 'utf8')) as LoggedRequest[];
    expect(requests.every((r) => r.version !== undefined && r.credential !== undefined)).toBe(true);
    const coverage = await servers.run(['coverage', '--input-space', run.reports, '--json']);
    expect(coverage.code, coverage.stderr).toBe(0);
    const parsed = JSON.parse(coverage.stdout) as { operations: Array<{ operation: string; dimensions: Array<{ dimension: string; covered: number; total: number }> }> };
    const bulk = parsed.operations.find((o) => o.operation === 'POST /api/bulk/syncs')!;
    // The VER checks send a bulk sync under every version and with none.
    expect(bulk.dimensions.find((d) => d.dimension === 'version')).toMatchObject({ covered: 6, total: 6 });
  });
});
