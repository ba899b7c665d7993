/**
 * The simulator's rate limit in its modes of counting (rate-limit.ts): a sliding second, a
 * calendar second, a token bucket with a burst. What one lets through and another refuses, with
 * the Retry-After each gives; and the arrival jitter's delays.
 */
import { describe, expect, it } from 'vitest';
import { RateLimiter, type RateMode } from '../../src/simulator/rate-limit.js';

/** The waits answered to requests at `times` (ms), in order. */
function answers(modes: readonly RateMode[], times: readonly number[], perSecond = 10, burst = 2) {
  const limiter = new RateLimiter(perSecond, modes, burst);
  return times.map((t) => limiter.check('token', t));
}

/** Ten requests 10 ms apart from `start`. */
const ten = (start: number) => Array.from({ length: 10 }, (_, i) => start + 10 * i);
/** `n` requests `gap` ms apart from `start`. */
const spaced = (start: number, n: number, gap: number) =>
  Array.from({ length: n }, (_, i) => start + gap * i);

describe('the simulator rate limit', () => {
  it('lets ten through in any second and refuses the eleventh, in both ways of counting seconds', () => {
    for (const modes of [['sliding'], ['calendar'], ['sliding', 'calendar']] as const) {
      const waits = answers(modes, [...ten(2_000), 2_500]);
      expect(waits.slice(0, 10)).toEqual(Array(10).fill(0));
      expect(waits[10]).toBe(1);
    }
  });

  it('sliding: refuses an eleventh within any 1,000 ms, and lets it through a millisecond later', () => {
    const times = spaced(5_000, 10, 100); // 5,000 … 5,900
    expect(answers(['sliding'], [...times, 5_999]).at(-1)).toBe(1);
    expect(answers(['sliding'], [...times, 6_000]).at(-1)).toBe(0);
  });

  it('calendar: counts again on each second of the clock', () => {
    const times = spaced(5_500, 10, 40); // 5,500 … 5,860
    expect(answers(['calendar'], [...times, 5_999]).at(-1)).toBe(1);
    expect(answers(['calendar'], [...times, 6_000]).at(-1)).toBe(0);
  });

  it('a calendar second lets through a burst across its boundary that a sliding second refuses', () => {
    // Ten in the last 100 ms of one second, ten in the first 100 ms of the next.
    const burst = [...ten(1_900), ...ten(2_000)];
    expect(answers(['calendar'], burst).every((w) => w === 0)).toBe(true);
    const sliding = answers(['sliding'], burst);
    expect(sliding.slice(10).every((w) => w === 1)).toBe(true);
    expect(answers(['sliding', 'calendar'], burst)).toEqual(sliding);
  });

  it('never refuses in a calendar second what a sliding second lets through', () => {
    // Requests a sliding second accepts, at random spacings: the calendar count accepts them all.
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
    expect(answers(['calendar'], accepted).every((w) => w === 0)).toBe(true);
  });

  it('bucket: lets its burst through at once after a quiet spell, then one per 1/rate', () => {
    // Burst 2 at 10/s: two at once, the third refused; a token back 100 ms later.
    expect(answers(['bucket'], [1_000, 1_000, 1_000])).toEqual([0, 0, 1]);
    expect(answers(['bucket'], [1_000, 1_000, 1_099])).toEqual([0, 0, 1]);
    expect(answers(['bucket'], [1_000, 1_000, 1_100])).toEqual([0, 0, 0]);
    // Evenly at the rate, forever; a little faster, refused in the end.
    expect(answers(['bucket'], spaced(1_000, 500, 100)).every((w) => w === 0)).toBe(true);
    expect(answers(['bucket'], spaced(1_000, 500, 95)).some((w) => w > 0)).toBe(true);
  });

  it('bucket: refuses what both seconds let through, two at once with a burst of one', () => {
    const pair = [1_000, 1_000];
    expect(answers(['sliding', 'calendar'], pair)).toEqual([0, 0]);
    expect(answers(['bucket'], pair, 10, 1)).toEqual([0, 1]);
  });

  it('counts each access token apart, and not at all when the rate is off', () => {
    const limiter = new RateLimiter(1);
    expect(limiter.check('a', 0)).toBe(0);
    expect(limiter.check('b', 1)).toBe(0);
    expect(limiter.check('a', 2)).toBe(1);
    limiter.perSecond = 0;
    expect(limiter.check('a', 3)).toBe(0);
  });

  it('delays arrivals by up to the jitter, the same draws from run to run', () => {
    const draws = () => {
      const limiter = new RateLimiter(10);
      limiter.arrivalJitterMs = 30;
      return Array.from({ length: 200 }, () => limiter.arrivalDelayMs());
    };
    const first = draws();
    expect(Math.min(...first)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...first)).toBeLessThanOrEqual(30);
    expect(new Set(first).size).toBeGreaterThan(10);
    expect(draws()).toEqual(first);
    expect(new RateLimiter(10).arrivalDelayMs()).toBe(0);
  });
});
