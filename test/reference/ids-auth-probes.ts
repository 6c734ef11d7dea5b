import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { call, createBulkSync, createModelSync, expectError } from './helpers.ts';

// Probes of the faults added with the unknown-id, list-length, credential and content-type
// dimensions (issue 18), spread into faults.test.ts's table: each shows the deviation its fault
// promises for the one value that triggers it, and that the value next to it is left alone.

type Probe = { probe: (ref: RunningReference) => Promise<void> };

const UUID = '00000000-0000-4000-8000-000000000000';
const SPECIAL = encodeURIComponent('no such/id?#%');
const b64 = (s: string) => Buffer.from(s).toString('base64');
const addresses = (n: number) => Array.from({ length: n }, (_, i) => `a${i}@x.org`);
const syncPath = async (ref: RunningReference) => `/api/syncs/${await createModelSync(ref)}/error-handling`;
const bulkPath = async (ref: RunningReference) => `/api/bulk/syncs/${await createBulkSync(ref)}/error-handling`;

/** A long list read whole again and again, then cut to 10 once another resource is written (a PUT there, or a creation). */
const lostAfterOtherWrites = (own: (ref: RunningReference) => Promise<string>, other: (ref: RunningReference) => Promise<string>): Probe => ({
  probe: async (ref) => {
    const [path, elsewhere] = [await own(ref), await other(ref)];
    expect((await call(ref, 'PUT', path, { body: { subscribers: addresses(11) } })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call(ref, 'GET', path)).json.data.subscribers).toHaveLength(11);
    expect((await call(ref, 'PUT', elsewhere, { body: {} })).status).toBe(200);
    expect((await call(ref, 'GET', path)).json.data.subscribers).toHaveLength(10);
  },
});

/** The fault's answer for the triggering id, and 404 for a plain unknown id. */
const idProbe = (method: 'GET' | 'PUT', route: string, id: string, status: number): Probe => ({
  probe: async (ref) => {
    const body = method === 'PUT' ? { body: { warning_notifications: true } } : {};
    expect((await call(ref, method, route.replace('{id}', id), body)).status).toBe(status);
    expectError(await call(ref, method, route.replace('{id}', 'nope'), body), 404, 'not_found');
  },
});

/** A PUT of `n` addresses answers `answered` of them, and a read answers `read` of them. */
const listProbe = (path: (ref: RunningReference) => Promise<string>, n: number, answered: number, read: number): Probe => ({
  probe: async (ref) => {
    const at = await path(ref);
    expect((await call(ref, 'PUT', at, { body: { subscribers: addresses(n) } })).json.data.subscribers).toHaveLength(answered);
    expect((await call(ref, 'GET', at)).json.data.subscribers).toHaveLength(read);
    expect((await call(ref, 'PUT', at, { body: { subscribers: addresses(10) } })).json.data.subscribers).toHaveLength(10);
  },
});

/** The Authorization value is accepted (404 on an unknown id), and the right key still works. */
const authProbe = (accepted: (ref: RunningReference) => string, refused: (ref: RunningReference) => string): Probe => ({
  probe: async (ref) => {
    const at = '/api/bulk/syncs/nope/error-handling';
    expectError(await call(ref, 'GET', at, { auth: accepted(ref) }), 404, 'not_found');
    expectError(await call(ref, 'GET', at, { auth: refused(ref) }), 403, 'forbidden');
  },
});

export const idsAuthProbes: Record<string, Probe> = {
  'bulk-error-handling-uuid-unknown-200': idProbe('GET', '/api/bulk/syncs/{id}/error-handling', UUID, 200),
  'bulk-error-handling-special-id-500': idProbe('GET', '/api/bulk/syncs/{id}/error-handling', SPECIAL, 500),
  'bulk-put-uuid-unknown-200': idProbe('PUT', '/api/bulk/syncs/{id}/error-handling', UUID, 200),
  'put-uuid-unknown-500': idProbe('PUT', '/api/syncs/{id}/error-handling', UUID, 500),
  'put-special-id-400': idProbe('PUT', '/api/syncs/{id}/error-handling', SPECIAL, 400),
  'put-subscribers-capped-at-10': listProbe(syncPath, 11, 10, 10),
  'put-subscribers-capped-at-100': listProbe(syncPath, 101, 100, 100),
  'sync-read-subscribers-first-10': listProbe(syncPath, 11, 11, 10),
  'bulk-put-subscribers-capped-at-10': listProbe(bulkPath, 11, 10, 10),
  'bulk-read-subscribers-first-10': listProbe(bulkPath, 11, 11, 10),
  'bulk-read-subscribers-lost-later': {
    probe: async (ref) => {
      const path = await bulkPath(ref);
      const list = Array.from({ length: 11 }, (_, i) => `later${i}@example.com`);
      expect((await call(ref, 'PUT', path, { body: { subscribers: list } })).status).toBe(200);
      expect((await call(ref, 'GET', path)).json.data.subscribers).toHaveLength(11);
      expect((await call(ref, 'GET', path)).json.data.subscribers).toHaveLength(10);
    },
  },
  'bulk-read-subscribers-lost-after-other-writes': lostAfterOtherWrites(bulkPath, syncPath),
  'read-subscribers-lost-after-other-writes': lostAfterOtherWrites(syncPath, bulkPath),
  'put-drops-long-addresses': {
    probe: async (ref) => {
      const long = `${'l'.repeat(40)}@${'x'.repeat(30)}.org`;
      expect((await call(ref, 'PUT', await syncPath(ref), { body: { subscribers: [long, 'a@x.org'] } })).json.data.subscribers).toEqual(['a@x.org']);
    },
  },
  'error-status-as-string-on-uuid-404': {
    probe: async (ref) => {
      expect((await call(ref, 'GET', `/api/bulk/syncs/${UUID}/error-handling`)).json.status).toBe('404');
      expectError(await call(ref, 'GET', '/api/bulk/syncs/nope/error-handling'), 404, 'not_found');
    },
  },
  'put-refuses-json-charset': {
    probe: async (ref) => {
      const path = await syncPath(ref);
      const body = { warning_notifications: true };
      expectError(await call(ref, 'PUT', path, { body, headers: { 'content-type': 'application/json; charset=utf-8' } }), 415, 'unsupported_media_type');
      expect((await call(ref, 'PUT', path, { body })).status).toBe(200);
    },
  },
  'basic-accepts-user-key': authProbe((ref) => `Basic ${b64(`${ref.apiKey}:`)}`, (ref) => `Basic ${b64(`${ref.apiKey}x:`)}`),
  'bearer-accepts-org-key': authProbe((ref) => `Bearer ${ref.orgKey}`, (ref) => `Bearer ${ref.orgKey}x`),
  'basic-org-key-case-insensitive': authProbe((ref) => `Basic ${b64(`${ref.orgKey.toUpperCase()}:`)}`, (ref) => `Bearer ${ref.apiKey.toUpperCase()}`),
  'basic-org-key-prefix': authProbe((ref) => `Basic ${b64(`${ref.orgKey.slice(0, -1)}:`)}`, (ref) => `Basic ${b64(`${ref.orgKey}x:`)}`),
};
