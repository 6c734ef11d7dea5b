import { afterAll } from 'vitest';
import { closeSharedAgent, resetClientState } from '../../src/client/http-client.ts';

// The files of the 'shared' project (vitest.config.ts) run one after another in one worker, with
// the modules they loaded. What the client learnt about a target (give-ups, the rate window) and
// its keep-alive connections are keyed by origin, and a later file's loopback server may get a
// port an earlier one had: forgotten at the end of each file, as the run servers do after each run.
afterAll(async () => {
  resetClientState();
  await closeSharedAgent();
});
