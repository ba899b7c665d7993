/**
 * A virtual clock for a RequestQueue under test (src/domain/clock.ts): time moves only when
 * the test moves it, from one timer to the next, and everything a timer sets off runs before the
 * next one fires. A rule about seconds (the rate's window, polling's pace, the stop's grace) is
 * then checked to the millisecond in milliseconds, and a busy machine cannot make it late.
 *
 * Only the queue and the test's tasks see this time (through `after` and `sleep`): nothing global
 * is faked, so the test runner's own timers stay real.
 */
import { createClock } from '@sinonjs/fake-timers';
import type { Clock } from '../../src/domain/clock.js';

/** Where virtual time starts: far from 0, as Date.now() is. */
const START = 1_000_000;

export class VirtualQueueClock implements Clock {
  readonly #clock = createClock(START);

  now(): number {
    return this.#clock.now;
  }

  after(ms: number, fire: () => void): () => void {
    const id = this.#clock.setTimeout(fire, ms);
    return () => this.#clock.clearTimeout(id);
  }

  /** A task that takes `ms` of this clock's time (a request in flight, a file being read). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.#clock.setTimeout(() => resolve(), ms));
  }

  /** Moves time on by `ms`, firing the timers due on the way, each after the last has settled. */
  async advance(ms: number): Promise<void> {
    await settle();
    await this.#clock.tickAsync(ms);
    await settle();
  }

  /**
   * Moves time on, timer by timer, until `work` settles, and returns its outcome. Fails when
   * `work` still waits and no timer is set: nothing would ever move it.
   */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      await settle();
      if (settled) return work;
      if (this.#clock.countTimers() === 0) throw new Error('stuck: the work waits for no timer');
      await this.#clock.nextAsync();
    }
  }
}

/** Lets every promise that can settle now settle (one turn of the real event loop). */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
