/**
 * The per-access-token rate limit: at most `perSecond` requests in any one-second window
 * (a sliding log of the last second), then 429 with `Retry-After` in whole seconds.
 */

export class RateLimiter {
  private readonly recent = new Map<string, number[]>();

  constructor(public perSecond: number) {}

  /** Seconds to wait, or 0 when the request may pass (and is then counted). */
  check(token: string, nowMs: number): number {
    if (!(this.perSecond > 0) || !Number.isFinite(this.perSecond)) return 0;
    const since = nowMs - 1000;
    const times = (this.recent.get(token) ?? []).filter((t) => t > since);
    this.recent.set(token, times);
    if (times.length >= this.perSecond) {
      return Math.max(1, Math.ceil((times[0]! - since) / 1000));
    }
    times.push(nowMs);
    return 0;
  }
}
