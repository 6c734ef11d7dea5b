import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { junitXml } from '../../src/report/junit.ts';
import { Redactor } from '../../src/report/redact.ts';
import { loadRequirements, type RunResult } from '../../src/report/results.ts';
import { runVerdict } from '../../src/report/verdict.ts';
import { readJunit } from './junit-read.ts';
import { expectConsumerShape, expectValidJunit } from './junit-validate.ts';

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

/** Every outcome a check can have, an interruption and a run problem: the widest report. */
const everything: RunResult = {
  ...run,
  checks: [
    ...run.checks,
    { id: 'AUTH-003', title: 'AUTH-003 timed out', area: 'auth', level: 'MUST', section: 'Authentication 3', status: 'error', reason: 'no answer within 10000 ms', durationMs: 10_000 },
    { id: 'EHS-001', title: 'EHS-001 known', area: 'error-handling', level: 'MUST', section: 'PUT › Rules 1', status: 'expected-fail', message: 'still broken', baseline: { reason: 'ticket 42' }, durationMs: 5 },
    { id: 'EHS-003', title: 'EHS-003 stale', area: 'error-handling', level: 'MUST', section: 'PUT › Rules 3', status: 'stale', reason: 'stale baseline entry: remove it', durationMs: 5 },
    { id: 'EHS-002', title: 'EHS-002 subscribers replaces the whole list @2022-12-12', version: '2022-12-12', area: 'error-handling', level: 'MUST', section: 'PUT › Rules 2', status: 'passed', durationMs: 5 },
    { id: 'WH-001', title: 'WH-001 unobserved', area: 'webhooks', level: 'MUST', section: 'Webhooks 1', status: 'skipped', reason: 'not observed: no delivery arrived', skipClass: 'not-observable', durationMs: 1 },
  ],
  deliveries: [{ seq: 1, scenario: null, receivedAt: '2026-11-22T00:00:01.000Z', method: 'POST', path: '/x', headers: {}, bodyBytes: 3, gzip: false, records: null, violations: ['not JSON'], status: 400 }],
  problems: ['baseline entry EHS-009 expired on 2026-01-01'],
  interrupted: 'interrupted by SIGTERM',
};

describe('JUnit report', () => {
  test('the XSD is the Jenkins xUnit plugin\'s junit-10.xsd, unchanged below the origin comment', () => {
    const text = readFileSync(new URL('../fixtures/junit-10.xsd', import.meta.url), 'utf8');
    const origin = /<!--\n {2}Origin[\s\S]*?-->\n/.exec(text)!;
    expect(origin[0]).toContain('https://github.com/jenkinsci/xunit-plugin');
    const upstream = text.slice(0, origin.index) + text.slice(origin.index + origin[0].length);
    const sha = /sha256 of the upstream file: ([0-9a-f]{64})/.exec(origin[0])![1];
    expect(createHash('sha256').update(upstream).digest('hex')).toBe(sha);
  });

  test('validates against the upstream junit-10.xsd and has the shape GitLab, dorny/test-reporter and action-junit-report read', async () => {
    await expectValidJunit(junitXml(run, new Redactor(['sekrit-key-123'])));
    const widest = { ...everything, verdict: runVerdict(loadRequirements(), everything.checks, everything.problems) };
    await expectValidJunit(junitXml(widest, new Redactor([])));
    const aborted: RunResult = { ...run, checks: [], errors: [], aborted: { exitCode: 3, message: 'target unreachable' } };
    await expectValidJunit(junitXml({ ...aborted, verdict: runVerdict(loadRequirements(), []) }, new Redactor([])));
  });

  test('names each testcase by requirement ID, carries the clause and the replay command, redacts secrets', () => {
    const xml = junitXml(run, new Redactor(['sekrit-key-123']));
    expect(xml).toContain('name="EHS-002 subscribers replaces the whole list"');
    expect(xml).toContain('EHS-002 [MUST] PUT › Rules 2');
    expect(xml).toContain('replay: npx dss-conformance run --seed 7 --only EHS-002');
    expect(xml).not.toContain('sekrit-key-123');
    expect(xml).toMatch(/<testsuites name="dss-conformance" tests="4" failures="1" errors="1" time=/);
    expect(xml).not.toMatch(/<testsuites[^>]*(skipped|timestamp)=/);
  });

  test('a skip carries its reason as element text (GitLab shows only that) and its class as type', () => {
    const xml = junitXml({ ...everything, verdict: runVerdict(loadRequirements(), everything.checks) }, new Redactor([]));
    expect(xml).toContain('<skipped type="precondition" message="precondition: no org key">precondition: no org key</skipped>');
    expect(xml).toContain('<skipped type="not-observable" message="not-observable: not observed: no delivery arrived">not-observable: not observed: no delivery arrived</skipped>');
    expect(xml).toMatch(/<skipped type="expected-fail" message="expected failure \(baseline: ticket 42\): still broken">expected failure/);
    expect(xml).toMatch(/<error message="no answer within 10000 ms" type="unjudgeable">AUTH-003 \[MUST\]/);
  });

  test('the verdict is a property of every testsuite: the bare verdict, and the line with the counts', () => {
    const verdict = runVerdict(loadRequirements(), everything.checks, everything.problems);
    const root = readJunit(junitXml({ ...everything, verdict }, new Redactor([])));
    expect(root.children.length).toBeGreaterThan(1);
    for (const suite of root.children) {
      const props = Object.fromEntries(suite.children.find((c) => c.name === 'properties')!.children.map((p) => [p.attributes.name, p.attributes.value]));
      expect(props.verdict).toBe('NOT CONFORMANT');
      expect(props['verdict-line']).toMatch(/^verdict: NOT CONFORMANT \(requirements: MUST /);
      expect(props.seed).toBe('7');
      expect(props.interrupted).toBe('interrupted by SIGTERM');
    }
  });

  test('one testcase per check: a check run in two version passes is two testcases, told apart by @version', () => {
    const root = readJunit(junitXml(everything, new Redactor([])));
    const names = root.children.flatMap((s) => s.children.filter((c) => c.name === 'testcase').map((c) => c.attributes.name));
    expect(names.filter((n) => n?.startsWith('EHS-002 '))).toEqual(['EHS-002 subscribers replaces the whole list', 'EHS-002 subscribers replaces the whole list @2022-12-12']);
    expect(names).toHaveLength(everything.checks.length + 1 + 1); // + the run error + the baseline problem
  });

  test('a message attribute is the first line with text, never empty', async () => {
    const odd: RunResult = { ...run, errors: [], checks: [
      { id: 'EHS-004', title: 'EHS-004 a', area: 'error-handling', level: 'MUST', section: 's', status: 'failed', message: '\n  evidence after a blank line', durationMs: 1 },
      { id: 'EHS-005', title: 'EHS-005 b', area: 'error-handling', level: 'MUST', section: 's', status: 'failed', message: '', durationMs: 1 },
      { id: 'EHS-006', title: 'EHS-006 c', area: 'error-handling', level: 'MUST', section: 's', status: 'error', reason: '\n', durationMs: 1 },
    ] };
    const xml = junitXml(odd, new Redactor([]));
    expect(xml).toContain('<failure message="evidence after a blank line"');
    expect(xml).toContain('<failure message="failed"');
    expect(xml).toContain('<error message="no judgeable answer"');
    await expectValidJunit(xml);
  });

  test('the validation can fail: the schema and the consumer shape each refuse what a consumer would misread', async () => {
    const good = junitXml(run, new Redactor([]));
    // The upstream schema allows no skipped count on <testsuites>, and requires a suite's tests count.
    await expect(expectValidJunit(good.replace('<testsuites name="dss-conformance"', '<testsuites skipped="1" name="dss-conformance"'))).rejects.toThrow();
    await expect(expectValidJunit(good.replace(/(<testsuite name="[^"]*") tests="\d+"/, '$1'))).rejects.toThrow();
    // A skip with only the attribute (GitLab shows nothing), a file attribute, counts that disagree, two outcomes.
    expect(() => expectConsumerShape(good.replace('>precondition: no org key</skipped>', '></skipped>'))).toThrow();
    expect(() => expectConsumerShape(good.replace('<testcase classname=', '<testcase file="specs/auth.spec.ts" classname='))).toThrow();
    expect(() => expectConsumerShape(good.replace(/failures="1" errors="0"/, 'failures="0" errors="0"'))).toThrow();
    expect(() => expectConsumerShape(good.replace('</skipped>', '</skipped><failure message="x">x</failure>'))).toThrow();
  });
});
