import { describe, expect, it } from 'vitest';
import { DocsyncError } from '../../src/domain/errors.js';
import {
  clockOffsetMs,
  compareServiceTimestamps,
  conflictStampOf,
  cursorFor,
  formatUpdatedAfter,
  hasFraction,
  parseServiceTimestamp,
  readServiceTimestamp,
  serviceTimeToLocalMs,
  updatedAfterFor,
  withListTimestamp,
} from '../../src/domain/timestamps.js';

const SECOND = Date.UTC(2020, 6, 3, 4, 31, 46) * 1000;

describe('parseServiceTimestamp', () => {
  it.each([
    ['2020-07-03T04:31:46.108264', SECOND + 108264],
    ['2020-07-03T04:31:46', SECOND],
    ['2020-07-03T04:31:46Z', SECOND],
    ['2020-07-03T04:31:46.108Z', SECOND + 108000],
    ['2020-07-03T04:31:46.1', SECOND + 100000],
  ])('%s', (text, micros) => {
    expect(parseServiceTimestamp(text)).toBe(micros);
  });

  it.each([
    '2020-07-03 04:31:46',
    '2020-02-30T00:00:00',
    '2020-07-03T24:00:00',
    '2020-07-03T04:31:46+10:00',
    '',
  ])('refuses %j', (text) => {
    expect(() => parseServiceTimestamp(text)).toThrow(DocsyncError);
  });

  it('orders a list timestamp after the details timestamp of the same second', () => {
    expect(compareServiceTimestamps('2020-07-03T04:31:46.108264', '2020-07-03T04:31:46')).toBe(1);
    expect(compareServiceTimestamps('2020-07-03T04:31:46Z', '2020-07-03T04:31:46')).toBe(0);
  });
});

/**
 * The forms a service may write a change time in, each read as api.md's (UTC, no zone), with
 * the form it came in: no offset is UTC, as api.md and the public examples write the service's
 * times and as `updatedAfter` is asked.
 */
describe('readServiceTimestamp', () => {
  it.each([
    [1, '2020-07-03T04:31:46.108264', '2020-07-03T04:31:46.108264', 'none'],
    [2, '2020-07-03T04:31:46', '2020-07-03T04:31:46', 'none'],
    [3, '2020-07-03T04:31:46Z', '2020-07-03T04:31:46', 'Z'],
    [4, '2020-07-03T04:31:46.108264+0000', '2020-07-03T04:31:46.108264', '+0000'],
    [5, '2020-07-03T04:31:46.5+00:00', '2020-07-03T04:31:46.5', '+00:00'],
    [6, '2020-07-03T04:31:46+00', '2020-07-03T04:31:46', '+00'],
    [7, '2020-07-03T14:31:46.108264+10:00', '2020-07-03T04:31:46.108264', 'offset'],
    [8, '2020-07-03T01:01:46-0330', '2020-07-03T04:31:46', 'offset'],
    [9, '2020-07-03T09:46:46.1+0515', '2020-07-03T04:31:46.1', 'offset'],
    [10, '2020-07-01T00:31:46+10:00', '2020-06-30T14:31:46', 'offset'],
    [11, '2020-07-03T04:31:46.123456789Z', '2020-07-03T04:31:46.123456', 'Z'],
    [12, '2020-07-03t04:31:46z', '2020-07-03T04:31:46', 'Z'],
  ])('%i: %s → %s (%s)', (_n, text, utc, form) => {
    expect(readServiceTimestamp(text)).toEqual({ text: utc, form });
  });

  it.each([
    '2020-07-03 04:31:46',
    '2020-02-30T00:00:00Z',
    '2020-07-03T24:00:00',
    '2020-07-03T04:31:46+25:00',
    '2020-07-03T04:31:46+10:60',
    '2020-07-03',
    '20200703T043146Z',
    'yesterday',
  ])('refuses %j', (text) => {
    expect(readServiceTimestamp(text)).toBeNull();
  });
});

describe('updatedAfter and the cursor', () => {
  it.each([
    [null, 0, null],
    ['2020-07-03T04:31:46.108264', 0, '2020-07-03T04:31:46'],
    ['2020-07-03T04:31:46.999999', 0, '2020-07-03T04:31:46'],
    ['2020-07-03T04:31:46', 60, '2020-07-03T04:30:46'],
    ['2020-01-01T00:00:30', 60, '2019-12-31T23:59:30'],
  ])('cursor %j with overlap %ds → %j', (cursor, overlap, expected) => {
    expect(updatedAfterFor(cursor, overlap)).toBe(expected);
  });

  it('formats seconds only, rounding down', () => {
    expect(formatUpdatedAfter(SECOND + 999_999)).toBe('2020-07-03T04:31:46');
  });

  const ok = (t: string) => ({ lastUpdatedTimestamp: t, succeeded: true });
  const failed = (t: string) => ({ lastUpdatedTimestamp: t, succeeded: false });
  it.each([
    [
      'moves to the latest success',
      null,
      [ok('2020-07-03T04:31:46.1'), ok('2020-07-03T05:00:00')],
      '2020-07-03T05:00:00',
    ],
    [
      'stops before a failure',
      null,
      [ok('2020-07-03T04:00:00'), failed('2020-07-03T04:30:00'), ok('2020-07-03T05:00:00')],
      '2020-07-03T04:00:00',
    ],
    [
      'stays when the first fails',
      '2020-07-03T03:00:00',
      [failed('2020-07-03T04:00:00'), ok('2020-07-03T05:00:00')],
      '2020-07-03T03:00:00',
    ],
    [
      'never goes backwards',
      '2020-07-03T06:00:00',
      [ok('2020-07-03T05:00:00')],
      '2020-07-03T06:00:00',
    ],
    [
      'passes a document whose change time nobody gave, once in step',
      '2020-07-03T03:00:00',
      [{ lastUpdatedTimestamp: null, succeeded: true }, ok('2020-07-03T05:00:00')],
      '2020-07-03T05:00:00',
    ],
    [
      'stays where it was while a document whose change time nobody gave failed',
      '2020-07-03T03:00:00',
      [ok('2020-07-03T04:00:00'), { lastUpdatedTimestamp: null, succeeded: false }],
      '2020-07-03T03:00:00',
    ],
    [
      'keeps microseconds',
      null,
      [ok('2020-07-03T04:31:46'), ok('2020-07-03T04:31:46.5')],
      '2020-07-03T04:31:46.5',
    ],
  ])('%s', (_name, previous, outcomes, expected) => {
    expect(cursorFor(previous, outcomes)).toBe(expected);
  });
});

describe('clock offset', () => {
  it('is service minus local, from the Date header', () => {
    const local = Date.UTC(1994, 10, 15, 8, 12, 0);
    expect(clockOffsetMs('Tue, 15 Nov 1994 08:12:31 GMT', local)).toBe(31_000);
    expect(() => clockOffsetMs('yesterday', local)).toThrow(DocsyncError);
  });

  it('moves a service timestamp onto the local clock', () => {
    expect(serviceTimeToLocalMs('2020-07-03T04:31:46.5', 31_000)).toBe(
      SECOND / 1000 + 500 - 31_000,
    );
  });

  it('stamps conflict copies in the local zone', () => {
    expect(conflictStampOf(Date.UTC(2020, 6, 10, 23, 5), 600)).toBe('2020-07-11 0905');
  });
});

describe("the list's precision kept", () => {
  const details = { id: '7', lastUpdatedTimestamp: '2029-01-07T09:00:00' };

  it("takes the list's microseconds for the details' second", () => {
    expect(withListTimestamp(details, '2029-01-07T09:00:00.576341').lastUpdatedTimestamp).toBe(
      '2029-01-07T09:00:00.576341',
    );
  });

  it('keeps the details when the list shows another second (a change since), or nothing', () => {
    expect(withListTimestamp(details, '2029-01-07T09:00:01.000001')).toBe(details);
    expect(withListTimestamp(details, null)).toBe(details);
  });

  it('tells a fraction of a second from whole seconds and a zone', () => {
    expect(hasFraction('2029-01-07T09:00:00.576341')).toBe(true);
    expect(hasFraction('2029-01-07T09:00:00')).toBe(false);
    expect(hasFraction('2029-01-07T09:00:00Z')).toBe(false);
  });
});
