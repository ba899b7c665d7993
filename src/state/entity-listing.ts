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

type StalestRow = Pick<Row, 'kind' | 'id' | 'name' | 'last_success_at'>;

interface Params {
  kind: OwnerKind | null;
  like: string | null;
  show: EntityFilter;
}

/** The listing's joins and filters over the entities `source` names (as `e`). */
const fromEntities = (source: string) => `
  FROM ${source}
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

const FROM = fromEntities('entities AS e');

/** Ties fall back to the name, then the id, so a page never shuffles between refreshes. */
const ORDER: Readonly<Record<EntitySort, string>> = {
  name: 'e.name COLLATE NOCASE, e.kind, e.id',
  // Stalest first: never synced, then the oldest last sync.
  lag: 'c.last_success_at IS NOT NULL, c.last_success_at, e.name COLLATE NOCASE, e.kind, e.id',
  errors: 'coalesce(p.n, 0) + (c.last_error IS NOT NULL) DESC, e.name COLLATE NOCASE, e.kind, e.id',
};

const COLUMNS = `e.kind, e.id, e.name, e.folder, c.last_success_at,
  coalesce(c.last_error, p.reason) AS last_error, coalesce(p.n, 0) AS items_in_error`;

/** Entities with an item in error or a failed last sync: few, found from those tables. */
const ERRORED = `(SELECT owner_kind, owner_id FROM problems
                  UNION SELECT owner_kind, owner_id FROM cursors WHERE last_error IS NOT NULL)`;

function prepareSorted(db: Database, sort: 'name' | 'lag') {
  return db.prepare<[Params & { limit: number; offset: number }], Row>(
    `SELECT ${COLUMNS} ${FROM} ORDER BY ${ORDER[sort]} LIMIT @limit OFFSET @offset`,
  );
}

export class EntityListing {
  readonly #pages: Readonly<Record<'name' | 'lag', ReturnType<typeof prepareSorted>>>;
  readonly #errored;
  readonly #unerroredByName;
  readonly #matched;
  readonly #count;
  readonly #anyNeverSynced;
  readonly #neverSynced;
  readonly #oldestSynced;

  constructor(db: Database) {
    this.#pages = {
      name: prepareSorted(db, 'name'),
      lag: prepareSorted(db, 'lag'),
    };
    // The errors sort in two reads on indexes, rather than a sort of every entity: those in
    // error (few) in its order, then the others by name, which is how it orders them.
    const fromErrored = fromEntities(`${ERRORED} AS x
      JOIN entities AS e ON e.kind = x.owner_kind AND e.id = x.owner_id`);
    this.#errored = db.prepare<[Params], Row>(
      `SELECT ${COLUMNS} ${fromErrored} ORDER BY ${ORDER.errors}`,
    );
    this.#unerroredByName = db.prepare<[Params & { limit: number; offset: number }], Row>(
      `SELECT ${COLUMNS} ${FROM} AND p.n IS NULL AND c.last_error IS NULL
       ORDER BY ${ORDER.name} LIMIT @limit OFFSET @offset`,
    );
    this.#matched = db.prepare<[Params], number>(`SELECT count(*) ${FROM}`).pluck();
    this.#count = db
      .prepare<[{ kind: OwnerKind | null }], number>(
        'SELECT count(*) FROM entities WHERE @kind IS NULL OR kind = @kind',
      )
      .pluck();
    // Whether one was never synced, by a merge of two indexes: most of the time none was.
    this.#anyNeverSynced = db
      .prepare<[], number>(
        `SELECT 1 FROM (SELECT kind, id FROM entities
                        EXCEPT SELECT owner_kind, owner_id FROM cursors
                          WHERE last_success_at IS NOT NULL) LIMIT 1`,
      )
      .pluck();
    this.#neverSynced = db.prepare<[], Omit<StalestRow, 'last_success_at'>>(
      `SELECT e.kind, e.id, e.name FROM entities AS e
       WHERE NOT EXISTS (SELECT 1 FROM cursors AS c WHERE c.owner_kind = e.kind
                           AND c.owner_id = e.id AND c.last_success_at IS NOT NULL)
       ORDER BY e.name COLLATE NOCASE, e.kind, e.id LIMIT 1`,
    );
    this.#oldestSynced = db.prepare<[], StalestRow>(
      `SELECT e.kind, e.id, e.name, c.last_success_at
       FROM cursors AS c JOIN entities AS e ON e.kind = c.owner_kind AND e.id = c.owner_id
       WHERE c.last_success_at IS NOT NULL
       ORDER BY c.last_success_at, c.owner_kind, c.owner_id LIMIT 1`,
    );
  }

  /**
   * The stalest entity, in reads on indexes rather than a sort of every entity: one never synced
   * (the first by name), else the oldest last sync; of those synced at the same instant, equally
   * stale, the first by kind and id.
   */
  stalest(): StalestEntity | null {
    const never = this.#anyNeverSynced.get() ? this.#neverSynced.get() : undefined;
    const row = never ? { ...never, last_success_at: null } : this.#oldestSynced.get();
    return row
      ? {
          owner: { kind: row.kind, id: row.id },
          name: row.name,
          lastSuccessAt: row.last_success_at,
        }
      : null;
  }

  #errorsFirst(params: Params, window: { limit: number; offset: number }): Row[] {
    const errored = this.#errored.all(params);
    const shown = errored.slice(window.offset, window.offset + window.limit);
    if (shown.length === window.limit) return shown;
    const rest = this.#unerroredByName.all({
      ...params,
      limit: window.limit - shown.length,
      offset: Math.max(0, window.offset - errored.length),
    });
    return [...shown, ...rest];
  }

  page(query: EntityQuery): EntityPage {
    const search = query.search.trim();
    const params: Params = {
      kind: query.kind,
      like: search === '' ? null : `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      show: query.show,
    };
    const window = { limit: query.pageSize, offset: (query.page - 1) * query.pageSize };
    const rows =
      query.sort === 'errors'
        ? this.#errorsFirst(params, window)
        : this.#pages[query.sort].all({ ...params, ...window });
    return {
      total: this.#count.get({ kind: null })!,
      // Unfiltered, every entity matches: the count of every joined row would read them all.
      matched:
        params.like === null && params.show === 'all'
          ? this.#count.get({ kind: params.kind })!
          : this.#matched.get(params)!,
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
