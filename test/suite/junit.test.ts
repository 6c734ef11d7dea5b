import { describe, expect, test } from 'vitest';
import { junitXml } from '../../src/report/junit.ts';
import { Redactor } from '../../src/report/redact.ts';
import type { RunResult } from '../../src/report/results.ts';
import { expectValidJunit } from './junit-validate.ts';


const run: RunResult = {
  tool: 'dss-conformance', target: 'http://127.0.0.1:1', profile: 'reference (built in)', seed: 7, runId: 'abcd1234',
  startedAt: '2026-11-22T00:00:00.000Z', durationMs: 1234, replay: 'npx dss-conformance run --seed 7',
  checks: [
    { id: 'EHS-002', title: 'EHS-002 subscribers replaces the whole list', area: 'error-handling', level: 'MUST', section: 'PUT › Rules 2', status: 'failed', message: 'expected <a> & "b"\n> authorization: Bearer sekrit-key-123\u0007', durationMs: 12 },
    { id: 'AUTH-002', title: 'AUTH-002 basic', area: 'auth', level: 'PROFILE', section: 'Authentication 2', status: 'skipped', reason: 'no org key', durationMs: 0 },
    { id: 'AUTH-001', title: 'AUTH-001 bearer', area: 'auth', level: 'MUST', section: 'Authentication 1', status: 'passed', durationMs: 3 },
  ],
  errors: ['specs/x.spec.ts failed to load'],
};

describe('JUnit report', () => {
  test('validates against the JUnit structure CI consumers read, with escaping and control characters', async () => {
    await expectValidJunit(junitXml(run, new Redactor(['sekrit-key-123'])));
  });

  test('names each testcase by requirement ID, carries the clause and the replay command, redacts secrets', () => {
    const xml = junitXml(run, new Redactor(['sekrit-key-123']));
    expect(xml).toContain('name="EHS-002 subscribers replaces the whole list"');
    expect(xml).toContain('EHS-002 [MUST] PUT › Rules 2');
    expect(xml).toContain('replay: npx dss-conformance run --seed 7 --only EHS-002');
    expect(xml).toContain('<skipped message="precondition: no org key">precondition: no org key</skipped>');
    expect(xml).not.toContain('sekrit-key-123');
    expect(xml).toMatch(/<testsuites name="dss-conformance" tests="4" failures="1" errors="1" time=/);
    expect(xml).not.toMatch(/<testsuites[^>]*(skipped|timestamp)=/);
  });
});
