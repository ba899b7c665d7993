/**
 * The simulator's rate limit in its two ways of counting (rate-limit.ts): a sliding second and a
 * calendar second. What one lets through and the other refuses, with the Retry-After each gives.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter, type RateWindow } from '../../src/simulator/rate-limit.js';

/** The waits answered to requests at `times` (ms), in order. */
function answers(windows: readonly RateWindow[], times: readonly number[], perSecond = 10) {
  const limiter = new RateLimiter(perSecond, windows);
  return times.map((t) => limiter.check('token', t));
}

/** Ten requests 10 ms apart from `start`. */
const ten = (start: number) => Array.from({ length: 10 }, (_, i) => start + 10 * i);

describe('the simulator rate limit', () => {
  it('lets ten through in any second and refuses the eleventh, in both ways of counting', () => {
    for (const windows of [['sliding'], ['fixed'], ['sliding', 'fixed']] as const) {
      const waits = answers(windows, [...ten(2_000), 2_500]);
      expect(waits.slice(0, 10)).toEqual(Array(10).fill(0));
      expect(waits[10]).toBe(1);
    }
  });

  it('a calendar second lets through a burst across its boundary that a sliding second refuses', () => {
    // Ten in the last 100 ms of one second, ten in the first 100 ms of the next.
    const burst = [...ten(1_900), ...ten(2_000)];
    expect(answers(['fixed'], burst).every((w) => w === 0)).toBe(true);
    const sliding = answers(['sliding'], burst);
    expect(sliding.slice(10).every((w) => w === 1)).toBe(true);
    expect(answers(['sliding', 'fixed'], burst)).toEqual(sliding);
  });

  it('never refuses in a calendar second what a sliding second lets through', () => {
    // Requests a sliding second accepts, at random spacings: the fixed count accepts them all.
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const sliding = new RateLimiter(10, ['sliding']);
    const accepted: number[] = [];
    for (let t = 0; accepted.length < 2_000; t += Math.floor(random() * 150)) {
      if (sliding.check('token', t) === 0) accepted.push(t);
    }
    expect(answers(['fixed'], accepted).every((w) => w === 0)).toBe(true);
  });

  it('counts each access token apart, and not at all when the rate is off', () => {
    const limiter = new RateLimiter(1);
    expect(limiter.check('a', 0)).toBe(0);
    expect(limiter.check('b', 1)).toBe(0);
    expect(limiter.check('a', 2)).toBe(1);
    limiter.perSecond = 0;
    expect(limiter.check('a', 3)).toBe(0);
  });
});
