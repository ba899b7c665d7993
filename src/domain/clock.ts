/**
 * What time it is, and a wait on that time. The code that keeps a rule about time (a removed
 * folder's delete waits its hold, housekeeping runs daily, `--once` waits for files to settle)
 * reads and waits on the clock it is handed, so a test moves the time on instead of sleeping.
 * docsync itself runs on the system clock (`systemClock` in commands/terminal.ts).
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /**
   * Calls `fire` once `ms` have passed on this clock. Like `setTimeout`, the wait keeps the
   * process alive until it fires or is cancelled. Returns what cancels it (a no-op once fired).
   */
  setTimer(fire: () => void, ms: number): () => void;
}
