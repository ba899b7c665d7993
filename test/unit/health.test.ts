import { describe, expect, it } from 'vitest';
import { healthMaxAgeMs, longestCronGapMs } from '../../src/web/health.js';

const MINUTE = 60_000;

describe('health max age', () => {
  // Schedules run on local time: a daylight-saving change within the window may stretch a gap
  // by an hour (or skip a run), so the daily ones allow that.
  it.each([
    ['*/5 * * * *', 5, 5],
    ['0 * * * *', 60, 60],
    ['30 2 * * *', 24 * 60, 49 * 60],
    // Working hours only: the weekend is the longest gap, Friday 17:00 to Monday 09:00.
    ['0 9-17 * * 1-5', 64 * 60, 65 * 60],
  ])('finds the longest gap of %s', (cron, atLeastMinutes, atMostMinutes) => {
    const gap = longestCronGapMs(cron);
    expect(gap).toBeGreaterThanOrEqual(atLeastMinutes * MINUTE);
    expect(gap).toBeLessThanOrEqual(atMostMinutes * MINUTE);
  });

  it('is the configured age, else the longer of 3 cron intervals and 30 minutes', () => {
    const config = (cron: string, healthMaxAgeSeconds?: number) => ({
      status: { healthMaxAgeSeconds },
      schedule: { cron },
    });
    expect(healthMaxAgeMs(config('*/5 * * * *', 600))).toBe(10 * MINUTE);
    expect(healthMaxAgeMs(config('*/5 * * * *'))).toBe(30 * MINUTE);
    expect(healthMaxAgeMs(config('0 * * * *'))).toBe(180 * MINUTE);
  });
});
