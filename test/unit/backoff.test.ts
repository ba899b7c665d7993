import { describe, expect, it } from 'vitest';
import { backoff, EVENT_BACKOFF, ITEM_BACKOFF } from '../../src/domain/backoff.js';

const SECOND = 1_000;
const MINUTE = 60_000;

describe('backoff: the one formula of every retry', () => {
  it.each([
    [0, 1 * MINUTE],
    [1, 1 * MINUTE],
    [2, 2 * MINUTE],
    [3, 4 * MINUTE],
    [9, 256 * MINUTE],
    [10, 360 * MINUTE],
    [11, 360 * MINUTE],
    [1_000_000, 360 * MINUTE],
  ])('an item in error, after %i failures, waits %i ms', (attempts, delay) => {
    expect(backoff(attempts, ITEM_BACKOFF)).toBe(delay);
  });

  it.each([
    [1, 5 * SECOND],
    [2, 10 * SECOND],
    [7, 320 * SECOND],
    [8, 10 * MINUTE],
    [50, 10 * MINUTE],
  ])('a webhook event, after %i failed syncs, waits %i ms', (attempts, delay) => {
    expect(backoff(attempts, EVENT_BACKOFF)).toBe(delay);
  });

  it('an item starts at a minute and is capped at six hours; an event at 5 s and ten minutes', () => {
    expect(ITEM_BACKOFF).toEqual({ firstMs: MINUTE, capMs: 360 * MINUTE });
    expect(EVENT_BACKOFF).toEqual({ firstMs: 5 * SECOND, capMs: 10 * MINUTE });
  });
});
