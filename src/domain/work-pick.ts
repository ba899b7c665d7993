/**
 * What the work scheduler starts next. Pure: the scheduler (daemon/work-scheduler.ts) keeps the
 * facts, hands them over as one view, starts what the pick names and asks again, until the pick
 * is a wait. Syncs of different entities run side by side in two pools: the urgent slots (webhook
 * and watcher syncs) and the poll slots (polls, and syncs asked for in the poll lane). A sync
 * holds its slot to its end, so a share of a pool is a number of slots kept, not a turn.
 *
 * The rules, numbered like the decision table (test/unit/work-pick.test.ts has a case each).
 * When a request comes (`requestLane`):
 * 1. A webhook about an entity whose watcher sync runs or waits, or ended less than ECHO_MS
 *    ago, follows in the watcher's lane, not its own: the service sends a webhook for each of
 *    our uploads, and during a burst of files dropped into many folders those echoes filled the
 *    webhook lane with syncs of the busy entities, so a webhook about another entity's change
 *    waited behind them; the echoes of a sync's last uploads arrive as it ends. The entity gets
 *    its sync all the same (its outcome is the webhook's), in the lane of the work that caused it.
 * At each pick (`pickWork`), the first rule that names something to start decides:
 * 2. One sync per entity: an entity in a sync now, or whose lock is held (a person's decision, a
 *    whole cycle), starts nothing and waits where it is, not in a slot; one waiting in the queue
 *    is never polled, as its queued sync will list it.
 * 3. A sync asked for in the poll lane (the watcher's scanning mode) takes a free poll slot before
 *    the poller chooses, in the order the requests came, without the polls' pace.
 * The urgent slots (webhook and watcher syncs share one pool):
 * 4. A lane takes a slot only while one is free, and only if it has a sync waiting; within a
 *    lane, syncs start in the order their requests came.
 * 5. Share: a quarter of the pool's slots (rounded down) is kept for each of its lanes: no
 *    other lane takes them, even while that lane has nothing waiting, since a sync cannot be
 *    stopped to make room. A webhook then finds a slot at once however many folders the watcher
 *    is syncing; the watcher loses little by it, as its syncs wait for the rate, not for slots.
 * 6. Order: of the lanes rule 5 allows, the highest goes first.
 * The polls (the three kinds, round, hot and hinted: domain/poll-policy.ts):
 * 7. A poll starts only in a free poll slot and, when polls are paced (a share of the rate below
 *    the whole), not before the pace allows the next: until then, wait.
 * 8. A hot entity is due once its hot interval has passed since it was last listed.
 * 9. A hinted entity is due at once, whatever its hot interval (the sweep saw a change the last
 *    listing cannot have seen); of several, the one hinted first goes first.
 * 10. A due hinted entity goes before the hot ones and takes their turns under rule 12: hints
 *    are hot polls that cannot wait, so the round still keeps its share and its coverage period.
 * 11. Of several due hot entities, the one listed longest ago goes first.
 * 12. The round's pace: with both a hot (or hinted) entity and a round entity waiting, they take
 *    turns so that hot and hinted polls together take at most `HOT_SHARE` (a sixth) of the polls
 *    started within `SHARE_WINDOW_MS`, however many entities are active. A round then takes at
 *    most 1 / (1 − HOT_SHARE) = 1.2 times a quiet round from the polls, leaving room under the
 *    1.3 the docs promise for the syncs of the webhooks that made those entities active, which
 *    share the budget, and no entity goes unlisted longer than `coveragePeriodMs`. With a larger
 *    share, many entities made hot by webhooks and new folders made each round take much
 *    longer, and a change only a round sees waited as long for it; hot entities are listed less
 *    often instead (`hotIntervalMs`), which webhooks and the firm-wide hint make up for.
 * 13. With only one kind waiting, it takes every free slot (nothing of the budget idles).
 * 14. Nothing to start: wait until the next hot entity is due; with none, until something
 *    changes (a request, a hint, a round, a sync's end, a lock come free).
 */
import { LANES, type Lane } from './lanes.js';
import { HOT_SHARE } from './poll-policy.js';

/** How long after a watcher sync a webhook about its entity is taken for its echo (rule 1). */
export const ECHO_MS = 15_000;

/** The part of the urgent slots each of its lanes is sure of (rule 5). */
export const SLOT_SHARE = 1 / 4;

/** The lanes of the urgent slots, whether or not they have syncs. */
const URGENT_LANES: readonly Lane[] = ['webhook', 'watcher'];

/**
 * The lane a request's sync takes (rule 1); `running`, `waiting`: the entity's, if any;
 * `watcherEndedAgoMs`: how long ago its last watcher sync ended, if it had one.
 */
export function requestLane(
  asked: Lane,
  fromWebhook: boolean,
  entity: {
    readonly running?: Lane | undefined;
    readonly waiting?: Lane | undefined;
    readonly watcherEndedAgoMs?: number | undefined;
  },
): Lane {
  const watcherBusy =
    entity.running === 'watcher' ||
    entity.waiting === 'watcher' ||
    (entity.watcherEndedAgoMs !== undefined && entity.watcherEndedAgoMs < ECHO_MS);
  return fromWebhook && asked === 'webhook' && watcherBusy ? 'watcher' : asked;
}

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

export interface QueuedSync {
  readonly key: string;
  readonly lane: Lane;
}

export interface WorkView {
  /** Syncs asked for and not started, one per entity, in the order their requests came. */
  readonly queued: readonly QueuedSync[];
  /** Entities in a sync now, or whose lock is held. */
  readonly busy: Pick<ReadonlySet<string>, 'has'>;
  /** The urgent slots, and those in use per lane (a sync keeps the lane it started in). */
  readonly urgent: {
    readonly slots: number;
    readonly inUse: Readonly<Partial<Record<Lane, number>>>;
  };
  readonly poll: { readonly slots: number; readonly inUse: number };
  readonly polls: PollState;
}

/** What the poller knows when it picks. */
export interface PollState {
  readonly now: number;
  /** Polls are paced, and the next may start at `nextPollAt` (rule 7). */
  readonly paced: boolean;
  readonly nextPollAt: number;
  /** The current round's entities not yet listed, stalest first. */
  readonly round: readonly string[];
  /** The entities that changed within the hot window. */
  readonly hot: readonly HotEntity[];
  /** The entities the firm-wide sweep saw a change in, not listed since. */
  readonly hinted: readonly HintedEntity[];
  readonly hotIntervalMs: number;
  /** Polls started within SHARE_WINDOW_MS, by kind (hinted ones count as hot). */
  readonly recent: { readonly hot: number; readonly round: number };
}

export type PollKind = 'round' | 'hot' | 'hinted';

export type WorkPick =
  | {
      readonly kind: 'start-queued';
      readonly key: string;
      readonly slot: 'poll-slot' | 'urgent-slot';
      readonly rule: 3 | 5 | 6;
    }
  | {
      readonly kind: 'start-poll';
      readonly poll: PollKind;
      readonly key: string;
      readonly rule: 9 | 10 | 12 | 13;
    }
  | { readonly kind: 'wait'; readonly untilMs: number | null; readonly rule: 7 | 14 };

/** The one thing to start next, or how long to wait before asking again. */
export function pickWork(view: WorkView): WorkPick {
  const startable = view.queued.filter((q) => !view.busy.has(q.key)); // rule 2
  if (view.poll.inUse < view.poll.slots) {
    const asPoll = startable.find((q) => q.lane === 'poll'); // rule 3
    if (asPoll) return { kind: 'start-queued', key: asPoll.key, slot: 'poll-slot', rule: 3 };
  }
  const urgent = pickUrgent(
    view.urgent,
    startable.filter((q) => q.lane !== 'poll'),
  );
  if (urgent) return urgent;
  return pickPoll(view);
}

/** Rules 4–6: the sync that takes the next urgent slot, or null: none may start now. */
function pickUrgent(pool: WorkView['urgent'], waiting: readonly QueuedSync[]): WorkPick | null {
  const running = (lane: Lane) => pool.inUse[lane] ?? 0;
  const waits = (lane: Lane) => waiting.some((q) => q.lane === lane);
  const lanes = LANES.filter(
    (lane) =>
      URGENT_LANES.includes(lane) || (lane !== 'poll' && (lane in pool.inUse || waits(lane))),
  );
  const used = lanes.reduce((n, lane) => n + running(lane), 0);
  if (used >= pool.slots) return null; // rule 4
  const share = Math.floor(pool.slots * SLOT_SHARE); // rule 5: what each lane may hold
  const most = pool.slots - share * (lanes.length - 1);
  let heldBack = false;
  for (const lane of lanes) {
    const next = waiting.find((q) => q.lane === lane); // rule 4
    if (!next) continue;
    if (running(lane) >= most) {
      heldBack = true;
      continue;
    }
    return { kind: 'start-queued', key: next.key, slot: 'urgent-slot', rule: heldBack ? 5 : 6 };
  }
  return null;
}

/** Rules 7–14: the poll to start, or the wait. */
function pickPoll(view: WorkView): WorkPick {
  const p = view.polls;
  if (view.poll.inUse >= view.poll.slots) return { kind: 'wait', untilMs: null, rule: 7 };
  if (p.paced && p.now < p.nextPollAt) return { kind: 'wait', untilMs: p.nextPollAt, rule: 7 };
  const queued = new Set(view.queued.map((q) => q.key));
  const busy = (key: string) => view.busy.has(key) || queued.has(key); // rule 2
  const roundKey = p.round.find((key) => !busy(key));
  const hinted = p.hinted
    .filter((h) => !busy(h.key)) // rule 9
    .sort((a, b) => a.hintedAt - b.hintedAt)[0];
  const dueHot = p.hot
    .filter((h) => !busy(h.key) && p.now - h.listedAt >= p.hotIntervalMs) // rule 8
    .sort((a, b) => a.listedAt - b.listedAt); // rule 11
  // Rule 10: a hinted entity is the hot kind's pick, ahead of every due hot one.
  const hot = hinted
    ? { poll: 'hinted' as const, key: hinted.key }
    : dueHot[0] && { poll: 'hot' as const, key: dueHot[0].key };
  if (hot && roundKey !== undefined) {
    const total = p.recent.hot + p.recent.round;
    const hotsTurn = p.recent.hot < HOT_SHARE * (total + 1); // rule 12
    if (!hotsTurn) return { kind: 'start-poll', poll: 'round', key: roundKey, rule: 12 };
    return { kind: 'start-poll', ...hot, rule: hot.poll === 'hinted' ? 10 : 12 };
  }
  if (hot) return { kind: 'start-poll', ...hot, rule: hot.poll === 'hinted' ? 9 : 13 };
  if (roundKey !== undefined) return { kind: 'start-poll', poll: 'round', key: roundKey, rule: 13 };
  const next = p.hot.filter((h) => !busy(h.key)).map((h) => h.listedAt + p.hotIntervalMs);
  return { kind: 'wait', untilMs: next.length > 0 ? Math.min(...next) : null, rule: 14 };
}
