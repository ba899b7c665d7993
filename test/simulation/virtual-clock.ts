/**
 * The seed's clock: `Date` and the timers (setTimeout, setInterval) are fake while a seed runs,
 * so cron, the watcher's settle waits, hot polls, the webhook retries and the instance lock's
 * heartbeat all fire only when the harness fires them, one at a time, at the same virtual
 * instants on every replay. `setImmediate`, `nextTick` and real I/O stay real: the daemon's
 * requests and file writes run as they do in production.
 *
 * @sinonjs/fake-timers fakes `Date` and the timers together and consistently (an interval's
 * next run, `Date.now()` inside a callback), and shows when the next timer is due, which the
 * harness needs to fire timers one by one up to a moment rather than all at once.
 */
import { type Clock, withGlobal } from '@sinonjs/fake-timers';

/** Where every seed's virtual time starts (a Monday morning, UTC). */
export const EPOCH = Date.UTC(2030, 0, 7, 9, 0, 0);

/**
 * The clock installed now. A seed a test runner gave up on (its timeout) still holds it; the next
 * seed takes the timers back, so one slow seed fails alone instead of every seed after it.
 */
let installed: VirtualClock | null = null;

export class VirtualClock {
  readonly #clock: Clock;

  constructor(epoch = EPOCH) {
    installed?.uninstall();
    this.#clock = withGlobal(globalThis).install({
      now: epoch,
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
      loopLimit: 100_000,
    });
    installed = this;
  }

  now(): number {
    return this.#clock.now;
  }

  /** When the next timer is due; null when none is set. */
  nextDue(): number | null {
    let next: number | null = null;
    for (const timer of this.#clock.timers?.values() ?? []) {
      const at = timer.callAt ?? Number.POSITIVE_INFINITY;
      if (next === null || at < next) next = at;
    }
    return next;
  }

  /** Fires the next timer (the clock moves to its moment); its callback runs now. */
  fireNext(): void {
    this.#clock.next();
  }

  /** Moves the clock on with no timer due meanwhile (the caller fired those first). */
  moveTo(at: number): void {
    if (at > this.#clock.now) this.#clock.tick(at - this.#clock.now);
  }

  /**
   * Time passes with the timers keeping their remaining waits (hours between two rounds, the
   * pause before a restart): backoffs and expiries run out, nothing fires on the way.
   */
  pass(ms: number): void {
    this.#clock.setSystemTime(this.#clock.now + ms);
  }

  /** Drops every timer (a crashed process takes its timers with it); the time stays. */
  dropTimers(): void {
    const now = this.#clock.now;
    this.#clock.reset();
    this.#clock.setSystemTime(now);
  }

  uninstall(): void {
    if (installed !== this) return;
    installed = null;
    this.#clock.uninstall();
  }
}
