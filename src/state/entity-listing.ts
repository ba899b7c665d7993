/**
 * The status page's list of entities, searched, filtered, sorted and paged in SQL: a firm of
 * 5,000 entities sends the browser one page of rows, never the whole list. Each entity comes
 * with its cursor's last sync and error and its count of items in error. The bare `reason`
 * beside `max(last_seen_at)` is SQLite's documented min/max rule: the newest problem's.
 */
import type { OwnerKind, OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';

export const ENTITY_SORTS = ['name', 'lag', 'errors'] as const;
export type EntitySort = (typeof ENTITY_SORTS)[number];

/** `errors`: with items in error or a failed last sync; `never-synced`: no good sync yet. */
export const ENTITY_FILTERS = ['all', 'errors', 'never-synced'] as const;
export type EntityFilter = (typeof ENTITY_FILTERS)[number];

export interface EntityQuery {
  /** Part of the name, id, company number or ABN, or folder; case-insensitive. Empty: all. */
  readonly search: string;
  readonly kind: OwnerKind | null;
  readonly show: EntityFilter;
  readonly sort: EntitySort;
  /** 1-based. */
  readonly page: number;
  readonly pageSize: number;
}

export interface EntityRow {
  readonly owner: OwnerRef;
  readonly name: string;
  readonly folder: string | null;
  readonly lastSuccessAt: number | null;
  /** The entity's last sync's error, else the newest of its items in error. */
  readonly lastError: string | null;
  readonly itemsInError: number;
}

/** The entity synced longest ago, or one never synced. */
export interface StalestEntity {
  readonly owner: OwnerRef;
  readonly name: string;
  readonly lastSuccessAt: number | null;
}

export interface EntityPage {
  /** Entities the state knows, whatever the query. */
  readonly total: number;
  /** Entities the search and filters match. */
  readonly matched: number;
  readonly rows: readonly EntityRow[];
}

interface Row {
  kind: OwnerKind;
  id: string;
  name: string;
  folder: string | null;
  last_success_at: number | null;
  last_error: string | null;
  items_in_error: number;
}

interface Params {
  kind: OwnerKind | null;
  like: string | null;
  show: EntityFilter;
}

const FROM = `
  FROM entities AS e
  LEFT JOIN cursors AS c ON c.owner_kind = e.kind AND c.owner_id = e.id
  LEFT JOIN (SELECT owner_kind, owner_id, count(*) AS n, reason, max(last_seen_at)
             FROM problems GROUP BY owner_kind, owner_id) AS p
    ON p.owner_kind = e.kind AND p.owner_id = e.id
  WHERE (@kind IS NULL OR e.kind = @kind)
    AND (@like IS NULL OR e.name LIKE @like ESCAPE '\\' OR e.id LIKE @like ESCAPE '\\'
         OR e.number LIKE @like ESCAPE '\\' OR e.folder LIKE @like ESCAPE '\\')
    AND (@show = 'all'
         OR (@show = 'errors' AND (p.n > 0 OR c.last_error IS NOT NULL))
         OR (@show = 'never-synced' AND c.last_success_at IS NULL))`;

/** Ties fall back to the name, then the id, so a page never shuffles between refreshes. */
const ORDER: Readonly<Record<EntitySort, string>> = {
  name: 'e.name COLLATE NOCASE, e.kind, e.id',
  // Stalest first: never synced, then the oldest last sync.
  lag: 'c.last_success_at IS NOT NULL, c.last_success_at, e.name COLLATE NOCASE, e.kind, e.id',
  errors: 'coalesce(p.n, 0) + (c.last_error IS NOT NULL) DESC, e.name COLLATE NOCASE, e.kind, e.id',
};

function prepareSorted(db: Database, sort: EntitySort) {
  return db.prepare<[Params & { limit: number; offset: number }], Row>(
    `SELECT e.kind, e.id, e.name, e.folder, c.last_success_at,
       coalesce(c.last_error, p.reason) AS last_error,
       coalesce(p.n, 0) AS items_in_error ${FROM}
     ORDER BY ${ORDER[sort]} LIMIT @limit OFFSET @offset`,
  );
}

export class EntityListing {
  readonly #pages: Readonly<Record<EntitySort, ReturnType<typeof prepareSorted>>>;
  readonly #matched;
  readonly #total;
  readonly #stalest;

  constructor(db: Database) {
    this.#pages = {
      name: prepareSorted(db, 'name'),
      lag: prepareSorted(db, 'lag'),
      errors: prepareSorted(db, 'errors'),
    };
    this.#matched = db.prepare<[Params], number>(`SELECT count(*) ${FROM}`).pluck();
    this.#total = db.prepare<[], number>('SELECT count(*) FROM entities').pluck();
    // As the `lag` sort orders them, without the items in error it need not say.
    this.#stalest = db.prepare<[], Pick<Row, 'kind' | 'id' | 'name' | 'last_success_at'>>(
      `SELECT e.kind, e.id, e.name, c.last_success_at
       FROM entities AS e LEFT JOIN cursors AS c ON c.owner_kind = e.kind AND c.owner_id = e.id
       ORDER BY ${ORDER.lag} LIMIT 1`,
    );
  }

  stalest(): StalestEntity | null {
    const row = this.#stalest.get();
    return row
      ? {
          owner: { kind: row.kind, id: row.id },
          name: row.name,
          lastSuccessAt: row.last_success_at,
        }
      : null;
  }

  page(query: EntityQuery): EntityPage {
    const search = query.search.trim();
    const params: Params = {
      kind: query.kind,
      like: search === '' ? null : `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      show: query.show,
    };
    const rows = this.#pages[query.sort].all({
      ...params,
      limit: query.pageSize,
      offset: (query.page - 1) * query.pageSize,
    });
    return {
      total: this.#total.get()!,
      matched: this.#matched.get(params)!,
      rows: rows.map((r) => ({
        owner: { kind: r.kind, id: r.id },
        name: r.name,
        folder: r.folder,
        lastSuccessAt: r.last_success_at,
        lastError: r.last_error,
        itemsInError: r.items_in_error,
      })),
    };
  }
}
