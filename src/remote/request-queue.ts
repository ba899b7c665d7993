/**
 * The one queue every request to the service goes through. Three things decide when a request
 * starts:
 * - the governor (domain/request-governor.ts): requests leave evenly spaced at its rate, a
 *   request counted from when its bytes go out (the wire says so, api-wire.ts), and a 429 lowers
 *   the rate, which climbs back slowly to `queue.requestsPerSecond`. A 429 delays only its own
 *   request (its Retry-After, in the client's retries): the queue never pauses as a whole;
 * - the connections: at most `concurrency` requests in flight;
 * - the lanes (domain/fair-lanes.ts): each request waits in its lane's line (request-lane.ts),
 *   the lanes take turns in their order, pushes first, polling last, but a lane passed over
 *   three times in a row takes the fourth turn, so a burst of 2,000 pushes leaves a webhook a
 *   turn in four and the round goes on beside it.
 *
 * A request given its turn reads its token and, for an upload, opens its file, then calls
 * `sending` just before it goes out, and says when its bytes really went out (`wentOut`, once
 * its connection is made). Until then it holds the next turn, up to the governor's OUT_WAIT_MS;
 * one slower than that has lost its turn and waits at `sending` for another, ahead of every
 * lane (no turn is given meanwhile).
 *
 * `stop` is the daemon's SIGTERM or Ctrl-C during `--once`: at the service's rate the queue can
 * hold half a minute of requests, and finishing them would make a person wait. From the stop
 * nothing waiting starts (each is refused with RunStoppedError), a read in flight is cut at once,
 * and a write in flight gets a short grace, then is cut through the signal each task is given.
 */
import { setMaxListeners } from 'node:events';
import { type Clock, waitOn } from '../domain/clock.js';
import { RunStoppedError } from '../domain/errors.js';
import { afterTurn, type LaneCounts, nextTurn } from '../domain/fair-lanes.js';
import { LANES, type Lane } from '../domain/lanes.js';
import {
  departing,
  departureAt,
  dueAt,
  type GovernorState,
  type GovernorView,
  governorView,
  isPending,
  newGovernor,
  throttled,
  wentOut,
} from '../domain/request-governor.js';
import { currentLane } from './request-lane.js';

/**
 * How long a request in flight at a stop (the daemon's SIGTERM, Ctrl-C during `--once`) may take
 * to get its answer before it is cut: a push answered is not left in doubt, and the stop still
 * ends within two seconds, well inside systemd's patience and a person's at a terminal.
 */
export const STOP_GRACE_MS = 1_000;

export interface RequestQueueOptions {
  /** The ceiling of the governor's rate (`queue.requestsPerSecond`); Infinity: no limit. */
  readonly requestsPerSecond: number;
  readonly concurrency: number;
  /** The time the queue keeps the rate and the grace by (REAL_CLOCK in the client). */
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
 * `sending` is called just before the request goes out, and resolves when the governor allows
 * it (at once, unless the request took so long since its turn that it lost it).
 */
export type QueuedTask<T> = (cut: AbortSignal, sending: () => Promise<Departure>) => Promise<T>;

/** What a request tells the governor once it is on its way. */
export interface Departure {
  /**
   * Its bytes went out (its connection made): counted from now. A request that never says so
   * is counted from when it called `sending` (or, if it never did, from its turn).
   */
  readonly wentOut: () => void;
  /** The service answered it 429: the governor lowers the rate (request-governor.ts, rule 4). */
  readonly throttled: () => void;
}

interface Waiter {
  readonly queuedAt: number;
  readonly start: (ticket: Ticket) => void;
  readonly refuse: (error: unknown) => void;
}

/** One request's turn, from the governor's point of view. */
interface Ticket {
  readonly id: number;
  readonly turnAt: number;
  /** When the governor had it due (at most its turn, or its second turn if it lost the first). */
  due: number;
  /** When it called `sending`; null before. */
  sendingAt: number | null;
  /** When its bytes went out; null before. */
  outAt: number | null;
}

const NO_LANES: LaneCounts = { push: 0, webhook: 0, watcher: 0, poll: 0 };

export class RequestQueue {
  readonly #clock: Clock;
  readonly #concurrency: number;
  readonly #lines = Object.fromEntries(LANES.map((lane) => [lane, []])) as unknown as Record<
    Lane,
    Waiter[]
  >;
  #passed: LaneCounts = NO_LANES;
  #inFlight = 0;
  #governor: GovernorState;
  #nextId = 1;
  /** Requests that lost their turn, waiting at `sending` for another. */
  #holding = 0;
  /** Cancels the wake-up of `#pump` set for the next turn. */
  #cancelWake: (() => void) | undefined;
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
    this.#governor = newGovernor(options.requestsPerSecond);
    this.#concurrency = options.concurrency;
    this.#clock = options.clock;
  }

  /**
   * Runs `task` when the governor, the connections and its lane's turn allow. The task is given
   * the signal that cuts it when the run stops (`stop`); a request still waiting then is refused.
   */
  async run<T>(task: QueuedTask<T>): Promise<T> {
    this.#refuseIfStopping();
    const lane = currentLane();
    const stats = this.#lanes[lane];
    const queuedAt = this.#clock.now();
    stats.waiting++;
    const ticket = await new Promise<Ticket>((start, refuse) => {
      this.#lines[lane].push({ queuedAt, start, refuse });
      this.#pump();
    });
    try {
      return await task(this.#cut.signal, () => this.#sending(ticket));
    } finally {
      if (ticket.outAt === null) {
        // Never said it went out: counted from when it was to go (an error before it left
        // costs a spacing, which is safer than a burst when it did leave).
        const at = ticket.sendingAt ?? ticket.turnAt;
        this.#governor = wentOut(this.#governor, ticket.id, at, ticket.due);
      }
      this.#inFlight--;
      this.#pump();
    }
  }

  /**
   * The run stops (the daemon's SIGTERM, Ctrl-C during `--once`): requests waiting are refused at
   * once and no new one starts; `stopping` aborts, which cuts the reads in flight (service-http.ts);
   * the writes in flight get `graceMs` to finish (a push that gets its answer is not left in
   * doubt), then `cut` aborts. Only a process about to end calls it: the queue stays stopped.
   */
  stop(graceMs: number = STOP_GRACE_MS): void {
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

  /** The governor's rate now, its ceiling and the 429s so far (the status page, /metrics). */
  governor(): GovernorView {
    return governorView(this.#governor, this.#clock.now());
  }

  #refuseIfStopping(): void {
    if (this.#stopping.signal.aborted) throw this.#stopping.signal.reason;
  }

  /** Gives turns while the governor, the connections and the lanes allow. */
  #pump(): void {
    this.#cancelWake?.();
    this.#cancelWake = undefined;
    while (
      !this.#stopping.signal.aborted &&
      this.#holding === 0 &&
      this.#inFlight < this.#concurrency
    ) {
      const waiting = this.#waitingCounts();
      const turn = nextTurn({ waiting, passed: this.#passed });
      if (turn.kind === 'wait') return;
      const now = this.#clock.now();
      const at = departureAt(this.#governor, now);
      if (at > now) {
        this.#wakeAt(at, now);
        return;
      }
      this.#passed = afterTurn(this.#passed, waiting, turn.lane);
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
    const id = this.#nextId++;
    this.#governor = departing(this.#governor, id, now);
    const due = dueAt(this.#governor, id) ?? now;
    const ticket: Ticket = { id, turnAt: now, due, sendingAt: null, outAt: null };
    this.#inFlight++;
    waiter.start(ticket);
  }

  /**
   * The request goes out now. One that took so long since its turn that the governor gave the
   * next one meanwhile (past OUT_WAIT_MS) waits for a departure of its own, ahead of every turn.
   */
  async #sending(ticket: Ticket): Promise<Departure> {
    let now = this.#clock.now();
    if (!isPending(this.#governor, ticket.id)) {
      this.#holding++;
      try {
        for (let at = departureAt(this.#governor, now); at > now; ) {
          await waitOn(
            this.#clock,
            at - now,
            this.#stopping.signal,
            () => new RunStoppedError('not sent: docsync is stopping', false),
          );
          now = this.#clock.now();
          at = departureAt(this.#governor, now);
        }
        this.#governor = departing(this.#governor, ticket.id, now);
        ticket.due = dueAt(this.#governor, ticket.id) ?? now;
      } finally {
        this.#holding--;
        queueMicrotask(() => this.#pump());
      }
    }
    ticket.sendingAt = now;
    return {
      wentOut: () => {
        if (ticket.outAt !== null) return;
        ticket.outAt = this.#clock.now();
        this.#governor = wentOut(this.#governor, ticket.id, ticket.outAt, ticket.due);
        this.#pump();
      },
      throttled: () => {
        const outAt = ticket.outAt ?? ticket.sendingAt ?? ticket.turnAt;
        this.#governor = throttled(this.#governor, outAt, this.#clock.now());
      },
    };
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
