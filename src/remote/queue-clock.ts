/**
 * The real clock (domain/clock.ts): the machine's time and Node's timers. The client's request
 * queue keeps the rate, the pace and the grace by it, and every command the time rules of the
 * engine and the daemon (commands/terminal.ts); a test of those rules hands a virtual one.
 */
import type { Clock } from '../domain/clock.js';

export const REAL_CLOCK: Clock = {
  now: () => Date.now(),
  after(ms, fire, holdsProcess = true) {
    const timer = setTimeout(fire, ms);
    if (!holdsProcess) timer.unref();
    return () => clearTimeout(timer);
  },
};
