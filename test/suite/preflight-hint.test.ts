import { expect, test } from 'vitest';
import { apiSuffixHint } from '../../src/runner/preflight.ts';

// The exit-3 hint for a base URL that already holds the /api the kit appends (hostile-targets.test.ts runs the whole case).
test.each([
  ['http://host/api', 'the base URL should not end in /api: try http://host'],
  ['http://host:8080/api/', 'the base URL should not end in /api: try http://host:8080'],
  ['https://host/dss/API', 'the base URL should not end in /api: try https://host/dss'],
  ['https://user:secret@host/api', 'the base URL should not end in /api: try https://[REDACTED]@host'],
  ['http://host', undefined],
  ['http://host/apis', undefined],
  ['http://host/api/v1', undefined],
])('%s', (url, hint) => {
  expect(apiSuffixHint(url)).toBe(hint);
});
