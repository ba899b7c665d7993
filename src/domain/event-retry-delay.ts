/**
 * How long a webhook event whose work failed waits before it is tried again: `first`, doubling
 * per failed attempt, capped at ten minutes. Pure. A failed sync is mostly the service or the
 * network down for a while; the doubling keeps a long outage from costing a sync every few
 * seconds, the cap keeps the event from waiting much past the service's recovery.
 */
export const FIRST_EVENT_RETRY_MS = 5_000;
export const MAX_EVENT_RETRY_MS = 10 * 60_000;

/** Delay after the `attempts`-th failure (1 for the first); 0 or less counts as the first. */
export function eventRetryDelay(attempts: number, first: number = FIRST_EVENT_RETRY_MS): number {
  const exponent = Math.max(0, Math.floor(attempts) - 1);
  return Math.min(MAX_EVENT_RETRY_MS, first * 2 ** Math.min(exponent, 30));
}
