/**
 * Request counters, so benchmarks and tests can see what a client really sent: by
 * `METHOD template status` (e.g. `GET /companies/{ownerId}/documents 200`) and by access token.
 */

export interface CountersSnapshot {
  readonly byRoute: Record<string, number>;
  readonly byToken: Record<string, number>;
  readonly total: number;
  /** When the first and the last of them were answered (ms since the epoch); null before one. */
  readonly firstAt: number | null;
  readonly lastAt: number | null;
}

export class RequestCounters {
  private byRoute = new Map<string, number>();
  private byToken = new Map<string, number>();
  private total = 0;
  private firstAt: number | null = null;
  private lastAt: number | null = null;

  count(method: string, template: string, status: number, token: string | null): void {
    const key = `${method} ${template} ${status}`;
    this.byRoute.set(key, (this.byRoute.get(key) ?? 0) + 1);
    if (token !== null) this.byToken.set(token, (this.byToken.get(token) ?? 0) + 1);
    this.total += 1;
    this.lastAt = Date.now();
    this.firstAt ??= this.lastAt;
  }

  snapshot(): CountersSnapshot {
    return {
      byRoute: Object.fromEntries(this.byRoute),
      byToken: Object.fromEntries(this.byToken),
      total: this.total,
      firstAt: this.firstAt,
      lastAt: this.lastAt,
    };
  }

  reset(): void {
    this.byRoute = new Map();
    this.byToken = new Map();
    this.total = 0;
    this.firstAt = null;
    this.lastAt = null;
  }
}
