/**
 * How long anything that failed waits before it is tried again: `firstMs`, doubling per failed
 * attempt, capped at `capMs`. Pure, and the one formula for the whole program; what differs is
 * the schedule, named here beside it:
 * - an item in error (a document, a push): a minute, capped at six hours. The doubling keeps one
 *   broken document from costing a request per cycle forever while the others carry on; the
 *   cap keeps one a person fixes during the day from waiting until tomorrow;
 * - a webhook event whose sync failed: five seconds, capped at ten minutes. A failed sync is
 *   mostly the service or the network down for a while: the cap keeps the event from waiting
 *   much past the service's recovery;
 * - one request (remote/retry-delay.ts, which adds the jitter): half a second, capped at 30 s.
 */
export interface BackoffSchedule {
  readonly firstMs: number;
  readonly capMs: number;
}

export const ITEM_BACKOFF: BackoffSchedule = { firstMs: 60_000, capMs: 6 * 60 * 60_000 };
export const EVENT_BACKOFF: BackoffSchedule = { firstMs: 5_000, capMs: 10 * 60_000 };

/** The wait after the `attempts`-th failure (1 for the first); 0 or less counts as the first. */
export function backoff(attempts: number, schedule: BackoffSchedule): number {
  const exponent = Math.max(0, Math.floor(attempts) - 1);
  // 2^30 passes any cap: clamping the exponent keeps huge counts finite.
  return Math.min(schedule.capMs, schedule.firstMs * 2 ** Math.min(exponent, 30));
}
