/**
 * Request counters, so benchmarks and tests can see what a client really sent: by
 * `METHOD template status` (e.g. `GET /companies/{ownerId}/documents 200`), by access token, and
 * how many companies and trusts had their document list read (how far a client's round got,
 * whatever the client reports of itself).
 */

/** An owner's document list: `/companies/{ownerId}/documents` or the trusts' one. */
const OWNER_LISTING = /^\/(companies|trusts)\/\{ownerId\}\/documents$/;

export interface CountersSnapshot {
  readonly byRoute: Record<string, number>;
  readonly byToken: Record<string, number>;
  readonly total: number;
  /** Companies and trusts whose document list was answered 200 at least once. */
  readonly listedOwners: number;
  /** When the first and the last of them were answered (ms since the epoch); null before one. */
  readonly firstAt: number | null;
  readonly lastAt: number | null;
}

export class RequestCounters {
  private byRoute = new Map<string, number>();
  private byToken = new Map<string, number>();
  private total = 0;
  private listed = new Set<string>();
  private firstAt: number | null = null;
  private lastAt: number | null = null;

  count(
    method: string,
    template: string,
    status: number,
    token: string | null,
    params: Readonly<Record<string, string>> = {},
  ): void {
    const key = `${method} ${template} ${status}`;
    const listing = method === 'GET' && status === 200 ? OWNER_LISTING.exec(template) : null;
    if (listing && params.ownerId !== undefined) this.listed.add(`${listing[1]}/${params.ownerId}`);
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
      listedOwners: this.listed.size,
      firstAt: this.firstAt,
      lastAt: this.lastAt,
    };
  }

  reset(): void {
    this.byRoute = new Map();
    this.byToken = new Map();
    this.total = 0;
    this.listed = new Set();
    this.firstAt = null;
    this.lastAt = null;
  }
}
