import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, expect, test, vi } from 'vitest';
import { loadReferenceProfile } from '../../src/profile/profile.ts';
import { CREATED_LOG_FILE } from '../../src/report/created-log.ts';
import { Redactor } from '../../src/report/redact.ts';
import { deleteCreatedSync } from '../../src/runner/delete-created.ts';
import type { RunSettings } from '../../src/runner/settings.ts';

// An interrupted run deletes what it created in a child process it waits for. The job went to the
// child in one environment variable, which Linux caps at 128 KiB: a run that had created a couple
// of thousand resources deleted none of them (spawn failed with E2BIG), and said the time ran out.

const KEY = 'delete-sync-key-0123456789';

// The target answers in a thread of its own: spawnSync blocks this one while the child deletes.
const TARGET = `
const { createServer } = require('node:http');
const { parentPort } = require('node:worker_threads');
let deletes = 0;
const server = createServer((req, res) => { if (req.method === 'DELETE') deletes++; res.writeHead(200, { 'content-type': 'application/json' }).end('{}'); });
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', () => parentPort.postMessage({ deletes }));
`;

let worker: Worker | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await worker?.terminate();
});

test('interrupted, a run that created thousands of resources still deletes them', async () => {
  worker = new Worker(TARGET, { eval: true });
  const next = () => new Promise<{ port?: number; deletes?: number }>((r) => worker!.once('message', r));
  const { port } = await next();
  const reportsDir = mkdtempSync(join(tmpdir(), 'dssc-delete-sync-'));
  const resources = Array.from({ length: 2_500 }, (_, i) => JSON.stringify({ kind: 'connections', id: `conn-${String(i).padStart(40, '0')}`, name: `dssc-0badc0de-hook-${i}` }));
  writeFileSync(join(reportsDir, CREATED_LOG_FILE), resources.join('\n') + '\n');
  const settings = {
    embedded: false, reportsDir, baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY, secrets: [], timeoutMs: 10_000,
    profile: { ...loadReferenceProfile(), auth: undefined },
  } as unknown as RunSettings;
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((c) => ((out += String(c)), true));
  // The claim is that the job reaches the child, not the 3 s an interrupted run allows it (a CI's
  // SIGKILL comes seconds after its SIGTERM): on a busy machine the child alone may take longer
  // than that to start, and the deletes are then rightly said as not done.
  deleteCreatedSync(settings, new Redactor([KEY]), 120_000);
  vi.restoreAllMocks();
  worker.postMessage('count');
  const { deletes } = await next();
  expect(deletes, out).toBeGreaterThan(0);
  expect(out).toMatch(/deleted \d+ resources the run created/);
  expect(out).not.toContain(KEY);
});
