/**
 * How the simulator counts its limit in benches 9, 11, 12 and 13: `BENCH_RATE_MODES` (e.g.
 * `bucket`, or `sliding,calendar`), by default a sliding and a calendar second together, as the
 * simulator counts unless told. Each bench's notes say which it used.
 */
import { isRateMode, RATE_MODES, type RateMode } from '../../src/simulator/index.js';

export const BENCH_RATE_MODES: readonly RateMode[] = (
  process.env.BENCH_RATE_MODES ?? 'sliding,calendar'
)
  .split(',')
  .map((mode) => {
    if (!isRateMode(mode)) throw new Error(`BENCH_RATE_MODES: ${mode} is not one of ${RATE_MODES}`);
    return mode;
  });

/** The body of the simulator's `PUT /_admin/rate-limit` for `perSecond` (a bucket's burst 2). */
export const rateLimitBody = (perSecond: number) => ({
  perSecond,
  modes: BENCH_RATE_MODES,
  burst: 2,
});

/** For a bench's notes. */
export const rateModesSaid = () =>
  `counted as ${BENCH_RATE_MODES.join(' and ')} (BENCH_RATE_MODES${BENCH_RATE_MODES.includes('bucket') ? '; burst 2' : ''})`;
