/** Requests per second over the last ten seconds, for the status page. */
const WINDOW_MS = 10_000;

export class RateMeter {
  #times: number[] = [];

  tick(now = Date.now()): void {
    this.#times.push(now);
    if (this.#times.length > 10_000) this.#trim(now);
  }

  perSecond(now = Date.now()): number {
    this.#trim(now);
    return this.#times.length / (WINDOW_MS / 1000);
  }

  #trim(now: number): void {
    const since = now - WINDOW_MS;
    const first = this.#times.findIndex((t) => t > since);
    this.#times = first === -1 ? [] : this.#times.slice(first);
  }
}
