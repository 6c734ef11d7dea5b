import { expect } from 'vitest';
import type { RunningReference } from '../../src/reference/index.ts';
import { call, expectError } from './helpers.ts';

// Probes of src/reference/faults/mutation-routes.ts, spread into faults.test.ts's table: each shows
// the deviation for the value that triggers it, and that the value next to it is answered as before.

type Probe = { options?: { schemaCacheDelayMs: number }; probe: (ref: RunningReference) => Promise<void> };

const HUBSPOT = { name: 'p', type: 'hubspot', configuration: {} };

export const mutationRoutesProbes: Record<string, Probe> = {
  'kind-lookup-inherited-500': {
    probe: async (ref) => {
      expectError(await call(ref, 'POST', '/api/connections', { body: { ...HUBSPOT, type: 'constructor' } }), 500, 'internal_error');
      expectError(await call(ref, 'POST', '/api/connections', { body: { ...HUBSPOT, type: 'dssc-no-such-kind' } }), 400, 'validation_error');
      expect((await call(ref, 'POST', '/api/connections', { body: HUBSPOT })).status).toBe(200);
    },
  },
};
