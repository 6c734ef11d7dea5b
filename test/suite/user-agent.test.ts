import { expect, test } from 'vitest';
import { validate } from '../../src/schemas.ts';

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
