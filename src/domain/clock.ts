/**
 * What time it is, and timers on that time. The code that keeps a rule about time reads and
 * waits on the clock it is handed: the request queue (the rate's window, polling's pace, the
 * stop's grace), the client's retries, the sweep of the unlodged list, a removed folder's delete
 * hold, the daily housekeeping, `--once` waiting for files to settle. docsync runs on the real clock (`REAL_CLOCK`); a test
 * hands a virtual one and moves it on instead of sleeping, so the rule holds however busy the
 * machine is.
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`, on this clock. */
  now(): number;
  /**
   * Calls `fire` in `ms` and returns what cancels it. `holdsProcess: false` for a timer that
   * must not keep the process alive by itself.
   */
  after(ms: number, fire: () => void, holdsProcess?: boolean): () => void;
}

/**
 * Resolves in `ms` on `clock`; rejects with `refused()` if `signal` aborts before then.
 * `holdsProcess: false` for a wait that must not keep the process alive by itself.
 */
export function waitOn(
  clock: Clock,
  ms: number,
  signal: AbortSignal,
  refused: () => unknown,
  holdsProcess = true,
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
    const cancel = clock.after(
      ms,
      () => {
        signal.removeEventListener('abort', abort);
        resolve();
      },
      holdsProcess,
    );
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** The real clock: the machine's time and Node's timers. */
export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  after: nodeTimer,
};

/**
 * The machine's time as it passes, not as it is set: a pace kept by it (the sweep of the
 * unlodged list) is not held up when the wall clock is set back, nor bursts when it is set on.
 */
export const MONOTONIC_CLOCK: Clock = {
  now: () => performance.now(),
  after: nodeTimer,
};

function nodeTimer(ms: number, fire: () => void, holdsProcess = true): () => void {
  const timer = setTimeout(fire, ms);
  if (!holdsProcess) timer.unref();
  return () => clearTimeout(timer);
}
