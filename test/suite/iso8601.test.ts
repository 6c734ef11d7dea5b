import { describe, expect, test } from 'vitest';
import { isIsoUtc, parseIsoUtc } from '../../src/iso8601.ts';
import { validate } from '../../src/schemas.ts';

// WH-006's reading of "ISO 8601 UTC timestamp": every form ISO 8601 gives a UTC date and time,
// RFC 3339's and others (the comma, the basic format, ordinal and week dates); nothing that is
// not UTC or not ISO 8601.

const INSTANT = Date.UTC(2026, 10, 25, 21, 9, 7, 473);

describe('ISO 8601 UTC timestamps (WH-006)', () => {
  test.each([
    '2026-11-25T21:09:07.473Z',
    '2026-11-25T21:09:07,473Z',
    '2026-11-25T21:09:07.473000Z',
    '2026-11-25T21:09:07,4730000000Z',
    '2026-11-25T21:09:07.473+00:00',
    '2026-11-25T21:09:07.473+00',
    '20261125T210907.473Z',
    '20261125T210907,473+0000',
    '20261125T210907.473+00',
    '2026-329T21:09:07.473Z',
    '2026329T210907.473Z',
    '2026-W48-3T21:09:07.473Z',
    '2026W483T210907.473Z',
    '2026-11-25t21:09:07.473z',
    '2026-11-25 21:09:07.473Z',
  ])('%s names 2026-11-25T21:09:07.473Z', (text) => {
    expect(parseIsoUtc(text)).toBe(INSTANT);
  });

  test('reduced accuracy and fractions of a minute or an hour are ISO 8601 too', () => {
    expect(parseIsoUtc('2026-11-25T21:09:07Z')).toBe(Date.UTC(2026, 10, 25, 21, 9, 7));
    expect(parseIsoUtc('2026-11-25T21:09Z')).toBe(Date.UTC(2026, 10, 25, 21, 9));
    expect(parseIsoUtc('2026-11-25T21:09,5Z')).toBe(Date.UTC(2026, 10, 25, 21, 9, 30));
    expect(parseIsoUtc('2026-11-25T21,25Z')).toBe(Date.UTC(2026, 10, 25, 21, 15));
    expect(parseIsoUtc('2026-11-25T24:00:00Z')).toBe(Date.UTC(2026, 10, 26));
    expect(parseIsoUtc('2016-12-31T23:59:60Z')).toBe(Date.UTC(2017, 0, 1));
  });

  test.each([
    ['another offset', '2026-11-25T22:09:07.473+01:00'],
    ['offset unknown (RFC 3339 §4.3)', '2026-11-25T21:09:07.473-00:00'],
    ['a negative zero offset, basic', '20261125T210907.473-0000'],
    ['no zone: local time', '2026-11-25T21:09:07.473'],
    ['basic date, extended time', '20261125T21:09:07Z'],
    ['extended date, basic time', '2026-11-25T210907Z'],
    ['extended offset in basic format', '20261125T210907+00:00'],
    ['seconds since the epoch', '1795320000'],
    ['an HTTP date', 'Wed, 25 Nov 2026 21:09:07 GMT'],
    ['a date alone', '2026-11-25'],
    ['no such day', '2026-02-29T21:09:07Z'],
    ['no such ordinal day', '2026-366T21:09:07Z'],
    ['no week 53 in 2025', '2025-W53-1T21:09:07Z'],
    ['hour 25', '2026-11-25T25:09:07Z'],
    ['24:00 past the end of day', '2026-11-25T24:00:01Z'],
    ['second 60 not at 23:59', '2026-11-25T21:09:60Z'],
    ['a fraction without digits', '2026-11-25T21:09:07.Z'],
    ['an empty value', ''],
  ])('%s is not one: %s', (_why, text) => {
    expect(isIsoUtc(text)).toBe(false);
  });

  test('week 53 exists where ISO 8601 has it (2020 began on a Wednesday of a leap year, 2026 on a Thursday)', () => {
    expect(parseIsoUtc('2026-W53-1T00:00:00Z')).toBe(Date.UTC(2026, 11, 28));
    expect(parseIsoUtc('2020-W53-5T00:00:00Z')).toBe(Date.UTC(2021, 0, 1));
    expect(parseIsoUtc('2026-W01-1T00:00:00Z')).toBe(Date.UTC(2025, 11, 29));
  });

  test('the header schema reads it so', () => {
    const judge = (v: string) => validate('webhook-delivery-headers.schema.json#/properties/service-signature-timestamp', v);
    expect(judge('2026-11-25T21:09:07,473Z')).toEqual([]);
    expect(judge('2026-11-25T21:09:07.473+01:00')).not.toEqual([]);
  });
});
