/**
 * The status page's address is its state: search, filters, sort, page and how far back the
 * feed reads are query parameters, so paging happens on the server, a view can be bookmarked or
 * sent to a colleague, and the page's refresh keeps it. A value the page does not know falls
 * back to its default, as a link from an older docsync may carry one.
 */
import type { OwnerKind } from '../domain/types.js';
import {
  ENTITY_FILTERS,
  ENTITY_SORTS,
  type EntityFilter,
  type EntitySort,
} from '../state/entity-listing.js';
import type { StatusPageQuery } from '../state/status-page-data.js';

const ENTITIES_PER_PAGE = 50;
const MAX_SEARCH = 200;

/**
 * `?show=trusts` and `?show=companies` read as the kind they name: a hand-typed
 * `?show=trusts` would show every entity otherwise, since `show` filters by errors and `kind` by kind).
 */
const KIND_SHOWN: Readonly<Record<string, OwnerKind>> = {
  trusts: 'trust',
  trust: 'trust',
  companies: 'company',
  company: 'company',
};

export function parsePageQuery(params: URLSearchParams): StatusPageQuery {
  const kind = params.get('kind') ?? KIND_SHOWN[params.get('show') ?? ''] ?? null;
  const page = Number.parseInt(params.get('page') ?? '', 10);
  const before = Number.parseInt(params.get('before') ?? '', 10);
  return {
    entities: {
      search: (params.get('q') ?? '').slice(0, MAX_SEARCH),
      kind: kind === 'company' || kind === 'trust' ? (kind satisfies OwnerKind) : null,
      show: oneOf(ENTITY_FILTERS, params.get('show'), 'all'),
      sort: oneOf(ENTITY_SORTS, params.get('sort'), 'errors'),
      page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
      pageSize: ENTITIES_PER_PAGE,
    },
    activityBefore: Number.isSafeInteger(before) && before > 0 ? before : undefined,
  };
}

function oneOf<T extends string>(allowed: readonly T[], value: string | null, fallback: T): T {
  return allowed.find((a) => a === value) ?? fallback;
}

export interface PageChange {
  readonly page?: number;
  readonly sort?: EntitySort;
  readonly show?: EntityFilter;
  readonly activityBefore?: number | undefined;
}

/** The address of this view with `change` applied; defaults are left out to keep it short. */
export function pageHref(query: StatusPageQuery, change: PageChange = {}): string {
  const e = query.entities;
  const params = new URLSearchParams();
  if (e.search) params.set('q', e.search);
  if (e.kind) params.set('kind', e.kind);
  const show = change.show ?? e.show;
  if (show !== 'all') params.set('show', show);
  const sort = change.sort ?? e.sort;
  if (sort !== 'errors') params.set('sort', sort);
  const page = change.page ?? e.page;
  if (page !== 1) params.set('page', String(page));
  const before = 'activityBefore' in change ? change.activityBefore : query.activityBefore;
  if (before !== undefined) params.set('before', String(before));
  const text = params.toString();
  return text ? `/?${text}` : '/';
}
