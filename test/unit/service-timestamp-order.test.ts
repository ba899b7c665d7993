import { describe, expect, it } from 'vitest';
import { StateError } from '../../src/domain/errors.js';
import { compareServiceTimestamps } from '../../src/state/service-timestamp-order.js';

describe('compareServiceTimestamps', () => {
  it.each([
    ['2020-07-03T04:31:46', '2020-07-03T04:31:46.108264', -1],
    ['2020-07-03T04:31:46.000000', '2020-07-03T04:31:46', 0],
    ['2020-07-03T04:31:46Z', '2020-07-03T04:31:46.1', -1],
    ['2020-07-03T04:31:46.5', '2020-07-03T04:31:46.108264', 1],
    ['2020-07-03T04:31:47', '2020-07-03T04:31:46.999999', 1],
    ['2019-12-31T23:59:59.999999Z', '2020-01-01T00:00:00', -1],
  ])('%s vs %s → %i', (a, b, expected) => {
    expect(Math.sign(compareServiceTimestamps(a, b))).toBe(expected);
  });

  it.each(['', '2020-07-03', '2020-07-03 04:31:46', '2020-07-03T04:31:46+10:00'])(
    'rejects %j',
    (bad) => {
      expect(() => compareServiceTimestamps(bad, '2020-07-03T04:31:46')).toThrow(StateError);
    },
  );
});
