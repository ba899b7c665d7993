/**
 * Which lane's request goes next. Pure: the request queue keeps the facts and asks this
 * module. The lanes keep their order (pushes, webhooks, watcher, polling), but
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
 * The work scheduler's slots and a request's lane follow rules of their own, in one table with
 * what the scheduler starts next: domain/work-pick.ts.
 *
 * test/unit/fair-lanes.test.ts has a case for each rule.
 */
import { LANE_PRIORITY, LANES, type Lane } from './lanes.js';

/** Turns a waiting lane lets lanes ahead of it take before its own: one turn in four is its. */
export const PATIENCE = 3;

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
