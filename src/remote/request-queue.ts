/**
 * The one queue every request to the service goes through. A sliding window (p-queue `strict`)
 * keeps the rate under `requestsPerSecond` in any one-second span, not just on average, because
 * the service counts per token and a burst at a window edge would earn a 429. A 429 pauses the
 * whole queue for its Retry-After: the limit is per token, so every request would hit it.
 * Each request takes the priority of its lane (request-lane.ts): the queue is one, its order is
 * by lane, so polling uses only what the other lanes leave idle.
 *
 * Priority orders what waits, but a window that polling keeps full makes every urgent request
 * wait for a slot to free, one after another: a webhook's sync (list, details, link) took ~1 s
 * during a poll round against 50 ms idle (bench 9). So poll requests enter the queue only when
 * nothing else waits in it, and, while other lanes were active lately, only while the window
 * keeps HEADROOM slots free: what a webhook or a local change needs is then there at once.
 * With no urgent work for HEADROOM_MS, polling takes the whole rate, but spaced evenly over the
 * window, never in a burst: p-queue's window lets its 10 requests start at once and then holds
 * the 11th for the rest of the second, so the first webhook after a quiet spell waited ~0.9 s
 * for the window, and the first local change took 2 s to reach the service (bench 9). Spaced,
 * a slot frees every tenth of the window, and an urgent request waits at most that long.
 *
 * `stop` is Ctrl-C during `--once` (issue 27): at 10 requests a second the queue held half a
 * minute of requests, and finishing them made a person wait 34 s. From the stop nothing waiting
 * starts (each is refused with RunStoppedError), and what is in flight gets a short grace, then
 * is cut through the signal each task is given.
 */
import { setMaxListeners } from 'node:events';
import PQueue from 'p-queue';
import { RunStoppedError } from '../domain/errors.js';
import { LANE_PRIORITY, LANES, type Lane } from '../domain/lanes.js';
import { currentLane } from './request-lane.js';

export interface RequestQueueOptions {
  readonly requestsPerSecond: number;
  readonly concurrency: number;
}

export interface LaneStats {
  waiting: number;
  started: number;
  waitedMs: number;
  lastWaitedMs: number;
}

/** Window slots kept free for the other lanes while they are active. */
const HEADROOM = 2;
/** How long after urgent work the headroom is kept. */
const HEADROOM_MS = 10_000;

export class RequestQueue {
  readonly #queue: PQueue;
  readonly #window: { readonly interval: number; readonly cap: number };
  /** When requests started, within the last window. */
  #started: number[] = [];
  #lastUrgentAt = Number.NEGATIVE_INFINITY;
  /** Poll requests waiting to enter the queue, and those that entered but have not started. */
  readonly #pollGate: (() => void)[] = [];
  #pollEntered = 0;
  /** The earliest a poll request may start: one slot's share of the window after the last. */
  #pollDueAt = Number.NEGATIVE_INFINITY;
  #gateTimer: NodeJS.Timeout | undefined;
  readonly #lanes = Object.fromEntries(
    LANES.map((lane) => [lane, { waiting: 0, started: 0, waitedMs: 0, lastWaitedMs: 0 }]),
  ) as Record<Lane, LaneStats>;
  #resumeTimer: NodeJS.Timeout | undefined;
  #resumeAt = 0;
  /** Aborted by `stop`: nothing starts after it. */
  readonly #stopping = new AbortController();
  /** Aborted the grace after `stop`: what is still in flight is cut. */
  readonly #cut = new AbortController();
  /** What drops each request still waiting in the queue. */
  readonly #waiting = new Set<AbortController>();

  constructor(options: RequestQueueOptions) {
    // Every request in flight listens on `cut`, every wait on `stopping`: many, by design.
    setMaxListeners(0, this.#stopping.signal, this.#cut.signal);
    const { interval, intervalCap } = rateWindow(options.requestsPerSecond);
    this.#window = { interval, cap: intervalCap };
    this.#queue = new PQueue({
      concurrency: options.concurrency,
      interval,
      intervalCap,
      strict: interval > 0,
    });
  }

  /**
   * Runs `task` when the rate, the concurrency and its lane allow. The task is given the signal
   * that cuts it when the run stops (`stop`); a request still waiting then is refused.
   */
  async run<T>(task: (cut: AbortSignal) => Promise<T>): Promise<T> {
    this.#refuseIfStopping();
    const lane = currentLane();
    const stats = this.#lanes[lane];
    const queuedAt = Date.now();
    stats.waiting++;
    let started = false;
    const dropped = new AbortController();
    try {
      if (lane === 'poll') {
        await new Promise<void>((enter) => {
          this.#pollGate.push(enter);
          this.#openGate();
        });
        this.#refuseIfStopping();
      } else {
        this.#lastUrgentAt = queuedAt;
      }
      this.#waiting.add(dropped);
      return (await this.#queue.add(
        () => {
          started = true;
          this.#waiting.delete(dropped);
          const now = Date.now();
          if (lane === 'poll') {
            this.#pollEntered--;
            this.#spacePolls(now);
            queueMicrotask(() => this.#openGate()); // the next poll may wait its turn in the queue
          }
          if (this.#window.interval > 0) {
            this.#started.push(now);
            if (this.#started.length > 4 * this.#window.cap)
              this.#started.splice(0, this.#window.cap);
          }
          stats.waiting--;
          stats.started++;
          stats.waitedMs += now - queuedAt;
          stats.lastWaitedMs = now - queuedAt;
          return task(this.#cut.signal).finally(() => this.#openGate());
        },
        { priority: LANE_PRIORITY[lane], signal: dropped.signal },
      )) as T;
    } finally {
      this.#waiting.delete(dropped);
      if (!started) stats.waiting--;
    }
  }

  /**
   * The run stops (Ctrl-C, SIGTERM during `--once`): requests waiting are refused at once and no
   * new one starts; those in flight get `graceMs` to finish (a push that gets its answer is not
   * left in doubt), then are cut. Only a process about to end calls it: the queue stays stopped.
   */
  stop(graceMs: number): void {
    if (this.#stopping.signal.aborted) return;
    const refused = () => new RunStoppedError('not sent: docsync is stopping', false);
    this.#stopping.abort(refused());
    for (const dropped of this.#waiting) dropped.abort(refused());
    this.#waiting.clear();
    clearTimeout(this.#gateTimer);
    // Poll requests waiting at the gate find the queue stopping when they pass it.
    for (const enter of this.#pollGate.splice(0)) enter();
    const cut = () => this.#cut.abort(new RunStoppedError('cut: docsync is stopping', true));
    if (graceMs <= 0) cut();
    else setTimeout(cut, graceMs).unref();
  }

  /** Aborted once the run stops: waits (retries, downloads queued elsewhere) end with it. */
  get stopping(): AbortSignal {
    return this.#stopping.signal;
  }

  /** Aborted when what is still in flight is cut, the grace after `stop`. */
  get cut(): AbortSignal {
    return this.#cut.signal;
  }

  #refuseIfStopping(): void {
    if (this.#stopping.signal.aborted) throw this.#stopping.signal.reason;
  }

  /** Lets the next poll request into the queue, if nothing else waits and the window allows. */
  #openGate(): void {
    clearTimeout(this.#gateTimer);
    while (this.#pollGate.length > 0) {
      const now = Date.now();
      const urgentLately = now - this.#lastUrgentAt < HEADROOM_MS;
      // One poll waits in the queue at a time: its start, due by the spacing, lets the next in.
      // Beside other lanes, it waits behind whatever else waits.
      if (this.#pollEntered > 0 || (urgentLately && this.#queue.size > 0)) return;
      const { interval, cap } = this.#window;
      this.#started = this.#started.filter((t) => now - t < interval);
      // A low rate keeps less headroom: polling must still move at 2 requests a second.
      const headroom = Math.min(HEADROOM, Math.floor(cap / 4));
      if (urgentLately && interval > 0 && this.#started.length >= cap - headroom) {
        // Full but for the headroom: look again when the oldest start leaves the window.
        this.#lookAgainAt(this.#started[0]! + interval, now);
        return;
      }
      if (now < this.#pollDueAt) {
        this.#lookAgainAt(this.#pollDueAt, now);
        return;
      }
      this.#pollEntered++;
      this.#pollGate.shift()!();
    }
  }

  /**
   * The next poll is due one slot's share of the window after this one, counted from when this
   * one was due, not from now: a timer fires a millisecond or two late, and ten late timers a
   * window would cost polling a percent of the rate. After a pause it restarts from now, with
   * one slot in hand.
   */
  #spacePolls(now: number): void {
    const { interval, cap } = this.#window;
    if (interval === 0) return;
    const slot = interval / cap;
    this.#pollDueAt = Math.max(this.#pollDueAt, now - slot) + slot;
  }

  #lookAgainAt(at: number, now: number): void {
    // Not unref'd: requests wait on it, and a stopping daemon waits for them.
    this.#gateTimer = setTimeout(() => this.#openGate(), at - now);
  }

  /** Per lane: requests waiting now, and requests started with the time they waited in all. */
  laneStats(): Readonly<Record<Lane, LaneStats>> {
    return structuredClone(this.#lanes);
  }

  /** Holds every queued request until `ms` from now (extends, never shortens, a pause). */
  pauseFor(ms: number): void {
    const until = Date.now() + ms;
    if (until <= this.#resumeAt) return;
    this.#resumeAt = until;
    this.#queue.pause();
    clearTimeout(this.#resumeTimer);
    this.#resumeTimer = setTimeout(() => {
      this.#resumeAt = 0;
      this.#queue.start();
    }, ms);
    this.#resumeTimer.unref();
  }

  get paused(): boolean {
    return this.#queue.isPaused;
  }

  /** Requests waiting plus requests in flight. */
  get depth(): number {
    return this.#queue.size + this.#queue.pending;
  }

  onIdle(): Promise<void> {
    return this.#queue.onIdle();
  }

  /** Drops what has not started; in-flight requests finish. */
  clear(): void {
    this.#queue.clear();
  }
}

/**
 * Requests arrive at the service a little bunched compared with when they left (the network
 * does not keep our spacing), so the window is stretched by this much to keep a sliding-window
 * limit of the same rate from ever seeing one request too many.
 */
const ARRIVAL_JITTER_MS = 40;

/** p-queue wants whole tasks per interval: 2.5/s becomes 2 per 800 ms (+ jitter allowance). */
export function rateWindow(requestsPerSecond: number): { interval: number; intervalCap: number } {
  if (!Number.isFinite(requestsPerSecond)) {
    return { interval: 0, intervalCap: Number.POSITIVE_INFINITY };
  }
  const intervalCap = Math.max(1, Math.floor(requestsPerSecond));
  const interval = Math.round((1000 * intervalCap) / requestsPerSecond) + ARRIVAL_JITTER_MS;
  return { interval, intervalCap };
}
