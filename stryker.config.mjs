// StrykerJS settings shared by every module; bench/mutation.ts (`npm run mutation`) adds what is
// per module: the file to mutate, the suite areas to run, the report and incremental files.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  // Each mutant is judged by the conformance suite's verdict: the CLI exits 0 only when CONFORMANT
  // (with --allow-incomplete, since a module's run selects some areas only), so any other exit
  // code kills the mutant.
  testRunner: 'command',
  // The command runner cannot report per-test coverage; every mutant runs the module's areas.
  coverageAnalysis: 'off',
  // Two cores shared with everything else; one suite run at a time keeps timing out of verdicts.
  concurrency: 1,
  // No checkers: a mutant that does not type-check still runs under Node's type stripping (which
  // ignores types), and the suite judges it like any other.
  checkers: [],
  // Stryker rewrites the sandbox's tsconfig through TypeScript's JS API, which TypeScript 7 (the
  // native compiler) does not have; our tsconfig has no extends or references to rewrite, so
  // point Stryker at a file that does not exist and it skips the step.
  tsconfigFile: 'stryker-has-no-tsconfig.json',
  // A suite run takes seconds idle but much longer on a busy machine; a mutant is a timeout only
  // when it runs a minute past the dry run's time (x1.5).
  timeoutMS: 60_000,
  dryRunTimeoutMinutes: 15,
  ignorePatterns: ['reports', 'dist', 'docs', '*.tgz'],
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  clearTextReporter: { allowColor: false, logTests: false },
  tempDirName: '.stryker-tmp',
};
