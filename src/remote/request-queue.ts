/**
 * The one queue every request to the service goes through. Three things decide when a request
 * starts:
 * - the rate (request-pacing.ts): at most the window's cap in any window, counted when requests
 *   go out, and spaced evenly while more wait than the window has room for. The service counts
 *   per token, so a burst at a window's edge would earn a 429, and a 429 pauses the whole queue
 *   for its Retry-After: every request would hit it;
 * - the connections: at most `concurrency` requests in flight;
 * - the lanes (domain/fair-lanes.ts): each request waits in its lane's line (request-lane.ts),
 *   the lanes take turns in their order, pushes first, polling last, but a lane passed over
 *   three times in a row takes the fourth turn, so a burst of 2,000 pushes leaves a webhook a
 *   turn in four and the round goes on beside it. Polling also keeps its pace (spaced over the
 *   window, headroom for the others while they are active: request-pacing.ts).
 *
 * A request is counted in the window from its turn, and counted again when it goes out: between
 * the two it reads its token and, for an upload, opens its file, and a request that went out
 * late beside those whose turns came after it would crowd a window the service sees. So the
 * task calls `sending` just before it sends: a request no longer on time waits there until the
 * window allows it, and no turn is given meanwhile (those waiting there go first). And it says
 * when the request really went out (`WentOut`, as it gets its connection): a stall of the event
 * loop between the two (a burst of new files to read) would send it later than it was counted,
 * closer to the next second's requests than the window allows; counted from then, the next ones
 * keep their distance from it.
 *
 * `stop` is Ctrl-C during `--once`: at the service's rate the queue can hold half a
 * minute of requests, and finishing them would make a person wait. From the stop nothing waiting
 * starts (each is refused with RunStoppedError), and what is in flight gets a short grace, then
 * is cut through the signal each task is given.
 */
import { setMaxListeners } from 'node:events';
import { type Clock, waitOn } from '../domain/clock.js';
import { RunStoppedError } from '../domain/errors.js';
import { afterTurn, type LaneCounts, nextTurn } from '../domain/fair-lanes.js';
import { LANES, type Lane } from '../domain/lanes.js';
import { currentLane } from './request-lane.js';
import {
  nextPollDue,
  nextTurnAt,
  pollReadyAt,
  type RateWindowSize,
  rateWindow,
  windowFreeAt,
} from './request-pacing.js';

export interface RequestQueueOptions {
  readonly requestsPerSecond: number;
  readonly concurrency: number;
  /** The time the queue keeps the rate, the pace and the grace by (REAL_CLOCK in the client). */
  readonly clock: Clock;
}

export interface LaneStats {
  waiting: number;
  started: number;
  waitedMs: number;
  lastWaitedMs: number;
}

/**
 * A request's work once it has its turn: `cut` aborts when the run stops (past the grace);
 * `sending` is called just before the request goes out, and resolves when the rate allows it.
 */
export type QueuedTask<T> = (cut: AbortSignal, sending: () => Promise<WentOut>) => Promise<T>;

/** Called as the request really goes out: the window counts it from then, if that is later. */
export type WentOut = () => void;

interface Waiter {
  readonly queuedAt: number;
  readonly start: (sent: SentMark) => void;
  readonly refuse: (error: unknown) => void;
}

/** When a request went out (its turn, until it says it is sending). */
interface SentMark {
  at: number;
}

const NO_LANES: LaneCounts = { push: 0, webhook: 0, watcher: 0, poll: 0 };

/** Requests waiting in the lanes without a pace of their own (polling keeps one). */
function unpacedCount(waiting: LaneCounts): number {
  return waiting.push + waiting.webhook + waiting.watcher;
}

export class RequestQueue {
  readonly #clock: Clock;
  readonly #window: RateWindowSize;
  readonly #concurrency: number;
  readonly #lines = Object.fromEntries(LANES.map((lane) => [lane, []])) as unknown as Record<
    Lane,
    Waiter[]
  >;
  #passed: LaneCounts = NO_LANES;
  #inFlight = 0;
  /** Requests that went out (or took their turn) within the last window. */
  #sent: SentMark[] = [];
  /** Requests held just before going out, until the window allows them. */
  #holding = 0;
  #lastUrgentAt = Number.NEGATIVE_INFINITY;
  /** The earliest the next poll may start by its spacing. */
  #pollDueAt = Number.NEGATIVE_INFINITY;
  /** Cancels the wake-up of `#pump` set for the next turn. */
  #cancelWake: (() => void) | undefined;
  /** Cancels the end of a pause (`pauseFor`). */
  #cancelResume: (() => void) | undefined;
  #resumeAt = 0;
  readonly #lanes = Object.fromEntries(
    LANES.map((lane) => [lane, { waiting: 0, started: 0, waitedMs: 0, lastWaitedMs: 0 }]),
  ) as Record<Lane, LaneStats>;
  /** Aborted by `stop`: nothing starts after it. */
  readonly #stopping = new AbortController();
  /** Aborted the grace after `stop`: what is still in flight is cut. */
  readonly #cut = new AbortController();

  constructor(options: RequestQueueOptions) {
    // Every request in flight listens on `cut`, every wait on `stopping`: many, by design.
    setMaxListeners(0, this.#stopping.signal, this.#cut.signal);
    const { interval, intervalCap } = rateWindow(options.requestsPerSecond);
    this.#window = { interval, cap: intervalCap };
    this.#concurrency = options.concurrency;
    this.#clock = options.clock;
  }

  /**
   * Runs `task` when the rate, the connections and its lane's turn allow. The task is given the
   * signal that cuts it when the run stops (`stop`); a request still waiting then is refused.
   */
  async run<T>(task: QueuedTask<T>): Promise<T> {
    this.#refuseIfStopping();
    const lane = currentLane();
    const stats = this.#lanes[lane];
    const queuedAt = this.#clock.now();
    if (lane !== 'poll') this.#lastUrgentAt = queuedAt;
    stats.waiting++;
    const mark = await new Promise<SentMark>((start, refuse) => {
      this.#lines[lane].push({ queuedAt, start, refuse });
      this.#pump();
    });
    try {
      return await task(this.#cut.signal, () => this.#sending(mark));
    } finally {
      this.#inFlight--;
      this.#pump();
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
    this.#cancelWake?.();
    for (const lane of LANES) {
      for (const waiter of this.#lines[lane].splice(0)) {
        this.#lanes[lane].waiting--;
        waiter.refuse(refused());
      }
    }
    const cut = () => this.#cut.abort(new RunStoppedError('cut: docsync is stopping', true));
    if (graceMs <= 0) cut();
    else this.#clock.after(graceMs, cut, false);
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

  /** Gives turns while the rate, the connections and the lanes allow. */
  #pump(): void {
    this.#cancelWake?.();
    this.#cancelWake = undefined;
    while (
      !this.#stopping.signal.aborted &&
      this.#resumeAt === 0 &&
      this.#holding === 0 &&
      this.#inFlight < this.#concurrency
    ) {
      const waiting = this.#waitingCounts();
      if (LANES.every((lane) => waiting[lane] === 0)) return;
      const now = this.#clock.now();
      const sent = this.#sentTimes(now);
      const turnAt = nextTurnAt(sent, now, this.#window, unpacedCount(waiting));
      if (turnAt > now) {
        this.#wakeAt(turnAt, now);
        return;
      }
      const turn = nextTurn({
        now,
        waiting,
        passed: this.#passed,
        pollReadyAt: pollReadyAt({
          now,
          sent,
          window: this.#window,
          pollDueAt: this.#pollDueAt,
          lastUrgentAt: this.#lastUrgentAt,
        }),
      });
      if (turn.kind === 'wait') {
        if (turn.untilMs !== null) this.#wakeAt(turn.untilMs, now);
        return;
      }
      this.#passed = afterTurn(this.#passed, waiting, turn.lane);
      if (turn.lane === 'poll') this.#pollDueAt = nextPollDue(this.#pollDueAt, now, this.#window);
      this.#startNext(turn.lane, now);
    }
  }

  #startNext(lane: Lane, now: number): void {
    const waiter = this.#lines[lane].shift()!;
    const stats = this.#lanes[lane];
    stats.waiting--;
    stats.started++;
    stats.waitedMs += now - waiter.queuedAt;
    stats.lastWaitedMs = now - waiter.queuedAt;
    const mark = { at: now };
    if (this.#window.interval > 0) this.#sent.push(mark);
    this.#inFlight++;
    waiter.start(mark);
  }

  /**
   * The request goes out now: counted in the window at this time. One that has waited since its
   * turn (a token, a file to open) and would now crowd the window waits until it does not.
   */
  async #sending(mark: SentMark): Promise<WentOut> {
    const wentOut = () => {
      mark.at = Math.max(mark.at, this.#clock.now());
    };
    if (this.#window.interval === 0) return wentOut;
    const index = this.#sent.indexOf(mark);
    if (index >= 0) this.#sent.splice(index, 1);
    let now = this.#clock.now();
    let freeAt = windowFreeAt(this.#sentTimes(now), now, this.#window);
    if (freeAt > now) {
      this.#holding++;
      try {
        while (freeAt > now) {
          await waitOn(
            this.#clock,
            freeAt - now,
            this.#stopping.signal,
            () => new RunStoppedError('not sent: docsync is stopping', false),
          );
          now = this.#clock.now();
          freeAt = windowFreeAt(this.#sentTimes(now), now, this.#window);
        }
      } finally {
        this.#holding--;
        queueMicrotask(() => this.#pump());
      }
    }
    mark.at = now;
    this.#sent.push(mark);
    return wentOut;
  }

  /** When requests went out within the last window (older ones are forgotten). */
  #sentTimes(now: number): number[] {
    this.#sent = this.#sent.filter((m) => now - m.at < this.#window.interval);
    return this.#sent.map((m) => m.at);
  }

  #waitingCounts(): LaneCounts {
    const counts = { ...NO_LANES };
    for (const lane of LANES) counts[lane] = this.#lines[lane].length;
    return counts;
  }

  #wakeAt(at: number, now: number): void {
    // Not unref'd: requests wait on it, and a stopping daemon waits for them.
    this.#cancelWake = this.#clock.after(Math.max(1, at - now), () => this.#pump());
  }

  /** Per lane: requests waiting now, and requests started with the time they waited in all. */
  laneStats(): Readonly<Record<Lane, LaneStats>> {
    return structuredClone(this.#lanes);
  }

  /** Holds every queued request until `ms` from now (extends, never shortens, a pause). */
  pauseFor(ms: number): void {
    const until = this.#clock.now() + ms;
    if (until <= this.#resumeAt) return;
    this.#resumeAt = until;
    this.#cancelResume?.();
    this.#cancelResume = this.#clock.after(
      ms,
      () => {
        this.#resumeAt = 0;
        this.#pump();
      },
      false,
    );
  }

  /** Requests waiting plus requests in flight. */
  get depth(): number {
    return LANES.reduce((n, lane) => n + this.#lines[lane].length, 0) + this.#inFlight;
  }

  /**
   * Drops what has not started, as the process closes: those requests are never answered (their
   * callers are being abandoned with it); in-flight requests finish.
   */
  clear(): void {
    this.#cancelWake?.();
    this.#cancelWake = undefined;
    for (const lane of LANES) {
      this.#lanes[lane].waiting -= this.#lines[lane].length;
      this.#lines[lane].length = 0;
    }
  }
}
