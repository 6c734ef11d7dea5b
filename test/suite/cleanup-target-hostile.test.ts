import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { cli } from '../../src/cli-main.ts';
import { cleanTarget } from '../../src/runner/cleanup-target.ts';

// `cleanup --base-url` against a target that lists hostile things: ids that are dot segments or
// empty (which URL resolution turns into a DELETE of the collection or its parent), and a target
// that stops answering half-way. The kit's prefix must be the only licence to delete.

const KEY = 'hostile-cleanup-key-0123456789';
const OLD = '2020-01-01T00:00:00Z';

interface Hostile {
  baseUrl: string;
  deletes: string[];
  close(): Promise<void>;
}

async function hostile(handle: (req: IncomingMessage, res: ServerResponse, deletes: string[]) => void): Promise<Hostile> {
  const deletes: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method === 'DELETE') deletes.push(req.url ?? '');
    handle(req, res, deletes);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    deletes,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

let out = '';
let server: Hostile | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  out = '';
  await server?.close();
  server = undefined;
});

async function cleanup(...args: string[]): Promise<number> {
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  try {
    return await cli(['cleanup', '--base-url', server!.baseUrl, '--api-key', KEY, ...args]);
  } finally {
    vi.restoreAllMocks();
  }
}

describe('cleanup --base-url against a hostile target', () => {
  test('an id that is empty or a dot segment is never deleted: it would resolve to the collection or its parent', async () => {
    server = await hostile((req, res) => {
      if (req.method === 'GET' && req.url === '/api/connections') {
        return json(res, 200, { data: ['..', '.', '', '%2e%2e', 'ok-1'].map((id, i) => ({ id, name: `dssc-0badc0de-hook-${i}`, created_at: OLD })) });
      }
      if (req.method === 'GET') return json(res, 200, { data: [] });
      return json(res, 200, {});
    });
    const code = await cleanup('--older-than', '0');
    expect(server.deletes.sort()).toEqual(['/api/connections/%252e%252e', '/api/connections/ok-1']);
    expect(out).toMatch(/not an id/);
    expect(code).toBe(1);
    expect(out).not.toContain(KEY);
  });

  test('a target that stops answering half-way: one line, exit 3 (documented), never an internal error', async () => {
    server = await hostile((req, res) => {
      if (req.method === 'GET' && req.url === '/api/connections') {
        return json(res, 200, { data: [1, 2, 3].map((n) => ({ id: `c${n}`, name: `dssc-0badc0de-hook-${n}`, created_at: OLD })) });
      }
      if (req.method === 'GET') return json(res, 200, { data: [] });
      req.socket.destroy();
    });
    const code = await cleanup('--older-than', '0');
    expect(out).not.toContain('internal error');
    expect(code).toBe(3);
    // A target that stopped answering costs one attempt, not one per resource.
    expect(server.deletes).toHaveLength(1);
    expect(out.trim().split('\n').at(-1)).toMatch(/^dss-conformance: .*connection reset/);
    expect(out).not.toContain(KEY);
  });

  test('the deletes are bounded in time: what is left when the bound runs out is said, exit 1, and nothing more is sent', async () => {
    server = await hostile((req, res) => {
      if (req.method === 'GET' && req.url === '/api/connections') {
        return json(res, 200, { data: Array.from({ length: 50 }, (_, n) => ({ id: `c${n}`, name: `dssc-0badc0de-hook-${n}`, created_at: OLD })) });
      }
      if (req.method === 'GET') return json(res, 200, { data: [] });
      return json(res, 200, {});
    });
    const lines: string[] = [];
    const { failed } = await cleanTarget({ baseUrl: { value: server.baseUrl, label: '--base-url' }, apiKey: { value: KEY, label: '--api-key' } }, { olderThanMs: 0, dryRun: false, boundMs: 0, out: (l) => lines.push(l), warn: (l) => lines.push(l) });
    expect(server.deletes).toEqual([]);
    expect(failed).toBe(50);
    expect(lines.join('\n')).toMatch(/left 50 resource\(s\) undeleted: the time for deleting \(0 s\) ran out/);
  });

  test('a profile path that URL resolution turns into another origin (/\\\\host) never carries the key there', async () => {
    const reached: string[] = [];
    const elsewhere = await hostile((req, res) => {
      reached.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      json(res, 200, { data: [{ id: 'x', name: 'dssc-0badc0de-hook-0', created_at: OLD }] });
    });
    const seen: string[] = [];
    server = await hostile((req, res) => {
      seen.push(req.url ?? '');
      json(res, 200, { data: [] });
    });
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const host = elsewhere.baseUrl.slice('http://'.length);
    const file = join(mkdtempSync(join(tmpdir(), 'dssc-cleanup-origin-')), 'p.json');
    writeFileSync(file, JSON.stringify({ name: 'other-origin', cleanup: { connections: { delete: { path: '/api/connections/{{id}}' }, list: { path: `/\\\\${host}/list`, items: '/data' } }, models: { delete: { path: '/api/models/{{id}}' }, list: { path: `/\\/${host}/list`, items: '/data' } } } }));
    try {
      const code = await cleanup('--profile', file, '--older-than', '0');
      expect(reached).toEqual([]);
      expect(out).toMatch(/another origin/);
      expect(out).not.toContain(KEY);
      expect(code).toBe(1);
    } finally {
      await elsewhere.close();
    }
    // Nor to the target: the path is refused before anything is sent.
    expect(seen).toEqual([]);
  });
});
