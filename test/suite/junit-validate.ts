import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { readJunit } from './junit-read.ts';

// The Jenkins xUnit plugin's own schema (upstream file, origin in its header comment).
const xsd = readFileSync(new URL('../fixtures/junit-10.xsd', import.meta.url), 'utf8');

/**
 * Valid against the Jenkins xUnit plugin's junit-10.xsd, and shaped as GitLab, dorny/test-reporter
 * and mikepenz/action-junit-report read it: they take each testcase's outcome from its one child
 * element, show a skip's element text (GitLab ignores the message attribute), use a `file`
 * attribute to place annotations (ours would name files in this kit, not in the user's repository),
 * and count from the elements (so the count attributes must agree with them).
 */
export async function expectValidJunit(xml: string): Promise<void> {
  const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [xsd] });
  expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
  expect(result.valid).toBe(true);
  expectConsumerShape(xml);
}

export function expectConsumerShape(xml: string): void {
  const root = readJunit(xml);
  expect(root.name).toBe('testsuites');
  expect(xml).not.toMatch(/\sfile="/);
  const seen = new Set<string>();
  const totals = { tests: 0, failures: 0, errors: 0 };
  for (const suite of root.children) {
    expect(suite.name).toBe('testsuite');
    const cases = suite.children.filter((c) => c.name === 'testcase');
    const outcome = (kind: string) => cases.filter((c) => c.children.some((x) => x.name === kind)).length;
    expect(Number(suite.attributes.tests), suite.attributes.name).toBe(cases.length);
    expect(Number(suite.attributes.failures), suite.attributes.name).toBe(outcome('failure'));
    expect(Number(suite.attributes.errors), suite.attributes.name).toBe(outcome('error'));
    expect(Number(suite.attributes.skipped ?? 0), suite.attributes.name).toBe(outcome('skipped'));
    totals.tests += cases.length;
    totals.failures += outcome('failure');
    totals.errors += outcome('error');
    const properties = suite.children.find((c) => c.name === 'properties')?.children ?? [];
    expect(properties.find((p) => p.attributes.name === 'verdict')?.attributes.value, 'the verdict property').toMatch(/^(CONFORMANT|NOT CONFORMANT|INCOMPLETE|none)$/);
    for (const c of cases) {
      const key = `${c.attributes.classname} ${c.attributes.name}`;
      expect(seen.has(key), `one testcase per check: ${key}`).toBe(false);
      seen.add(key);
      const outcomes = c.children.filter((x) => ['failure', 'error', 'skipped'].includes(x.name));
      expect(outcomes.length, key).toBeLessThanOrEqual(1);
      for (const o of outcomes) {
        expect(o.text.trim(), `${key}: ${o.name} text`).not.toBe('');
        expect(o.attributes.message ?? '', `${key}: ${o.name} message`).not.toBe('');
      }
    }
  }
  expect(Number(root.attributes.tests)).toBe(totals.tests);
  expect(Number(root.attributes.failures)).toBe(totals.failures);
  expect(Number(root.attributes.errors)).toBe(totals.errors);
}
