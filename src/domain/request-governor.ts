/**
 * When the next request to the service may leave, and at what rate: the one governor of every
 * request docsync sends. Pure: the request queue (remote/request-queue.ts) keeps the state, reads
 * its clock, and asks these functions.
 *
 * The service does not say how it counts its limit: a sliding second by arrival, calendar
 * seconds, a token bucket with some burst. Requests that leave evenly spaced, a little slower
 * than the rate, stay within every one of them, however the network shifts their arrival a
 * little; and a limit lower than `queue.requestsPerSecond` is found from the 429s it answers.
 *
 * 1. Spacing: a request leaves no sooner than `spacingMs(rate)` after the last one went out:
 *    never two in one instant, and a backlog goes evenly spaced at the rate. A burst, however
 *    short, is what a bucket with a small burst or a sliding second refuses first.
 * 2. Margin: the spacing is a second and ARRIVAL_MARGIN_MS per `rate` requests, not a second: the
 *    rate's requests then span more than a second even when the network delays the first of
 *    them by up to the margin and not the last, so no one-second window sees one too many.
 * 3. Counted when it goes out: a request given its departure counts as leaving now until it
 *    says its bytes went out (its connection made: a new one takes a handshake), and the next
 *    leaves a spacing after that, not after the turn it was given. One that takes longer than
 *    OUT_WAIT_MS is taken to have gone out then, so a slow connection does not hold every
 *    other request; if it goes out later still, the next leaves a spacing after it does. One
 *    that never says it went out (an error before it left) is counted from when it was to go.
 *    A request that goes out within OUT_SLACK_MS of when it was due (a timer fires a millisecond
 *    late, the HTTP client takes a few to put it on the wire) keeps the cadence of the due
 *    times: counted from when it went out, ten late timers a second would cost the rate a
 *    percent. The slack never adds up: any run of requests spans at least its spacings less one
 *    OUT_SLACK_MS, so it comes out of the margin once.
 * 4. A 429 lowers the rate to BETA of the rate the requests went out at (the lower of the
 *    governor's rate and the requests that went out in the last second: a ceiling far above the
 *    limit is not what was sent), and the rate climbs back along CUBIC's curve (cubic-rate.ts)
 *    to it and past it, up to the ceiling (`queue.requestsPerSecond`), never below MIN_RATE.
 * 5. A 429 for a request that went out before the last lowering, or within SETTLE_MS after it,
 *    lowers nothing: the service's window still held the requests sent at the old rate. It is
 *    counted all the same.
 * 6. A 429 delays only its own request (by its Retry-After, in the client's retries), not the
 *    others: the lowered rate is all the program slows by.
 * 7. Without a ceiling (an infinite rate: tests, an unlimited simulator) nothing is spaced.
 *
 * test/unit/request-governor.test.ts has a case for each rule, on a virtual clock and against
 * simulated gateways that count in each way.
 */
import { type Cubic, cubicAfterThrottle, cubicRate } from './cubic-rate.js';

/** The network's jitter the spacing allows for, per second's worth of requests (rule 2). */
export const ARRIVAL_MARGIN_MS = 50;

/** How late a request may go out after it was due and still keep the cadence (rule 3). */
export const OUT_SLACK_MS = 10;

/** The longest a request given its departure holds the next one before it goes out (rule 3). */
export const OUT_WAIT_MS = 1000;

/** How long after a lowering the service's window still holds the old rate's requests (rule 5). */
export const SETTLE_MS = 1000;

/** The lowest rate a 429 leaves (botocore's TokenBucket _MIN_RATE), requests per second. */
export const MIN_RATE = 0.5;

/** The span over which the rate requests went out at is counted (rule 4). */
const MEASURE_MS = 1000;

/**
 * The most departures kept for that count: a rate above it reads as this (a ceiling of hundreds
 * a second is a test's, and copying a longer list at each request would cost more than it says).
 */
const MEASURED_MOST = 256;

export interface GovernorState {
  /** `queue.requestsPerSecond`: the rate never goes above it; Infinity: no limit (rule 7). */
  readonly ceiling: number;
  /** The climb since the last lowering; null: never lowered, the rate is the ceiling. */
  readonly cubic: Cubic | null;
  /**
   * When the last request went out as the spacing counts it (rule 3: its due time when it went
   * out within OUT_SLACK_MS of it); −Infinity: none yet.
   */
  readonly lastOutAt: number;
  /** A request given its departure that has not said it went out (rule 3), and when it was due. */
  readonly pending: {
    readonly id: number;
    readonly since: number;
    readonly due: number;
  } | null;
  /** When requests went out within the last MEASURE_MS. */
  readonly recentOuts: readonly number[];
  /** 429 answers since the start. */
  readonly throttles: number;
}

export function newGovernor(ceiling: number): GovernorState {
  return {
    ceiling,
    cubic: null,
    lastOutAt: Number.NEGATIVE_INFINITY,
    pending: null,
    recentOuts: [],
    throttles: 0,
  };
}

/** The rate allowed at `now`, requests per second (rule 4). */
export function currentRate(state: GovernorState, now: number): number {
  if (state.cubic === null) return state.ceiling;
  const floor = Math.min(MIN_RATE, state.ceiling);
  return Math.min(state.ceiling, Math.max(floor, cubicRate(state.cubic, now)));
}

/** The time between two requests at `rate` (rules 1, 2); 0 without a limit (rule 7). */
export function spacingMs(rate: number): number {
  return Number.isFinite(rate) ? (1000 + ARRIVAL_MARGIN_MS) / rate : 0;
}

/** When a request due at `due` that went out at `at` counts as gone out (rule 3). */
function countedAt(due: number, at: number): number {
  return Math.max(due, at - OUT_SLACK_MS);
}

/** When the last request went out, a request still on its way counted as going out now (rule 3). */
function lastOut(state: GovernorState, now: number): number {
  const { pending } = state;
  if (pending === null) return state.lastOutAt;
  const goingOut = Math.min(now, pending.since + OUT_WAIT_MS);
  return Math.max(state.lastOutAt, countedAt(pending.due, goingOut));
}

/** The earliest time from `now` the next request may be given its departure. */
export function departureAt(state: GovernorState, now: number): number {
  const spacing = spacingMs(currentRate(state, now));
  if (spacing === 0) return now;
  return Math.max(now, lastOut(state, now) + spacing);
}

/**
 * Request `id` is given its departure at `now` (departureAt allowed it): it counts as going
 * out now until it says it went out. It was due when the spacing allowed, if that was at most
 * OUT_SLACK_MS ago (a timer that fired late), else now (after a quiet spell the cadence starts
 * again from now). A request still pending past OUT_WAIT_MS is taken to have gone out then.
 */
export function departing(state: GovernorState, id: number, now: number): GovernorState {
  const last = lastOut(state, now);
  const allowed = last + spacingMs(currentRate(state, now));
  const due = now - allowed <= OUT_SLACK_MS ? Math.min(now, allowed) : now;
  return { ...state, lastOutAt: last, pending: { id, since: now, due } };
}

/** When request `id`, pending, was due; null once another was given its departure. */
export function dueAt(state: GovernorState, id: number): number | null {
  return state.pending?.id === id ? state.pending.due : null;
}

/** Request `id` is pending: its departure holds, and it may go out at once. */
export function isPending(state: GovernorState, id: number): boolean {
  return state.pending?.id === id;
}

/**
 * Request `id`'s bytes went out at `at` (it was due at `due`, `dueAt` when it was given its
 * departure): the next leaves a spacing after it (rule 3).
 */
export function wentOut(state: GovernorState, id: number, at: number, due = at): GovernorState {
  return {
    ...state,
    lastOutAt: Math.max(state.lastOutAt, countedAt(due, at)),
    pending: isPending(state, id) ? null : state.pending,
    recentOuts: Number.isFinite(state.ceiling)
      ? [...state.recentOuts.filter((t) => at - t < MEASURE_MS).slice(1 - MEASURED_MOST), at]
      : state.recentOuts,
  };
}

/**
 * The service answered 429 at `now` to a request that went out at `outAt` (rules 4, 5): the rate
 * is lowered unless that request left before the last lowering or within SETTLE_MS of it.
 */
export function throttled(state: GovernorState, outAt: number, now: number): GovernorState {
  const counted = { ...state, throttles: state.throttles + 1 };
  if (!Number.isFinite(state.ceiling)) return counted;
  if (state.cubic !== null && outAt < state.cubic.at + SETTLE_MS) return counted;
  const sent = state.recentOuts.filter((t) => now - t < MEASURE_MS).length * (1000 / MEASURE_MS);
  const rate = Math.min(currentRate(state, now), Math.max(sent, MIN_RATE));
  return { ...counted, cubic: cubicAfterThrottle(rate, now) };
}

/** What the status page and /metrics show. */
export interface GovernorView {
  /** The rate allowed now, requests per second. */
  readonly rate: number;
  /** `queue.requestsPerSecond`. */
  readonly ceiling: number;
  /** 429 answers since the start. */
  readonly throttles: number;
}

export function governorView(state: GovernorState, now: number): GovernorView {
  return { rate: currentRate(state, now), ceiling: state.ceiling, throttles: state.throttles };
}
