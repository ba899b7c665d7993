/**
 * The one queue every request to the service goes through. A sliding window (p-queue `strict`)
 * keeps the rate under `requestsPerSecond` in any one-second span, not just on average, because
 * the service counts per token and a burst at a window edge would earn a 429. A 429 pauses the
 * whole queue for its Retry-After: the limit is per token, so every request would hit it.
 * Each request takes the priority of its lane (request-lane.ts): the queue is one, its order is
 * by lane, so polling uses only what the other lanes leave idle.
 */
import PQueue from 'p-queue';
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

export class RequestQueue {
  readonly #queue: PQueue;
  readonly #lanes = Object.fromEntries(
    LANES.map((lane) => [lane, { waiting: 0, started: 0, waitedMs: 0, lastWaitedMs: 0 }]),
  ) as Record<Lane, LaneStats>;
  #resumeTimer: NodeJS.Timeout | undefined;
  #resumeAt = 0;

  constructor(options: RequestQueueOptions) {
    const { interval, intervalCap } = rateWindow(options.requestsPerSecond);
    this.#queue = new PQueue({
      concurrency: options.concurrency,
      interval,
      intervalCap,
      strict: interval > 0,
    });
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    const lane = currentLane();
    const stats = this.#lanes[lane];
    const queuedAt = Date.now();
    stats.waiting++;
    return this.#queue.add(
      () => {
        stats.waiting--;
        stats.started++;
        stats.waitedMs += Date.now() - queuedAt;
        stats.lastWaitedMs = Date.now() - queuedAt;
        return task();
      },
      { priority: LANE_PRIORITY[lane] },
    ) as Promise<T>;
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
