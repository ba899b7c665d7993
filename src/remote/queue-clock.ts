/**
 * The request queue's time: what time it is, and timers. The queue's rules are about seconds
 * (the rate's window, polling's pace, the stop's grace), so it reads time only through this: the
 * client runs it on the real clock, and a test of those rules hands it a virtual one whose time
 * moves only when the test moves it, so the rules hold to the millisecond however busy the
 * machine is.
 */
export interface QueueClock {
  now(): number;
  /**
   * Calls `fire` in `ms` and returns what cancels it. `holdsProcess: false` for a timer that
   * must not keep the process alive by itself.
   */
  after(ms: number, fire: () => void, holdsProcess?: boolean): () => void;
}

export const REAL_CLOCK: QueueClock = {
  now: () => Date.now(),
  after(ms, fire, holdsProcess = true) {
    const timer = setTimeout(fire, ms);
    if (!holdsProcess) timer.unref();
    return () => clearTimeout(timer);
  },
};

/** Resolves in `ms` on `clock`; rejects with `refused()` if `signal` aborts before then. */
export function waitOn(
  clock: QueueClock,
  ms: number,
  signal: AbortSignal,
  refused: () => unknown,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(refused());
      return;
    }
    const abort = () => {
      cancel();
      reject(refused());
    };
    const cancel = clock.after(ms, () => {
      signal.removeEventListener('abort', abort);
      resolve();
    });
    signal.addEventListener('abort', abort, { once: true });
  });
}
