/**
 * How the request rate falls on a 429 and climbs back, in the shape of the AWS SDKs' adaptive
 * retry mode (botocore's `retries/throttling.py`, CubicCalculator; the JS SDK's
 * DefaultRateLimiter), which follows TCP CUBIC: on a throttle the rate drops to BETA of what it
 * was (W_max), then climbs back along a cubic curve that is steep at first, flat as it nears
 * W_max (where the limit was met), and steep again past it, probing for a limit that rose:
 *
 *   rate(t) = SCALE · (t − K)³ + W_max,   K = ∛(W_max · (1 − BETA) / SCALE),
 *
 * t in seconds since the throttle: rate(0) = BETA · W_max, rate(K) = W_max. Pure: the time of
 * the throttle and of now are handed in.
 *
 * The SDKs' SCALE is 0.4: at 10 requests a second the rate is back at W_max in 2 s, and against
 * a limit below the ceiling it meets that limit again within seconds, over and over: a storm of
 * 429s, each costing its request a Retry-After. Ours is 800,000 times smaller, so K is 93 times
 * longer: back at W_max in about 3 minutes at 10 a second, and against a limit below the ceiling
 * one 429 every 3 minutes or so, under 0.1 % of the requests, while the rate averages about 90 %
 * of that limit. A limit that rose is found again within minutes, by the curve's steep part.
 */

/** The share of the rate kept on a throttle (botocore's _BETA). */
export const BETA = 0.7;

/** CUBIC's C, in requests per second per second³ (botocore's _SCALE_CONSTANT is 0.4). */
export const SCALE = 0.4 / 800_000;

export interface Cubic {
  /** The rate when the throttle came (requests per second). */
  readonly wMax: number;
  /** Seconds from the throttle until the rate is back at wMax. */
  readonly k: number;
  /** When the throttle came (ms, on the clock the caller keeps). */
  readonly at: number;
}

/** The curve after a throttle met at `rate`, at time `at`: it starts at BETA · rate. */
export function cubicAfterThrottle(rate: number, at: number): Cubic {
  return { wMax: rate, k: Math.cbrt((rate * (1 - BETA)) / SCALE), at };
}

/** The rate the curve allows at `now` (unbounded: the caller keeps it within its floor and ceiling). */
export function cubicRate(cubic: Cubic, now: number): number {
  const t = Math.max(0, now - cubic.at) / 1000;
  return SCALE * (t - cubic.k) ** 3 + cubic.wMax;
}
