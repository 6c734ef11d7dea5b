import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { cleanupCommand } from '../../src/runner/cleanup-command.ts';
import type { RunningReference } from '../../src/reference/index.ts';
import { API_KEY, call, start } from '../reference/helpers.ts';

// `dss-conformance cleanup --base-url`: what dead runs left on a target goes, found by the kit's
// run prefix through the profile's lists (the reference profile: the real service's GET lists and
// deletes); nothing without that prefix is ever touched.

let ref: RunningReference;
beforeAll(async () => {
  ref = await start();
});
afterAll(() => ref.close());

let out = '';
afterEach(() => {
  vi.restoreAllMocks();
  out = '';
});

async function cleanup(...args: string[]): Promise<number> {
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  try {
    return await cleanupCommand(['--base-url', ref.baseUrl, ...args], { DSS_API_KEY: API_KEY });
  } finally {
    vi.restoreAllMocks();
  }
}

async function connection(name: string): Promise<string> {
  const made = await call(ref, 'POST', '/api/connections', { body: { name, type: 'webhook', configuration: { url: 'https://x.invalid/h' } } });
  expect(made.status).toBe(200);
  return made.json.data.id as string;
}

const names = async () => ((await call(ref, 'GET', '/api/connections')).json.data as Array<{ name: string }>).map((c) => c.name).sort();

describe('cleanup --base-url', () => {
  test('a run younger than --older-than is kept; at 0 its resources go, and a resource without the prefix survives', async () => {
    await connection('orders-warehouse');
    await connection('dssc-notarun-hook');
    await connection('Dssc-0badc0de-hook-0');
    await connection('dssc-0badc0de-hook-1');
    await connection('dssc-0badc0de-v1-hook-2');

    expect(await cleanup('--older-than', '1d')).toBe(0);
    expect(out).toMatch(/kept run 0badc0de: 2 resource\(s\), the newest made \d+ s ago/);
    expect(await names()).toHaveLength(5);

    expect(await cleanup('--older-than', '0', '--dry-run')).toBe(0);
    expect(out).toContain('would delete connection');
    expect(await names()).toHaveLength(5);

    expect(await cleanup('--older-than', '0')).toBe(0);
    expect(out).toMatch(/deleted 2 resource\(s\) of 1 run\(s\)/);
    expect(await names()).toEqual(['Dssc-0badc0de-hook-0', 'dssc-notarun-hook', 'orders-warehouse']);
    expect(out).not.toContain(API_KEY);
  });

  test('without a key, or with a profile that lists nothing, it says so (exit 2)', async () => {
    await expect(cleanupCommand(['--base-url', ref.baseUrl], {})).rejects.toThrow(/needs --api-key/);
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'dssc-cleanup-')), 'p.json');
    writeFileSync(file, JSON.stringify({ name: 'no-lists', cleanup: { connections: { delete: { path: '/api/connections/{{id}}' } } } }));
    await expect(cleanup('--profile', file)).rejects.toThrow(/declares no list request/);
    writeFileSync(file, JSON.stringify({ name: 'typo', cleanup: { connections: { delete: { path: '/api/connections/{{ident}}' } } } }));
    await expect(cleanup('--profile', file)).rejects.toThrow(/\/cleanup\/connections\/delete\/path: unknown variable \{\{ident\}\}/);
  });
});
