import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Exchange } from '../../src/client/http-client.ts';
import { loadReferenceProfile } from '../../src/profile/profile.ts';
import { readCreated, startCreatedLog } from '../../src/report/created-log.ts';
import { Redactor } from '../../src/report/redact.ts';
import { cleanupClient, cleanupLines, deleteResources } from '../../src/runner/delete-resources.ts';
import { creationsOf, noteCreation } from '../../src/suite/creations.ts';

// What a run created is noted as each creation is answered, and deleted at the end, dependents
// first; a delete that fails is a note (redacted), never a check's failure.

const KEY = 'delete-created-key-7';

function exchange(method: string, url: string, status: number, answer: unknown, body?: unknown): Exchange {
  return {
    request: { method, url, headers: {}, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
    response: { status, headers: {}, body: JSON.stringify(answer) },
    durationMs: 1,
  };
}

describe('noting creations', () => {
  test('the kit\'s creations answered 2xx with an id, under a base URL with a path of its own; nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-created-'));
    // The runner's side: the log the worker appends to (it never creates it).
    startCreatedLog(dir);
    const creations = creationsOf(loadReferenceProfile(), false);
    const base = 'http://target.example/prefix';
    noteCreation(exchange('POST', `${base}/api/connections`, 200, { data: { id: 'c1' } }, { name: 'dssc-0000abcd-crm-1' }), creations, dir, base);
    noteCreation(exchange('POST', `${base}/api/models`, 201, { data: { id: 'm1' } }, { name: 'dssc-0000abcd-model-2' }), creations, dir, base);
    noteCreation(exchange('POST', `${base}/api/syncs`, 200, { data: { id: 's1' } }), creations, dir, base);
    noteCreation(exchange('POST', `${base}/api/bulk/syncs`, 202, { data: { id: 7 } }), creations, dir, base);
    // Not creations: a refused one, a run start, a read, an answer without an id.
    noteCreation(exchange('POST', `${base}/api/connections`, 400, { key: 'validation_error' }), creations, dir, base);
    noteCreation(exchange('POST', `${base}/api/syncs/s1/executions`, 200, { data: { id: 'e1' } }), creations, dir, base);
    noteCreation(exchange('GET', `${base}/api/connections/c1`, 200, { data: { id: 'c1' } }), creations, dir, base);
    noteCreation(exchange('POST', `${base}/api/connections`, 200, { data: {} }), creations, dir, base);
    expect(readCreated(dir)).toEqual([
      { kind: 'connections', id: 'c1', name: 'dssc-0000abcd-crm-1' },
      { kind: 'models', id: 'm1', name: 'dssc-0000abcd-model-2' },
      { kind: 'modelSyncs', id: 's1' },
      { kind: 'bulkSyncs', id: '7' },
    ]);
  });
});

describe('deleting what the run created', () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (req.url === '/api/connections/c1') return res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: `cannot delete, Bearer ${KEY} refused` }));
    if (req.url === '/api/connections/c2') return res.writeHead(404).end();
    res.writeHead(204).end();
  });
  let baseUrl = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('syncs before models before connections; 404 is gone; a failure is said, redacted; a kind without a delete is kept', async () => {
    const redactor = new Redactor([KEY]);
    const client = cleanupClient({ baseUrl, apiKey: KEY, timeoutMs: 5_000, redactor });
    const cleanup = loadReferenceProfile().cleanup!;
    const { models: _m, ...withoutModels } = cleanup;
    const outcome = await deleteResources(client, withoutModels, [
      { kind: 'connections', id: 'c1', name: 'dssc-0000abcd-hook-1' },
      { kind: 'connections', id: 'c2' },
      { kind: 'models', id: 'm1' },
      { kind: 'modelSyncs', id: 's 1' },
      { kind: 'bulkSyncs', id: 'b1' },
    ], redactor, 30_000);
    expect(seen).toEqual(['DELETE /api/syncs/s%201', 'DELETE /api/bulk/syncs/b1', 'DELETE /api/connections/c1', 'DELETE /api/connections/c2']);
    expect(outcome.deleted.map((r) => r.id)).toEqual(['s 1', 'b1', 'c2']);
    expect(outcome.kept).toEqual({ models: 1 });
    expect(outcome.failures).toEqual([{ kind: 'connections', id: 'c1', name: 'dssc-0000abcd-hook-1', reason: 'answered 500 (cannot delete, Bearer [REDACTED] refused)' }]);
    expect(cleanupLines(outcome, 'the run created')).toEqual([
      'deleted 3 resources the run created',
      'kept 1 model the run created: the profile declares no delete for them (cleanup.models.delete)',
      'could not delete connection c1 (dssc-0000abcd-hook-1): answered 500 (cannot delete, Bearer [REDACTED] refused)',
    ]);
  });
});
