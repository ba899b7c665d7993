/**
 * The poll policy's times and budget. The choice of the next poll is the work pick's
 * (domain/work-pick.ts, rules 7–14), with the rest of what the scheduler starts next. There is no
 * firm-wide change feed, so each check of an entity costs one list request, and polling has
 * only what the other lanes leave of the rate.
 *
 * Three kinds of poll share the budget:
 * - the **round** lists every entity once, stalest first; a round is what guarantees coverage.
 *   The cron schedule starts one; a tick while one runs is kept as one round to follow, never
 *   more (a round never overruns into a pile-up);
 * - **hot** polls list again the entities that changed lately (on either side), as soon as their
 *   hot interval has passed: a few percent of a firm's entities get most of its changes (a
 *   change a hinted poll brought makes its entity hot only once the round lists it, as without
 *   the sweep: work-scheduler.ts);
 * - **hinted** polls list a company the firm-wide unlodged list showed a change in (a new
 *   document, a new status, a document gone from it: domain/unlodged-hints.ts), at once.
 */

/** An entity that changed within this long is hot. */
export const HOT_WINDOW_MS = 30 * 60_000;
/** Hot polls never list an entity more often than this. */
export const MIN_HOT_INTERVAL_MS = 10_000;
/** The part of the polls hot and hinted entities may take while a round waits (work-pick rule 12). */
export const HOT_SHARE = 1 / 6;
/** How far back the poller counts the polls it started, by kind, for the share (work-pick rule 12). */
export const SHARE_WINDOW_MS = 60_000;

/**
 * How often a hot entity may be listed: all hot entities once per interval take at most
 * HOT_SHARE of the polling rate, and never more often than MIN_HOT_INTERVAL_MS.
 */
export function hotIntervalMs(
  hotCount: number,
  pollsPerSecond: number,
  minMs = MIN_HOT_INTERVAL_MS,
): number {
  if (hotCount === 0 || !Number.isFinite(pollsPerSecond)) return minMs;
  return Math.max(minMs, (1000 * hotCount) / (pollsPerSecond * HOT_SHARE));
}

/**
 * The longest an entity can go unlisted: one round, which lists every entity at the rate the
 * hot polls leave it (at worst 1 − HOT_SHARE of the polling rate: work-pick rule 12), or the cron interval
 * when the budget lists everyone sooner than that.
 */
export function coveragePeriodMs(
  entities: number,
  pollsPerSecond: number,
  cronIntervalMs: number,
): number {
  if (!Number.isFinite(pollsPerSecond)) return cronIntervalMs;
  const round = (1000 * entities) / (pollsPerSecond * (1 - HOT_SHARE));
  return Math.max(cronIntervalMs, Math.ceil(round));
}

export function isHot(
  changedAt: number | undefined,
  now: number,
  windowMs = HOT_WINDOW_MS,
): boolean {
  return changedAt !== undefined && now - changedAt < windowMs;
}

/** The two times of the policy; a benchmark that scales time down scales them with it. */
export interface PollTimes {
  readonly hotWindowMs: number;
  readonly minHotIntervalMs: number;
}

export const POLL_TIMES: PollTimes = {
  hotWindowMs: HOT_WINDOW_MS,
  minHotIntervalMs: MIN_HOT_INTERVAL_MS,
};
