import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../src/engine/map-limit.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('mapLimit', () => {
  it('keeps the input order and never has more than `limit` calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++inFlight);
      for (let i = 0; i < n; i++) await tick();
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('after a failure starts nothing new, and throws only once the calls in flight are done', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = mapLimit([1, 2, 3, 4, 5], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('listing 1 failed');
      for (let i = 0; i < 5; i++) await tick();
      finished.push(n);
      return n;
    });
    await expect(run).rejects.toThrow('listing 1 failed');
    // 2 was in flight when 1 failed: it ran to its end before the error came out; 3–5 never began.
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([2]);
  });
});
