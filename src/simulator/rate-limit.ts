/**
 * The per-access-token rate limit: at most `perSecond` requests, then 429 with `Retry-After` in
 * whole seconds. The service does not say how it counts, so the simulator counts in the ways a
 * gateway commonly does, each a mode, and a request passes only if every mode in use allows it:
 * - `sliding`: any one-second span, a log of the last second's requests;
 * - `calendar`: each calendar second of the server's clock, a count that starts again on the
 *   second;
 * - `bucket`: a token bucket of `burst` tokens, refilled at `perSecond`: after a quiet spell
 *   `burst` requests may come at once, then one per 1/perSecond.
 * A calendar second lets through what a sliding one refuses (ten requests just before the second
 * and ten just after it), never the reverse: ten requests within one calendar second are within
 * one sliding second too. A bucket with a small burst refuses what both let through (two
 * requests in one instant after a quiet second). By default both seconds count (DEFAULT_MODES),
 * as before there were modes. Only requests let through are counted.
 *
 * `arrivalJitterMs` delays each request by a random time, up to it, before it is counted
 * (api-server.ts), as the network does: requests sent evenly arrive unevenly.
 */
import { seededRandom } from './random.js';

export type RateMode = 'sliding' | 'calendar' | 'bucket';

export const RATE_MODES: readonly RateMode[] = ['sliding', 'calendar', 'bucket'];

/** The modes of a simulator not told otherwise: a sliding and a calendar second. */
export const DEFAULT_MODES: readonly RateMode[] = ['sliding', 'calendar'];

/** The bucket's size when not given: two requests at once, no more. */
export const DEFAULT_BURST = 2;

export function isRateMode(text: string): text is RateMode {
  return (RATE_MODES as readonly string[]).includes(text);
}

interface TokenCount {
  /** When the requests let through in the last second arrived (the sliding log). */
  recent: number[];
  /** The calendar second counted, and the requests let through in it. */
  second: number;
  inSecond: number;
  /** The bucket's tokens at `filledAt`. */
  tokens: number;
  filledAt: number;
}

export class RateLimiter {
  private readonly counts = new Map<string, TokenCount>();
  /** The arrival jitter's draws: the same from run to run. */
  private readonly random = seededRandom(35);
  /** The most a request's arrival is delayed by before it is counted, in ms. */
  public arrivalJitterMs = 0;

  constructor(
    public perSecond: number,
    public modes: readonly RateMode[] = DEFAULT_MODES,
    public burst: number = DEFAULT_BURST,
  ) {}

  /** How long the network holds this request before the gateway sees it, in ms. */
  arrivalDelayMs(): number {
    return this.arrivalJitterMs > 0 ? Math.floor(this.random() * (this.arrivalJitterMs + 1)) : 0;
  }

  /** Seconds to wait, or 0 when the request may pass (and is then counted). */
  check(token: string, nowMs: number): number {
    if (!(this.perSecond > 0) || !Number.isFinite(this.perSecond)) return 0;
    const since = nowMs - 1000;
    const second = Math.floor(nowMs / 1000);
    const count = this.counts.get(token) ?? {
      recent: [],
      second,
      inSecond: 0,
      tokens: this.burst,
      filledAt: nowMs,
    };
    this.counts.set(token, count);
    count.recent = count.recent.filter((t) => t > since);
    if (count.second !== second) {
      count.second = second;
      count.inSecond = 0;
    }
    const elapsed = Math.max(0, nowMs - count.filledAt);
    count.tokens = Math.min(this.burst, count.tokens + (elapsed * this.perSecond) / 1000);
    count.filledAt = Math.max(count.filledAt, nowMs);
    let wait = 0;
    if (this.modes.includes('sliding') && count.recent.length >= this.perSecond) {
      wait = Math.max(wait, Math.ceil((count.recent[0]! - since) / 1000));
    }
    if (this.modes.includes('calendar') && count.inSecond >= this.perSecond) {
      wait = Math.max(wait, Math.ceil(((second + 1) * 1000 - nowMs) / 1000));
    }
    if (this.modes.includes('bucket') && count.tokens < 1) {
      wait = Math.max(wait, Math.ceil((1 - count.tokens) / this.perSecond));
    }
    if (wait > 0) return Math.max(1, wait);
    count.recent.push(nowMs);
    count.inSecond++;
    count.tokens = Math.max(0, count.tokens - 1);
    return 0;
  }
}
