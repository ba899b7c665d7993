/**
 * When the next request may go out, at the service's rate. Pure: the request queue
 * keeps the times its requests went out and asks these functions.
 *
 * The service counts requests per token, in a sliding second or a calendar second (it does not
 * say which). Ours is the stricter of the two: at most `cap` requests in any `interval`, a window
 * a little longer than the rate's second (`rateWindow`), which no calendar second can see more
 * of either. What counts is when a request goes out, not when it takes its turn: between the
 * two a request reads its token and its file, and a late one sent beside those that took their
 * turns after it crowds a window the service sees (request-queue.ts sends each at its time).
 */

export interface RateWindowSize {
  /** The window's length in ms; 0: no limit. */
  readonly interval: number;
  /** Requests per window. */
  readonly cap: number;
}

/**
 * Requests arrive at the service a little bunched compared with when they left (the network
 * does not keep our spacing), so the window is stretched by this much to keep a sliding-window
 * limit of the same rate from ever seeing one request too many.
 */
const ARRIVAL_JITTER_MS = 40;

/** Whole requests per window: 2.5/s becomes 2 per 800 ms (+ the jitter allowance). */
export function rateWindow(requestsPerSecond: number): { interval: number; intervalCap: number } {
  if (!Number.isFinite(requestsPerSecond)) {
    return { interval: 0, intervalCap: Number.POSITIVE_INFINITY };
  }
  const intervalCap = Math.max(1, Math.floor(requestsPerSecond));
  const interval = Math.round((1000 * intervalCap) / requestsPerSecond) + ARRIVAL_JITTER_MS;
  return { interval, intervalCap };
}

/**
 * The earliest time from `now` at which the window holds fewer than `cap - keep` of `sent`, so
 * one more may go out (`keep` slots left free besides). `sent`: when requests went out, any order.
 */
export function windowFreeAt(
  sent: readonly number[],
  now: number,
  window: RateWindowSize,
  keep = 0,
): number {
  if (window.interval === 0) return now;
  const inWindow = sent.filter((t) => now - t < window.interval).sort((a, b) => a - b);
  const allowed = window.cap - keep;
  if (inWindow.length < allowed) return now;
  // Free once all but `allowed - 1` of them have left the window.
  return inWindow[inWindow.length - allowed]! + window.interval;
}

/**
 * When the next request may take its turn: within the window, and, while more wait than the
 * window has room for, a slot's share of it (interval / cap) after the last one once it is half
 * full. A lane that keeps the queue full is so spaced evenly, never sent as a burst that fills
 * the window and then leaves it shut for the rest of the second: that made a webhook among
 * 2,000 pushes wait for the next burst at each of its requests, and bunched requests are what a
 * sliding second on the service sees crowded first when the network delays one of them.
 *
 * `waiting`: requests waiting in the lanes that do not keep a pace of their own (all but
 * polling, which pollReadyAt spaces). When they fit in the window they go at once: a webhook's
 * sync, one request after another, beside a round that keeps the window nearly full, was spaced
 * a slot apart at each request for nothing, and the round alone lost the time its timers fire
 * late to the spacing counted from the last request (docs/benchmarks.md).
 */
export function nextTurnAt(
  sent: readonly number[],
  now: number,
  window: RateWindowSize,
  waiting: number,
): number {
  const free = windowFreeAt(sent, now, window);
  if (window.interval === 0) return free;
  const inWindow = sent.filter((t) => now - t < window.interval);
  if (inWindow.length < Math.ceil(window.cap / 2)) return free;
  if (inWindow.length + waiting <= window.cap) return free;
  return Math.max(free, Math.max(...inWindow) + window.interval / window.cap);
}

/** Window slots polling leaves free while the other lanes were active lately. */
export const HEADROOM = 2;
/** How long after other lanes' work the headroom is kept. */
export const HEADROOM_MS = 10_000;

export interface PollPace {
  readonly now: number;
  readonly sent: readonly number[];
  readonly window: RateWindowSize;
  /** When the next poll is due by the spacing (`nextPollDue`). */
  readonly pollDueAt: number;
  /** When another lane last had a request (−Infinity: never). */
  readonly lastUrgentAt: number;
}

/**
 * When polling may start a request by its pace. Polls are spaced evenly over the window, never
 * sent as a burst that fills it: a window polling has filled makes every other lane's request
 * wait for a slot, one after another (a webhook's sync took a second during a round). And
 * for HEADROOM_MS after other lanes were active, polls leave HEADROOM of the window's slots
 * free (a quarter of them at a low rate), so a webhook's few requests start at once.
 */
export function pollReadyAt(pace: PollPace): number {
  const { now, window } = pace;
  if (window.interval === 0) return now;
  const urgentLately = now - pace.lastUrgentAt < HEADROOM_MS;
  const headroom = urgentLately ? Math.min(HEADROOM, Math.floor(window.cap / 4)) : 0;
  return Math.max(pace.pollDueAt, windowFreeAt(pace.sent, now, window, headroom));
}

/**
 * The next poll is due one slot's share of the window after this one, counted from when this
 * one was due, not from now: a timer fires a millisecond or two late, and ten late timers a
 * window would cost polling a percent of the rate. After a pause it restarts from now, with
 * one slot in hand.
 */
export function nextPollDue(pollDueAt: number, now: number, window: RateWindowSize): number {
  if (window.interval === 0) return now;
  const slot = window.interval / window.cap;
  return Math.max(pollDueAt, now - slot) + slot;
}
