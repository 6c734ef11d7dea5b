import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { call, createBulkSync, createModelSync, expectError } from './helpers.ts';

// Probes of the error-handling faults added with EHS-010, EHS-011, EHB-003 and EHB-004 (and the
// second faults of EHS-005 and EHB-002), spread into faults.test.ts's table: each shows the
// deviation its fault promises, and that the normal path next to it is left alone.

type Probe = { probe: (ref: RunningReference) => Promise<void> };

const syncPath = async (ref: RunningReference) => `/api/syncs/${await createModelSync(ref)}/error-handling`;
const bulkPath = async (ref: RunningReference) => `/api/bulk/syncs/${await createBulkSync(ref)}/error-handling`;

export const errorHandlingProbes: Record<string, Probe> = {
  'put-resets-omitted-answering-sent': {
    probe: async (ref) => {
      const path = await syncPath(ref);
      await call(ref, 'PUT', path, { body: { subscribers: ['a@x.org'], warning_notifications: true } });
      expect((await call(ref, 'PUT', path, { body: { auto_retry_record_errors: true } })).json.data).toEqual({ auto_retry_record_errors: true });
      expect((await call(ref, 'PUT', path, { body: {} })).json.data).toEqual({});
      expect((await call(ref, 'GET', path)).json.data).toEqual({ auto_retry_record_errors: false, notify_on_record_errors: false, subscribers: [], warning_notifications: false });
    },
  },
  'bulk-put-resets-omitted-answering-sent': {
    probe: async (ref) => {
      const path = await bulkPath(ref);
      await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: 60, subscribers: ['a@x.org'] } });
      expect((await call(ref, 'PUT', path, { body: { subscribers: ['b@x.org'] } })).json.data).toEqual({ subscribers: ['b@x.org'] });
      expect((await call(ref, 'GET', path)).json.data).toEqual({ ingestion_failure_threshold: null, subscribers: ['b@x.org'] });
    },
  },
  'put-response-single-subscriber-unwrapped': {
    probe: async (ref) => {
      const path = await syncPath(ref);
      expect((await call(ref, 'PUT', path, { body: { subscribers: ['a@x.org'] } })).json.data.subscribers).toBe('a@x.org');
      expect((await call(ref, 'PUT', path, { body: { subscribers: ['a@x.org', 'b@x.org'] } })).json.data.subscribers).toEqual(['a@x.org', 'b@x.org']);
    },
  },
  'put-repeat-appends-subscribers': {
    probe: async (ref) => {
      const path = await syncPath(ref);
      const body = { subscribers: ['a@x.org', 'b@x.org'] };
      expect((await call(ref, 'PUT', path, { body })).json.data.subscribers).toEqual(['a@x.org', 'b@x.org']);
      expect((await call(ref, 'PUT', path, { body })).json.data.subscribers).toEqual(['a@x.org', 'b@x.org', 'a@x.org', 'b@x.org']);
    },
  },
  'put-repeat-answers-stale': {
    probe: async (ref) => {
      const path = await syncPath(ref);
      const body = { subscribers: ['a@x.org'], warning_notifications: true };
      expect((await call(ref, 'PUT', path, { body })).json.data).toMatchObject(body);
      expect((await call(ref, 'PUT', path, { body })).json.data).toMatchObject({ subscribers: [], warning_notifications: false });
      expect((await call(ref, 'GET', path)).json.data).toMatchObject(body);
    },
  },
  'sync-read-stale': {
    probe: async (ref) => {
      const path = await syncPath(ref);
      await call(ref, 'PUT', path, { body: { warning_notifications: true } });
      expect((await call(ref, 'GET', path)).json.data.warning_notifications).toBe(false);
    },
  },
  'notify-false-not-stored': {
    probe: async (ref) => {
      const path = await syncPath(ref);
      await call(ref, 'PUT', path, { body: { notify_on_record_errors: true } });
      expect((await call(ref, 'PUT', path, { body: { notify_on_record_errors: false } })).json.data.notify_on_record_errors).toBe(false);
      expect((await call(ref, 'PUT', path, { body: {} })).json.data.notify_on_record_errors).toBe(false);
      expect((await call(ref, 'GET', path)).json.data.notify_on_record_errors).toBe(true);
    },
  },
  'bulk-error-handling-non-uuid-200': {
    probe: async (ref) => {
      const answer = await call(ref, 'GET', '/api/bulk/syncs/nope/error-handling');
      expect(answer.status).toBe(200);
      expect(answer.json.data).toEqual({});
      expectError(await call(ref, 'GET', '/api/bulk/syncs/00000000-0000-4000-8000-000000000000/error-handling'), 404, 'not_found');
    },
  },
  'bulk-put-ignores-threshold': {
    probe: async (ref) => {
      const path = await bulkPath(ref);
      expect((await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: 60, subscribers: ['a@x.org'] } })).json.data).toEqual({ ingestion_failure_threshold: null, subscribers: ['a@x.org'] });
    },
  },
  'bulk-put-threshold-zero-dropped': {
    probe: async (ref) => {
      const path = await bulkPath(ref);
      expect((await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: 60 } })).json.data.ingestion_failure_threshold).toBe(60);
      expect((await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: 0 } })).json.data.ingestion_failure_threshold).toBe(60);
    },
  },
  'bulk-read-stale': {
    probe: async (ref) => {
      const path = await bulkPath(ref);
      expect((await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: 60 } })).json.data.ingestion_failure_threshold).toBe(60);
      expect((await call(ref, 'GET', path)).json.data.ingestion_failure_threshold).toBeNull();
    },
  },
  'bulk-put-accepts-wrong-types': {
    probe: async (ref) => {
      const answer = await call(ref, 'PUT', await bulkPath(ref), { body: { ingestion_failure_threshold: '60', subscribers: 'a@x.org' } });
      expect(answer.status).toBe(200);
      expect(answer.json.data).toEqual({ ingestion_failure_threshold: 60, subscribers: ['a@x.org'] });
    },
  },
  'bulk-put-threshold-fraction': {
    probe: async (ref) => {
      const path = await bulkPath(ref);
      expect((await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: 1.5 } })).json.data.ingestion_failure_threshold).toBe(1);
      expectError(await call(ref, 'PUT', path, { body: { ingestion_failure_threshold: '1' } }), 400, 'validation_error');
    },
  },
  'bulk-put-unknown-id-200': {
    probe: async (ref) => {
      expect((await call(ref, 'PUT', '/api/bulk/syncs/nope/error-handling', { body: { ingestion_failure_threshold: 5 } })).status).toBe(200);
    },
  },
};
