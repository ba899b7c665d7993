/**
 * The deletes the rails let through lately, per side (issue 16). The daemon syncs one entity
 * at a time, so "too many deletes in one cycle" became "too many within the window": a bad
 * listing or an unmounted folder spread over many entities' syncs still trips the rail once
 * the window's count or share is over the limit. The window is the coverage period: the time
 * a poll round takes to see every entity, so a round is judged as one cycle was.
 *
 * Kept in memory: a restart starts an empty window, and its catch-up round is judged afresh.
 */
export interface WindowCounts {
  readonly local: number;
  readonly remote: number;
}

export class DeleteWindow {
  #entries: { readonly at: number; readonly local: number; readonly remote: number }[] = [];

  constructor(private readonly windowMs: () => number) {}

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
}
