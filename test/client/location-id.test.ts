import { expect, test } from 'vitest';
import { idFromLocation } from '../../src/client/location-id.ts';

test('the id of a 2xx creation is the last path segment of Location, percent-decoded', () => {
  expect(idFromLocation(201, { location: '/api/bulk/syncs/res%3A1%2Ba%3Db%40eu' })).toBe('res:1+a=b@eu');
  expect(idFromLocation(201, { location: 'https://api.example.com/api/connections/42/' })).toBe('42');
  expect(idFromLocation(200, { location: '/api/syncs/abc?x=1#y' })).toBe('abc');
});

test('no id without a 2xx, a Location, a segment or a well-formed escape', () => {
  expect(idFromLocation(302, { location: '/api/bulk/syncs/1' })).toBeUndefined();
  expect(idFromLocation(201, {})).toBeUndefined();
  expect(idFromLocation(201, { location: '/' })).toBeUndefined();
  expect(idFromLocation(201, { location: '/api/syncs/%zz' })).toBeUndefined();
});
