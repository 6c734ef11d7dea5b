import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance specs in specs/ are run by `dss-conformance run`,
// which builds its own vitest configuration (src/runner/).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
