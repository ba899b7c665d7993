/**
 * The service's clock relative to ours, from the `Date` header of its answers. daemon.md
 * compares change times "after correcting for the difference between the service's clock and
 * the local clock"; a median of recent samples keeps one slow answer from skewing it.
 */
const SAMPLES = 15;

export class ServerClock {
  readonly #offsets: number[] = [];

  /**
   * @param dateHeader the answer's `Date` (one-second resolution)
   * @param sentAtMs, receivedAtMs our clock around the request; its midpoint is when the server
   *   most likely stamped the answer
   */
  observe(dateHeader: string | undefined, sentAtMs: number, receivedAtMs: number): void {
    if (!dateHeader) return;
    const serverMs = Date.parse(dateHeader);
    if (Number.isNaN(serverMs)) return;
    // The header truncates to the second, so the server's true time is on average 500 ms later.
    this.#offsets.push(serverMs + 500 - (sentAtMs + receivedAtMs) / 2);
    if (this.#offsets.length > SAMPLES) this.#offsets.shift();
  }

  /** Whether any answer carried a usable `Date` header. */
  get observed(): boolean {
    return this.#offsets.length > 0;
  }

  /** Server time minus local time in ms; 0 until an answer has been seen. */
  get offsetMs(): number {
    if (this.#offsets.length === 0) return 0;
    const sorted = [...this.#offsets].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }
}
