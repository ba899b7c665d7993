/**
 * A long synchronous walk's turns on the event loop: work that takes the loop for a
 * whole pass over a firm's entity folders (a second or more) gives it back every SLICE_MS, so
 * a webhook's answer, a status page request or a local change's timer waits SLICE_MS at most
 * behind it, not the whole pass. Yielding after every item instead costs a turn of the loop per
 * folder (tens of thousands a pass) for nothing: most take microseconds.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** How long a walk keeps the event loop before it gives a turn (a 50 ms p99 lag is the goal). */
export const SLICE_MS = 10;

export class TimeSlice {
  #since = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  /** Gives the event loop a turn when this walk has held it for a slice; otherwise nothing. */
  async checkpoint(): Promise<void> {
    if (performance.now() - this.#since < this.sliceMs) return;
    await yieldToLoop();
    this.#since = performance.now();
  }
}
