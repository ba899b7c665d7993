/**
 * The poll policy's budget and times (src/domain/poll-policy.ts); which poll starts next is the
 * work pick's (work-pick.test.ts), and the round's pace on a virtual clock is
 * poll-round-pace.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  coveragePeriodMs,
  hotIntervalMs,
  isHot,
  MIN_HOT_INTERVAL_MS,
} from '../../src/domain/poll-policy.js';

const NOW = 1_000_000;

describe('the budget', () => {
  it('gives all hot entities at most their share of the polling rate, never faster than the floor', () => {
    expect(hotIntervalMs(0, 10)).toBe(MIN_HOT_INTERVAL_MS);
    expect(hotIntervalMs(10, 10)).toBe(MIN_HOT_INTERVAL_MS); // 10 lists in 10 s ≤ 10/6 a second
    expect(hotIntervalMs(250, 10)).toBe(150_000); // 250 hot at a sixth of 10/s
  });

  it('covers every entity within a round at the rate the hot polls leave, or the cron interval', () => {
    expect(coveragePeriodMs(100, 10, 300_000)).toBe(300_000); // a small firm: the schedule
    expect(coveragePeriodMs(5000, 10, 300_000)).toBe(600_000); // 5,000 at five sixths of 10/s
    expect(coveragePeriodMs(5000, Number.POSITIVE_INFINITY, 300_000)).toBe(300_000);
  });

  it('counts an entity as hot for half an hour after a change', () => {
    expect(isHot(undefined, NOW)).toBe(false);
    expect(isHot(NOW - 60_000, NOW)).toBe(true);
    expect(isHot(NOW - 31 * 60_000, NOW)).toBe(false);
  });
});
