import { describe, expect, it } from 'vitest';
import {
  FIRST_RETRY_DELAY_MS,
  MAX_RETRY_DELAY_MS,
  nextAttemptDelay,
} from '../../src/domain/next-attempt-delay.js';

const MINUTE = 60_000;

describe('nextAttemptDelay', () => {
  it.each([
    [0, 1 * MINUTE],
    [1, 1 * MINUTE],
    [2, 2 * MINUTE],
    [3, 4 * MINUTE],
    [9, 256 * MINUTE],
    [10, 360 * MINUTE],
    [11, 360 * MINUTE],
    [1_000_000, 360 * MINUTE],
  ])('after %i failures waits %i ms', (attempts, delay) => {
    expect(nextAttemptDelay(attempts)).toBe(delay);
  });

  it('starts at one minute and is capped at six hours', () => {
    expect(FIRST_RETRY_DELAY_MS).toBe(MINUTE);
    expect(MAX_RETRY_DELAY_MS).toBe(360 * MINUTE);
  });
});
