/**
 * "Did you mean": the known name nearest a mistyped one (src/domain/nearest-name.ts), and the
 * edit distance it is judged by.
 */
import { describe, expect, it } from 'vitest';
import { editDistance, nearestName } from '../../src/domain/nearest-name.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['cron', 'cron', 0],
    ['cron', 'corn', 1], // two neighbours swapped: one slip
    ['listen', 'lisen', 1],
    ['schedule', 'sheduel', 2],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('%j to %j: %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('nearestName', () => {
  const keys = ['cron', 'fullReconcileCron', 'maxPollShare', 'unlodgedSweepShare'];

  it.each([
    ['corn', 'cron'],
    ['CRON', 'cron'], // letter case is no slip worth naming, but still the key meant
    ['maxPolShare', 'maxPollShare'],
    ['unlodgedSweepShar', 'unlodgedSweepShare'],
    ['fullreconcilecron', 'fullReconcileCron'],
  ])('%j: did you mean %j', (typed, meant) => {
    expect(nearestName(typed, keys)).toBe(meant);
  });

  it.each([['colour'], ['share'], ['x']])('%j is like no key: no suggestion', (typed) => {
    expect(nearestName(typed, keys)).toBeNull();
  });

  it('suggests nothing from no keys', () => {
    expect(nearestName('cron', [])).toBeNull();
  });
});
