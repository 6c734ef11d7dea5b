import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';

const xsd = readFileSync(new URL('../fixtures/junit-jenkins.xsd', import.meta.url), 'utf8');

/** Validates against the JUnit structure that Jenkins, GitLab and the GitHub report actions read. */
export async function expectValidJunit(xml: string): Promise<void> {
  const result = await validateXML({ xml: [{ fileName: 'junit.xml', contents: xml }], schema: [xsd] });
  expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
  expect(result.valid).toBe(true);
}
