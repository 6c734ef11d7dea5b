import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance specs in specs/ are run by `dss-conformance run`,
// which builds its own vitest configuration (src/runner/).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: a test's verdict must not depend on how busy the machine is. A whole CLI run takes a
    // few seconds idle and minutes on a saturated runner; a hang still ends here, well inside CI's limit.
    testTimeout: 600_000,
    hookTimeout: 300_000,
    // The fault matrix runs the CLI once per fault in child processes; three at a time fits 2 cores.
    maxConcurrency: 3,
    // Two files at a time: most files wait on child processes and loopback servers, so a second
    // one fills the gaps (vitest's default on 2 cores is one file at a time).
    maxWorkers: 2,
  },
});
