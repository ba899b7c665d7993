/**
 * The daemon's judgement of deletes over time. The daemon syncs one entity at a time, so "too
 * many deletes in one cycle" became "too many within the window": a bad listing or an
 * unmounted folder spread over many entities' syncs still trips the rail once the window's count
 * or share is over the limit. The window is the coverage period: the time a poll round takes to
 * see every entity, so a round is judged as one cycle was.
 *
 * Two more things: a document folder removed from the store waits `holdMs`
 * before its delete counts (domain/delete-hold.ts), and once a delete rail trips on a side,
 * every delete on that side waits for a person for a window from then, so a burst does not
 * pass in slices after the rail held its first part.
 *
 * Kept in memory: a restart starts an empty window, and its catch-up round is judged afresh
 * (the deletes held for a person, and those in their hold, are in the state, and stay so).
 */
import type { SideCounts } from '../domain/check-safety.js';

export type WindowCounts = SideCounts;

type Side = keyof SideCounts;

export class DeleteWindow {
  #entries: { readonly at: number; readonly local: number; readonly remote: number }[] = [];
  readonly #trippedAt = new Map<Side, number>();

  /**
   * @param windowMs the window's length, asked each time (it follows the firm's size)
   * @param holdMs `safety.deleteHoldSeconds` in ms: how long a removed folder waits
   */
  constructor(
    private readonly windowMs: () => number,
    readonly holdMs = 0,
  ) {}

  counts(now: number): WindowCounts {
    const since = now - this.windowMs();
    this.#entries = this.#entries.filter((e) => e.at > since);
    return this.#entries.reduce(
      (sum, e) => ({ local: sum.local + e.local, remote: sum.remote + e.remote }),
      {
        local: 0,
        remote: 0,
      },
    );
  }

  record(now: number, deletes: WindowCounts): void {
    if (deletes.local + deletes.remote > 0) this.#entries.push({ at: now, ...deletes });
  }

  /** A delete rail held deletes on `side` now. */
  trip(now: number, side: Side): void {
    this.#trippedAt.set(side, now);
  }

  /** Per side, the end of the window since its rail last held deletes, while it lasts. */
  holdingUntil(now: number): Partial<Record<Side, number>> {
    const until: Partial<Record<Side, number>> = {};
    for (const [side, at] of this.#trippedAt) {
      const end = at + this.windowMs();
      if (end > now) until[side] = end;
      else this.#trippedAt.delete(side);
    }
    return until;
  }

  /** Until when a rail that trips now holds every further delete. */
  windowEnd(now: number): number {
    return now + this.windowMs();
  }
}
