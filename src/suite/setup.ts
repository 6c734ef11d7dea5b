import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach } from 'vitest';
import { normalisedRequests, settings } from './context.ts';

// Runs before every check. When the target refuses the API key itself, every other check would
// fail for that one reason; they are skipped instead, and AUTH-001 reports it.
beforeEach((t) => {
  if (settings().credentialRefused && !/^AUTH-/.test(t.task.name)) {
    t.skip('the target refuses the API key (see AUTH-001), so this check cannot run');
  }
});

// After each spec file, the requests so far (normalised): two runs with one seed give the same file.
afterAll(() => {
  mkdirSync(settings().reportsDir, { recursive: true });
  writeFileSync(join(settings().reportsDir, 'requests.json'), JSON.stringify(normalisedRequests(), null, 1) + '\n');
});
