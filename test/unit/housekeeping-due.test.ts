/**
 * When housekeeping runs (daemon/housekeeping.ts): a start within 20 h of the last run skips it,
 * so a daemon restarted in a loop does not sweep each time, and the nightly timer that fires a
 * little earlier each night still runs it; a clock set back never stops it for good.
 */
import { describe, expect, it } from 'vitest';
import { HOUSEKEEPING_SKIP_WITHIN_MS, housekeepingDue } from '../../src/daemon/housekeeping.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2030, 0, 7, 3, 0, 0);

describe('housekeepingDue', () => {
  it.each([
    ['never ran', null, true],
    ['ran a minute ago', NOW - 60_000, false],
    ['ran 19 h 59 min ago', NOW - 20 * HOUR + 60_000, false],
    ['ran 20 h ago', NOW - 20 * HOUR, true],
    ['ran 23 h 50 min ago (last night, a little later)', NOW - 23 * HOUR - 50 * 60_000, true],
    ['ran "in an hour" (the clock was set back)', NOW + HOUR, true],
  ])('%s', (_what, lastRunAt, due) => {
    expect(housekeepingDue(lastRunAt, NOW)).toBe(due);
  });

  it('skips within 20 h', () => {
    expect(HOUSEKEEPING_SKIP_WITHIN_MS).toBe(20 * HOUR);
  });
});
