/**
 * The per-access-token rate limit: at most `perSecond` requests, then 429 with `Retry-After` in
 * whole seconds. The service does not say how it counts, so the simulator knows the two ways a
 * service commonly does, and by default applies both (a request passes only if each allows it):
 * - `sliding`: any one-second span, a log of the last second's requests;
 * - `fixed`: each calendar second of the server's clock, a count that starts again on the second.
 * A fixed second lets through what a sliding one refuses (ten requests just before the second
 * and ten just after it), never the reverse: ten requests within one calendar second are within
 * one sliding second too. So a client that no sliding second finds over the rate passes a fixed
 * count as well; the fixed model alone is there to show what a service counting that way
 * would let through (test/simulator/rate-limit.test.ts). Only requests let through are counted.
 */

export type RateWindow = 'sliding' | 'fixed';

export const RATE_WINDOWS: readonly RateWindow[] = ['sliding', 'fixed'];

interface TokenCount {
  /** When the requests let through in the last second arrived (the sliding log). */
  recent: number[];
  /** The calendar second counted, and the requests let through in it. */
  second: number;
  inSecond: number;
}

export class RateLimiter {
  private readonly counts = new Map<string, TokenCount>();

  constructor(
    public perSecond: number,
    public windows: readonly RateWindow[] = RATE_WINDOWS,
  ) {}

  /** Seconds to wait, or 0 when the request may pass (and is then counted). */
  check(token: string, nowMs: number): number {
    if (!(this.perSecond > 0) || !Number.isFinite(this.perSecond)) return 0;
    const since = nowMs - 1000;
    const second = Math.floor(nowMs / 1000);
    const count = this.counts.get(token) ?? { recent: [], second, inSecond: 0 };
    this.counts.set(token, count);
    count.recent = count.recent.filter((t) => t > since);
    if (count.second !== second) {
      count.second = second;
      count.inSecond = 0;
    }
    let wait = 0;
    if (this.windows.includes('sliding') && count.recent.length >= this.perSecond) {
      wait = Math.max(wait, Math.ceil((count.recent[0]! - since) / 1000));
    }
    if (this.windows.includes('fixed') && count.inSecond >= this.perSecond) {
      wait = Math.max(wait, Math.ceil(((second + 1) * 1000 - nowMs) / 1000));
    }
    if (wait > 0) return Math.max(1, wait);
    count.recent.push(nowMs);
    count.inSecond++;
    return 0;
  }
}
