/**
 * How long an item in error waits before it is tried again: one minute, doubling per attempt,
 * capped at six hours. Pure. The cap keeps a document that a person fixes during the day from
 * waiting until tomorrow; the doubling keeps one broken document from costing a request per
 * cycle forever while the others carry on.
 */
export const FIRST_RETRY_DELAY_MS = 60_000;
export const MAX_RETRY_DELAY_MS = 6 * 60 * 60_000;

/** Delay after the `attempts`-th failure (1 for the first); 0 or less counts as the first. */
export function nextAttemptDelay(attempts: number): number {
  const exponent = Math.max(0, Math.floor(attempts) - 1);
  // 2^9 minutes already exceeds the cap; clamping the exponent keeps huge counts finite.
  return Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.min(exponent, 30));
}
