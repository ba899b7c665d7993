/**
 * Request counters, so benchmarks and tests can see what a client really sent: by
 * `METHOD template status` (e.g. `GET /companies/{ownerId}/documents 200`) and by access token.
 */

export interface CountersSnapshot {
  readonly byRoute: Record<string, number>;
  readonly byToken: Record<string, number>;
  readonly total: number;
}

export class RequestCounters {
  private byRoute = new Map<string, number>();
  private byToken = new Map<string, number>();
  private total = 0;

  count(method: string, template: string, status: number, token: string | null): void {
    const key = `${method} ${template} ${status}`;
    this.byRoute.set(key, (this.byRoute.get(key) ?? 0) + 1);
    if (token !== null) this.byToken.set(token, (this.byToken.get(token) ?? 0) + 1);
    this.total += 1;
  }

  snapshot(): CountersSnapshot {
    return {
      byRoute: Object.fromEntries(this.byRoute),
      byToken: Object.fromEntries(this.byToken),
      total: this.total,
    };
  }

  reset(): void {
    this.byRoute = new Map();
    this.byToken = new Map();
    this.total = 0;
  }
}
