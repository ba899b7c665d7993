/**
 * Which entity to list next, when polling has a free slot. Pure: the daemon's poller
 * keeps the facts (the round's queue, when each entity was listed, which changed lately, which
 * the firm-wide sweep pointed at) and asks this module. There is no firm-wide change feed, so
 * each check of an entity costs one list request, and polling has only what the other lanes
 * leave of the rate.
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
 *
 * The rules, numbered like the decision table (test/unit/poll-policy.test.ts has a case each):
 * 1. An entity in a sync now is never picked (one sync per entity at a time).
 * 2. A hot entity is due once its hot interval has passed since it was last listed.
 * 3. With both a due hot entity and a round entity waiting, hot polls take turns with the
 *    round so that they use at most `HOT_SHARE` of the polls: the round always keeps the rest,
 *    which bounds the coverage period.
 * 4. With only one kind waiting, it takes every free slot (nothing of the budget idles).
 * 5. Of several due hot entities, the one listed longest ago goes first.
 * 6. Nothing waiting: the poller sleeps until the next hot entity is due or a round starts.
 * 7. A hinted entity is due at once, whatever its hot interval (the sweep saw a change the last
 *    listing cannot have seen); of several, the one hinted first goes first.
 * 8. A due hinted entity goes before the hot ones and takes their turns under rule 3: hints are
 *    hot polls that cannot wait, so the round still keeps its share and its coverage period.
 * 9. The round's pace: hot and hinted polls together take at most `HOT_SHARE` (a sixth) of the
 *    polls started within `SHARE_WINDOW_MS` while a round waits, however many entities are
 *    active. A round then takes at most 1 / (1 − HOT_SHARE) = 1.2 times a quiet round from the
 *    polls, leaving room under the 1.3 the docs promise for the syncs of the webhooks that made
 *    those entities active, which share the budget, and no entity goes unlisted longer than
 *    `coveragePeriodMs`. With half the polls theirs, a
 *    few hundred entities made hot by webhooks and new folders made each round take twice as
 *    long, and a change only a round sees waited twice as long for it; hot entities are listed
 *    less often instead (`hotIntervalMs`), which webhooks and the firm-wide hint make up for.
 */

/** An entity that changed within this long is hot. */
export const HOT_WINDOW_MS = 30 * 60_000;
/** Hot polls never list an entity more often than this. */
export const MIN_HOT_INTERVAL_MS = 10_000;
/** The part of the polls hot and hinted entities may take while a round waits (rule 9). */
export const HOT_SHARE = 1 / 6;
/** How far back the poller counts the polls it started, by kind, for the share (rule 9). */
export const SHARE_WINDOW_MS = 60_000;

export interface HotEntity {
  readonly key: string;
  /** When its last listing finished (0: never). */
  readonly listedAt: number;
}

export interface HintedEntity {
  readonly key: string;
  /** When the sweep first pointed at it (since its last listing). */
  readonly hintedAt: number;
}

export interface PollView {
  readonly now: number;
  /** The current round's entities not yet listed, stalest first. */
  readonly round: readonly string[];
  /** The entities that changed within HOT_WINDOW_MS. */
  readonly hot: readonly HotEntity[];
  /** The entities the firm-wide sweep saw a change in, not listed since. */
  readonly hinted: readonly HintedEntity[];
  readonly hotIntervalMs: number;
  /** Polls started within SHARE_WINDOW_MS, by kind (hinted ones count as hot). */
  readonly recent: { readonly hot: number; readonly round: number };
  /** Entities in a sync now (any lane), waiting for one, or with their lock held. */
  readonly busy: Pick<ReadonlySet<string>, 'has'>;
}

export type PollPick =
  | { readonly kind: 'round' | 'hot' | 'hinted'; readonly key: string; readonly rule: number }
  | { readonly kind: 'wait'; readonly untilMs: number | null; readonly rule: 6 };

export function choosePoll(view: PollView): PollPick {
  const roundKey = view.round.find((key) => !view.busy.has(key)); // rule 1
  const hinted = view.hinted
    .filter((h) => !view.busy.has(h.key)) // rules 1, 7
    .sort((a, b) => a.hintedAt - b.hintedAt)[0]; // rule 7
  const dueHot = view.hot
    .filter((h) => !view.busy.has(h.key) && view.now - h.listedAt >= view.hotIntervalMs) // 1, 2
    .sort((a, b) => a.listedAt - b.listedAt); // rule 5
  // Rule 8: a hinted entity is the hot kind's pick, ahead of every due hot one.
  const hot = hinted
    ? { kind: 'hinted' as const, key: hinted.key }
    : dueHot[0] && { kind: 'hot' as const, key: dueHot[0].key };
  if (hot && roundKey !== undefined) {
    const total = view.recent.hot + view.recent.round;
    const hotsTurn = view.recent.hot < HOT_SHARE * (total + 1); // rule 9
    if (!hotsTurn) return { kind: 'round', key: roundKey, rule: 3 };
    return { ...hot, rule: hot.kind === 'hinted' ? 8 : 3 };
  }
  if (hot) return { ...hot, rule: hot.kind === 'hinted' ? 7 : 4 };
  if (roundKey !== undefined) return { kind: 'round', key: roundKey, rule: 4 };
  const next = view.hot
    .filter((h) => !view.busy.has(h.key))
    .map((h) => h.listedAt + view.hotIntervalMs);
  return { kind: 'wait', untilMs: next.length > 0 ? Math.min(...next) : null, rule: 6 };
}

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
 * hot polls leave it (at worst 1 − HOT_SHARE of the polling rate: rule 9), or the cron interval
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
