// Test files that share vitest's workers (isolate: false, vitest.config.ts) instead of a fresh
// worker each: pure functions and in-process handlers only, no server that listens, no child
// process, no timers faked, no environment written, no network client. A fresh worker costs
// ~0.3–0.5 s of CPU before the file's first test, more than most of these take (measured: these
// files 27 s of CPU isolated against 13 s shared, alternated). test/suite/shared-worker-files.test.ts
// holds each of them to that; every other file keeps a worker of its own (the default), since a
// file's leftover server or timer reaching the next file made receiver tests fail on a busy machine.

export const SHARED_WORKER_FILES: readonly string[] = [
  'test/client/location-id.test.ts',
  'test/generators/all-pairs.test.ts',
  'test/receiver-conformance/catalogue.test.ts',
  'test/receiver-conformance/redaction.test.ts',
  'test/receiver-conformance/settings.test.ts',
  'test/reference/auth-and-versions.test.ts',
  'test/reference/bulk-syncs.test.ts',
  'test/reference/connections.test.ts',
  'test/reference/deletes.test.ts',
  'test/reference/docs.test.ts',
  'test/reference/http-errors.test.ts',
  'test/reference/mutation-triage.test.ts',
  'test/reference/real-service-values.test.ts',
  'test/reference/syncs-error-handling.test.ts',
  'test/reference/webhook-test-control.test.ts',
  'test/report/certificate.test.ts',
  'test/report/diff.test.ts',
  'test/report/error-answers-log.test.ts',
  'test/report/error-answers.test.ts',
  'test/report/events.test.ts',
  'test/report/live-console.test.ts',
  'test/report/receiver-not-kept.test.ts',
  'test/report/run-file.test.ts',
  'test/report/verdict.test.ts',
  'test/suite/cleanup-target.test.ts',
  'test/suite/cli-settings.test.ts',
  'test/suite/coverage-cases.test.ts',
  'test/suite/error-handling-model.test.ts',
  'test/suite/generators.test.ts',
  'test/suite/iso8601.test.ts',
  'test/suite/junit.test.ts',
  'test/suite/list-lengths.test.ts',
  'test/suite/merge-reports.test.ts',
  'test/suite/preflight-hint.test.ts',
  'test/suite/profile.test.ts',
  'test/suite/read-json-file.test.ts',
  'test/suite/redact.test.ts',
  'test/suite/replay-and-version.test.ts',
  'test/suite/run-state.test.ts',
  'test/suite/safe-text.test.ts',
  'test/suite/schema-files.test.ts',
  'test/suite/shrunk-evidence.test.ts',
  'test/suite/spec-files.test.ts',
  'test/suite/target-url.test.ts',
  'test/suite/webhook-answers.test.ts',
  'test/suite/webhook-data.test.ts',
  'test/suite/webhook-names.test.ts',
];

/** What a file that shares a worker must not use: each could leave something the next file sees. */
export const PROCESS_LEVEL = /listen\(|createServer|startReference|spawn|fork\(|execFile|runCli|useRunServers|startEmbedded|startSystemPostgres|useFakeTimers|process\.env|chromium|playwright|Worker\(|startReceiver|createReceiver|undici|fetch\(|setInterval|process\.on\(/;
