import { expect, test } from 'vitest';
import { loadReferenceProfile } from '../../src/profile/profile.ts';
import { USER_AGENT } from '../../src/reference/delivery.ts';
import { validate } from '../../src/schemas.ts';
import { firstProduct, productProblem } from '../../src/suite/user-agent.ts';

// WH-009's reading (README › Interpretations): a service name token, then "/" or whitespace, then
// a release label token; what follows is not judged. The near misses are what a vendor gets wrong.

const judge = (value: string) => validate('webhook-delivery-headers.schema.json#/properties/user-agent', value);

test.each([
  'DSS-Reference/1.0.0',
  'DSS-Reference 1.0.0',
  'DSS-Reference\t1.0.0',
  'Svc/rel2021.05.25 (+https://x)',
  'Svc/rel2021.05.25',
  'Mozilla/5.0 (compatible; Svc/1.2)',
  'DSS Reference/2.1',
  'svc_hook/2024-02-08 node/24',
])('conforms: %j', (value) => {
  expect(judge(value)).toEqual([]);
});

test.each([
  ['empty', ''],
  ['a service name alone', 'DSS-Reference'],
  ['a service name and a slash', 'DSS-Reference/'],
  ['a release label alone', '1.0.0'],
  ['a release label after a slash', '/1.0.0'],
  ['a release label and a comment', '1.0.0 (linux)'],
  ['a service name and a comment only', 'DSS-Reference (+https://example.com/dss-reference)'],
  ['a leading space', ' DSS-Reference/1.0.0'],
])('does not conform: %s', (_what, value) => {
  expect(judge(value)).not.toEqual([]);
});

// With the profile's product name declared (webhooks.productName), the first product must be it.
test.each([
  ['DSS-Reference/1.0.0', undefined],
  ['dss-reference/1.0.0', undefined],
  ['DSS-Reference 1.0.0', undefined],
  ['DSS-Reference/rel2021.05.25 (+https://example.com/dss-reference)', undefined],
  ['DSS-Reference/1.0.0 undici/7.0.0', undefined],
  ['Go-http-client/1.1', 'Go-http-client'],
  ['undici/7.0.0 DSS-Reference/1.0.0', 'undici'],
  ['DSS-Reference-Client/1.0.0', 'DSS-Reference-Client'],
  ['DSS/1.0.0', 'DSS'],
])('against the declared name DSS-Reference: %j', (value, wrong) => {
  const problem = productProblem(value, 'DSS-Reference');
  if (wrong === undefined) expect(problem).toBeUndefined();
  else expect(problem).toContain(`its first product is "${wrong}"`);
});

test('the reference profile declares the product name the reference sends', () => {
  expect(firstProduct(USER_AGENT)).toBe(loadReferenceProfile().webhooks?.productName);
});
