import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { captureLogOf, entriesOfFile } from '../../src/adapters/capture-log.ts';
import { declarativeAdapter } from '../../src/adapters/declarative.ts';
import type { DeclarativeSpec } from '../../src/adapters/declarative-spec.ts';
import { DEFAULT_POLL, type AdapterContext } from '../../src/adapters/types.ts';
import { loadProfile, loadReferenceProfile } from '../../src/profile/profile.ts';
import { UsageError } from '../../src/cli-errors.ts';
import { fixturesDir } from '../../src/paths.ts';
import { SignedLogFiles } from '../../src/reference/log-files.ts';

// The capture log as the real service offers it: a request whose answer names log files behind
// signed URLs on a storage origin of their own. The key must never reach that origin.

const KEY = 'capture-log-test-key';
const ENTRIES = [
  { at: 't1', request: { method: 'POST', url: 'http://r/c/1' }, response: { status: 200, body: '' } },
  { at: 't2', request: { method: 'POST', url: 'http://r/c/1' }, response: { error: 'connection reset' } },
];
const EXPECTED = [
  { request: { method: 'POST', url: 'http://r/c/1' }, response: { status: 200 } },
  { request: { method: 'POST', url: 'http://r/c/1' }, response: { error: 'connection reset' } },
];

const stores: SignedLogFiles[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

function storage(ttlMs?: number): SignedLogFiles {
  const files = new SignedLogFiles('127.0.0.1', ttlMs);
  stores.push(files);
  return files;
}

const listen = (server: Server) => new Promise<Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
const ctx = (baseUrl: string) => ({ baseUrl, apiKey: KEY, timeoutMs: 5_000 });
const answer = (json: unknown) => ({ status: 200, json, headers: {} });

describe('log files', () => {
  test('JSON lines, gzip-compressed or not (told by the first bytes when not declared), and a JSON array', () => {
    const lines = ENTRIES.map((e) => JSON.stringify(e)).join('\n') + '\n';
    expect(entriesOfFile(gzipSync(lines), {}, 'f')).toEqual(ENTRIES);
    expect(entriesOfFile(Buffer.from(lines), { gzip: false }, 'f')).toEqual(ENTRIES);
    expect(entriesOfFile(gzipSync(JSON.stringify(ENTRIES)), { format: 'json-array', gzip: true }, 'f')).toEqual(ENTRIES);
    expect(() => entriesOfFile(Buffer.from(lines), { gzip: true }, 'f')).toThrow(/f: not gzip/);
    expect(() => entriesOfFile(Buffer.from('{"a":1}\nnot json\n'), {}, 'f')).toThrow(/f, line 2: not JSON/);
  });

  test('entries in the answer itself; null is an empty log; nothing there cannot be read', async () => {
    const spec = { path: '/x', entries: '/data/entries' };
    expect(await captureLogOf(ctx('http://127.0.0.1:1'), answer({ data: { entries: ENTRIES } }), spec)).toEqual(EXPECTED);
    expect(await captureLogOf(ctx('http://127.0.0.1:1'), answer({ data: { entries: null } }), spec)).toEqual([]);
    await expect(captureLogOf(ctx('http://127.0.0.1:1'), answer({ data: {} }), spec)).rejects.toThrow(/nothing at \/data\/entries/);
  });

  test('signed URLs on another origin are fetched without any credential of the kit', async () => {
    const files = storage();
    const first = await files.publish(ENTRIES.slice(0, 1));
    const second = await files.publish(ENTRIES.slice(1));
    const log = await captureLogOf(ctx('http://127.0.0.1:1'), answer({ data: { expires: first.expires, urls: [first.url, second.url] } }), { path: '/x', urls: '/data/urls' });
    expect(log).toEqual(EXPECTED);
    expect(files.credentialed).toBe(0);
  });

  test('on the target\'s own origin the key goes along (the storage here refuses it, as a signed URL must not need it)', async () => {
    const files = storage();
    const { url } = await files.publish(ENTRIES);
    await expect(captureLogOf(ctx(new URL(url).origin), answer({ data: { urls: url } }), { path: '/x', urls: '/data/urls' })).rejects.toThrow(/answered 400/);
    expect(files.credentialed).toBe(1);
  });

  test('readLog.origins: a listed origin is fetched; any other is not asked at all, and the one-line error names no query', async () => {
    const files = storage();
    const { url } = await files.publish(ENTRIES);
    const listed = { path: '/x', urls: '/data/urls', origins: [new URL(url).origin.toUpperCase()] };
    expect(await captureLogOf(ctx('http://127.0.0.1:1'), answer({ data: { urls: [url] } }), listed)).toEqual(EXPECTED);
    let asked = 0;
    const other = await listen(createServer((_req, res) => (asked++, res.end('{}'))));
    const elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}/logs/1.jsonl?X-Signature=sig-0123456789`;
    const refused = captureLogOf(ctx('http://127.0.0.1:1'), answer({ data: { urls: [url, elsewhere] } }), listed);
    await expect(refused).rejects.toThrow(/^log file http:\/\/127\.0\.0\.1:\d+\/logs\/1\.jsonl: origin not in readLog\.origins \(HTTP:\/\/127\.0\.0\.1:\d+\), not fetched$/);
    await refused.catch((e: Error) => expect(e.message).not.toContain('sig-0123456789'));
    expect(asked).toBe(0);
    other.close();
    // The target's own origin needs no listing: the key goes there with every request anyway.
    await expect(captureLogOf(ctx(new URL(url).origin), answer({ data: { urls: url } }), { ...listed, origins: ['https://storage.example'] })).rejects.toThrow(/answered 400/);
    expect(files.credentialed).toBe(1);
  });

  test('readLog.origins in a profile: origins only (no path), else the profile is refused in one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dssc-origins-'));
    const profile = JSON.parse(readFileSync(join(fixturesDir, 'profiles', 'real-shaped.json'), 'utf8')) as { adapter: { declarative: { readLog: Record<string, unknown> } } };
    const withOrigins = (origins: unknown) => {
      profile.adapter.declarative.readLog.origins = origins;
      writeFileSync(join(dir, 'p.json'), JSON.stringify(profile));
      return () => loadProfile(join(dir, 'p.json'));
    };
    expect(withOrigins(['https://logs.example-storage.com', 'http://127.0.0.1:9000'])().profile.adapter?.declarative?.readLog?.origins).toHaveLength(2);
    for (const bad of [['https://logs.example-storage.com/bucket'], ['logs.example-storage.com'], [], 'https://logs.example-storage.com']) {
      expect(withOrigins(bad), JSON.stringify(bad)).toThrow(UsageError);
      try {
        withOrigins(bad)();
      } catch (e) {
        expect((e as Error).message).toMatch(/readLog\/origins/);
        expect((e as Error).message).not.toContain('\n');
      }
    }
  });

  test('an expired or altered URL is refused, and the error names no signature', async () => {
    const expired = storage(-1000);
    const { url } = await expired.publish(ENTRIES);
    const error = await captureLogOf(ctx('http://127.0.0.1:1'), answer({ data: { urls: [url] } }), { path: '/x', urls: '/data/urls' }).catch((e: Error) => e);
    expect(String(error)).toMatch(/log file http:\/\/127\.0\.0\.1:\d+\/logs\/[0-9a-f]+\.jsonl\.gz answered 403/);
    expect(String(error)).not.toContain('signature=');
    const files = storage();
    const fresh = await files.publish(ENTRIES);
    await expect(captureLogOf(ctx('http://127.0.0.1:1'), answer({ data: { urls: [fresh.url.replace(/signature=([0-9a-f])/, (_m, c: string) => `signature=${c === '0' ? '1' : '0'}`)] } }), { path: '/x', urls: '/data/urls' })).rejects.toThrow(/answered 403/);
  });
});

describe('a hostile log storage', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
  });
  async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handle);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const read = (url: string, timeoutMs = 5_000) => captureLogOf({ baseUrl: 'http://127.0.0.1:1', apiKey: KEY, timeoutMs }, answer({ urls: [url] }), { path: '/x', urls: '/urls' });

  test('a file that drips bytes for ever is given up within the timeout: it cannot hold the run', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // Never ends: a byte well within each gap of the body timeout, for ever.
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    const error = await read(`${origin}/logs/f.jsonl?X-Amz-Signature=drip0123456789abcdef`, 400).catch((e: Error) => e);
    expect(String(error)).toMatch(/log file http:\/\/127\.0\.0\.1:\d+\/logs\/f\.jsonl: no answer within 400 ms/);
    expect(String(error)).not.toContain('drip0123456789abcdef');
  });

  test('credentials in a signed URL\'s userinfo or query never appear in the error; a redirect is not followed', async () => {
    let hits = 0;
    const elsewhere = await serve((_req, res) => {
      hits++;
      res.end('[]');
    });
    const origin = await serve((_req, res) => res.writeHead(302, { location: `${elsewhere}/stolen` }).end());
    for (const url of [`http://AKIAEXAMPLEUSER:userinfoSecret0123@${origin.slice(7)}/logs/f.jsonl?sig=querySecret0123`, `${origin}/logs/f.jsonl?sig=querySecret0123`, 'http://AKIAEXAMPLEUSER:userinfoSecret0123@127.0.0.1:1/logs/f?sig=querySecret0123']) {
      const error = await read(url).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect(String(error)).not.toMatch(/userinfoSecret0123|querySecret0123|AKIAEXAMPLEUSER/);
      expect(String(error)).not.toContain('\n');
    }
    expect(hits).toBe(0);
  });
});

describe('the declarative adapter reads the log through readLog', () => {
  const reference = loadReferenceProfile().adapter!.declarative!;

  function adapterWith(readLog: DeclarativeSpec['readLog'], answers: (path: string) => unknown) {
    const paths: string[] = [];
    const context: AdapterContext = {
      baseUrl: 'http://127.0.0.1:1', apiKey: KEY, runId: 'r1', timeoutMs: 5_000, options: {}, poll: DEFAULT_POLL,
      request: async (_method, path) => {
        paths.push(path);
        return { status: 200, json: answers(path), headers: {} };
      },
    };
    const { captureLog: _c, capture: _p, ...readRun } = reference.readRun;
    return { adapter: declarativeAdapter(context, { ...reference, readRun, ...(readLog ? { readLog } : {}) }), paths };
  }

  test('with readLog: the run\'s log from the files its answer names', async () => {
    const files = storage();
    const { url } = await files.publish(ENTRIES);
    const { adapter, paths } = adapterWith({ path: '/api/syncs/{{syncId}}/executions/{{runId}}/records', urls: '/data/urls', gzip: true }, () => ({ data: { urls: [url] } }));
    expect(await adapter.readCaptureLog!('s 1', 'e1')).toEqual(EXPECTED);
    expect(paths).toEqual(['/api/syncs/s%201/executions/e1/records']);
    expect(files.credentialed).toBe(0);
  });

  test('without readLog there is no readCaptureLog: the log is not observable', () => {
    expect(adapterWith(undefined, () => ({})).adapter.readCaptureLog).toBeUndefined();
  });
});
