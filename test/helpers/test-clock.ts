/**
 * A clock for tests of rules about time (a delete's hold, a backoff, the daily housekeeping, a
 * settle wait), handed to the code under test in place of the system clock. A rule's wait ends
 * when the test moves the clock past it, not when this machine gets there: the test asserts the
 * rule, not the machine's speed. What does not read this clock (requests, the watcher's own
 * timers, the request queue's pacing) keeps real time.
 *
 * By default it is the real time plus what the test moved it on, and a timer also fires by
 * itself if the real time reaches it first.
 * `standsStill`: no real time passes on it, only what the test moves on, so an edge can be
 * asserted to the millisecond (a sync 1 ms before a hold ends) however long the sync takes.
 * `autoAdvance`: every wait ends at once and moves the clock on by its length, for a run whose
 * only waits are on this clock (`--once` waiting for files to settle).
 */
import type { Clock } from '../../src/domain/clock.js';

interface Timer {
  readonly at: number;
  readonly fire: () => void;
  real?: NodeJS.Timeout;
}

export interface TestClockOptions {
  readonly autoAdvance?: boolean;
  readonly standsStill?: boolean;
}

export class TestClock implements Clock {
  #offset = 0;
  readonly #startedAt = Date.now();
  readonly #timers = new Set<Timer>();
  /** Every wait asked of the clock, in ms, in order. */
  readonly waits: number[] = [];

  constructor(private readonly options: TestClockOptions = {}) {}

  now(): number {
    return (this.options.standsStill ? this.#startedAt : Date.now()) + this.#offset;
  }

  after(ms: number, fire: () => void): () => void {
    this.waits.push(ms);
    if (this.options.autoAdvance) {
      this.#offset += Math.max(0, ms);
      let cancelled = false;
      setImmediate(() => {
        if (!cancelled) fire();
      });
      return () => {
        cancelled = true;
      };
    }
    const timer: Timer = { at: this.now() + Math.max(0, ms), fire };
    this.#timers.add(timer);
    this.#arm(timer);
    return () => {
      clearTimeout(timer.real);
      this.#timers.delete(timer);
    };
  }

  /** When the next timer is due on this clock; null when none is set. */
  nextAt(): number | null {
    const due = [...this.#timers].map((t) => t.at);
    return due.length === 0 ? null : Math.min(...due);
  }

  /** Moves the clock on by `ms`; the timers due by then fire now, in their order. */
  advance(ms: number): void {
    this.#offset += Math.max(0, ms);
    this.#fireDue();
    for (const timer of this.#timers) this.#arm(timer);
  }

  /** Moves the clock on to `at` (never back). */
  advanceTo(at: number): void {
    this.advance(at - this.now());
  }

  #arm(timer: Timer): void {
    clearTimeout(timer.real);
    if (this.options.standsStill) return;
    timer.real = setTimeout(() => this.#fireDue(), Math.max(0, timer.at - this.now()));
  }

  #fireDue(): void {
    const now = this.now();
    const due = [...this.#timers].filter((t) => t.at <= now).sort((a, b) => a.at - b.at);
    for (const timer of due) {
      clearTimeout(timer.real);
      this.#timers.delete(timer);
      timer.fire();
    }
  }
}
