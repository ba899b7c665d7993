/**
 * Which lane goes next. Pure: the request queue and the work scheduler keep the facts
 * and ask this module. The lanes keep their order (pushes, webhooks, watcher, polling), but
 * order alone let 2,000 files dropped into one folder take the whole rate for 213 s while two
 * webhooks waited 17.6 s and 150 s: a lane ahead that always has work starves every lane behind.
 * So each lane with work gets a bounded share whatever is ahead of it, and a lane ahead keeps
 * only what the lanes behind it do not need.
 *
 * The request queue's turns (each time the rate and a connection allow one request to start):
 * 1. A lane with no request waiting takes no turn.
 * 2. Share: a lane passed over PATIENCE times in a row by lanes ahead of it, while it waited,
 *    takes the next turn (of several, the one highest in the order): one turn in PATIENCE + 1,
 *    whatever is ahead of it. So no lane waits for more than PATIENCE turns of the lanes ahead
 *    of it, plus one for each other lane owed a turn at the same time. Polling takes its share
 *    like any lane: a round goes on during a burst, at a quarter of the rate.
 * 3. Order: otherwise the highest lane with a request waiting takes the turn.
 * 4. Polling keeps no pace of its own: the governor (request-governor.ts) gives every turn a
 *    spacing, whatever its lane, so a round never sends a burst, and a webhook's request that
 *    comes while polls wait takes the next turn by rule 3, a spacing away at most.
 * 5. Nothing waits: no turn.
 *
 * The work scheduler's slots (syncs of webhooks and of the watcher share one pool of slots; a
 * sync holds its slot to its end, so a share there is a number of slots kept, not a turn):
 * 6. A lane takes a slot only while one is free, and only if it has a sync waiting.
 * 7. Share: a quarter of the pool's slots (rounded down) is kept for each of its lanes: no
 *    other lane takes them, even while that lane has nothing waiting, since a sync cannot be
 *    stopped to make room. A webhook then finds a slot at once however many folders the watcher
 *    is syncing; the watcher loses little by it, as its syncs wait for the rate, not for slots.
 * 8. Order: of the lanes rule 7 allows, the highest goes first.
 * 9. A webhook about an entity whose watcher sync runs or waits, or ended less than ECHO_MS
 *    ago, follows in the watcher's lane, not its own: the service sends a webhook for each of
 *    our uploads, and during 2,000 files dropped into 40 folders those echoes filled the webhook
 *    lane with syncs of the busy entities, so a webhook about another entity's change waited
 *    behind them for 15–30 s; the echoes of a sync's last uploads arrive as it ends, and those
 *    alone still held one webhook in twenty 8 s. The entity gets its sync all the
 *    same (its outcome is the webhook's), in the lane of the work that caused it.
 *
 * test/unit/fair-lanes.test.ts has a case for each rule.
 */
import { LANE_PRIORITY, LANES, type Lane } from './lanes.js';

/** Turns a waiting lane lets lanes ahead of it take before its own: one turn in four is its. */
export const PATIENCE = 3;

/** How long after a watcher sync a webhook about its entity is taken for its echo (rule 9). */
export const ECHO_MS = 15_000;

/** The part of a pool of sync slots each of its lanes is sure of (rule 7). */
export const SLOT_SHARE = 1 / 4;

export type LaneCounts = Readonly<Record<Lane, number>>;

export interface TurnView {
  /** Requests waiting, per lane. */
  readonly waiting: LaneCounts;
  /** Per lane, the turns lanes ahead of it took in a row while it waited (`afterTurn`). */
  readonly passed: LaneCounts;
}

export type Turn =
  | { readonly kind: 'start'; readonly lane: Lane; readonly rule: 2 | 3 }
  | { readonly kind: 'wait'; readonly rule: 5 };

/** The lane whose request takes the turn the governor gives, or none: nothing waits. */
export function nextTurn(view: TurnView): Turn {
  const waiting = LANES.filter((lane) => view.waiting[lane] > 0); // rule 1; highest first
  const owed = waiting.find((lane) => view.passed[lane] >= PATIENCE); // rule 2
  if (owed) return { kind: 'start', lane: owed, rule: 2 };
  const byOrder = waiting[0]; // rules 3, 4
  if (byOrder) return { kind: 'start', lane: byOrder, rule: 3 };
  return { kind: 'wait', rule: 5 };
}

/**
 * The passed-over counts after `lane` took a turn: each lane behind it that waited was passed
 * over once more; `lane` itself starts again from 0, and so does a lane with nothing waiting.
 * `waiting` is as it was when the turn was given.
 */
export function afterTurn(passed: LaneCounts, waiting: LaneCounts, lane: Lane): LaneCounts {
  const next = { ...passed };
  for (const other of LANES) {
    if (other === lane || waiting[other] === 0) next[other] = 0;
    else if (LANE_PRIORITY[other] < LANE_PRIORITY[lane]) next[other]++;
  }
  return next;
}

/**
 * The lane a request's sync takes (rule 9); `running`, `waiting`: the entity's, if any;
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

export interface SlotView {
  /** Slots of the pool (the lanes below share it). */
  readonly slots: number;
  /** Syncs running, per lane of the pool. */
  readonly running: Readonly<Partial<Record<Lane, number>>>;
  /** Syncs that could start now, per lane of the pool. */
  readonly waiting: Readonly<Partial<Record<Lane, number>>>;
}

/** The lane whose sync takes the next slot of the pool, or null: none may start now. */
export function nextSlot(view: SlotView): { readonly lane: Lane; readonly rule: 7 | 8 } | null {
  const lanes = LANES.filter((lane) => lane in view.running || lane in view.waiting);
  const running = (lane: Lane) => view.running[lane] ?? 0;
  const used = lanes.reduce((n, lane) => n + running(lane), 0);
  if (used >= view.slots) return null; // rule 6
  // Rule 7: what each lane may hold, the others' shares kept.
  const share = Math.floor(view.slots * SLOT_SHARE);
  const most = view.slots - share * (lanes.length - 1);
  let heldBack = false;
  for (const lane of lanes) {
    if ((view.waiting[lane] ?? 0) === 0) continue; // rule 6
    if (running(lane) >= most) {
      heldBack = true;
      continue;
    }
    return { lane, rule: heldBack ? 7 : 8 };
  }
  return null;
}
