/**
 * The entities, one page at a time: a search box, filters and a sort as a plain GET form (it
 * works without script), the page's rows, and links to the pages around it. The server does the
 * paging (state/entity-listing.ts), so 5,000 entities cost the browser 50 rows.
 */
import type { EntityFilter, EntityPage, EntitySort } from '../state/entity-listing.js';
import type { StatusPageQuery } from '../state/status-page-data.js';
import { formatAge, type Html, html, postButton, table, timeOf } from './html.js';
import { pageHref } from './page-query.js';

export interface EntitiesInput {
  readonly page: EntityPage;
  readonly query: StatusPageQuery;
  readonly now: number;
  readonly token: string | null;
}

const SORTS: readonly (readonly [EntitySort, string])[] = [
  ['errors', 'errors first'],
  ['lag', 'stalest first'],
  ['name', 'name'],
];

const FILTERS: readonly (readonly [EntityFilter, string])[] = [
  ['all', 'all'],
  ['errors', 'with errors'],
  ['never-synced', 'never synced'],
];

export function entitiesSection(input: EntitiesInput): Html {
  const { page, query } = input;
  const e = query.entities;
  const first = (e.page - 1) * e.pageSize;
  const rows = page.rows.map((r) => [
    r.owner.kind,
    html`<span class="name">${r.name}</span><br><small class="none">${r.owner.id}</small>`,
    r.folder ?? html`<span class="none">no folder yet</span>`,
    timeOf(r.lastSuccessAt),
    r.lastSuccessAt === null ? 'never' : formatAge(input.now - r.lastSuccessAt),
    r.itemsInError,
    r.lastError,
    input.token === null
      ? null
      : postButton(
          '/actions/sync',
          { kind: r.owner.kind, id: r.owner.id },
          'Sync now',
          input.token,
        ),
  ]);
  const range =
    page.total === 0
      ? 'No company or trust yet: the first sync reads them from the service.'
      : page.matched === 0
        ? `No entity matches (${page.total} in all).`
        : page.rows.length === 0
          ? `No entity on this page: ${page.matched} match, on the pages before.`
          : `Showing ${first + 1}–${first + page.rows.length} of ${page.matched}${
              page.matched === page.total ? '' : ` matching (${page.total} in all)`
            }.`;
  return html`<section id="entities"><h2>Entities (${page.total})</h2>
${searchForm(query)}
<p id="entity-range">${range}</p>
${table(['Kind', 'Name', 'Folder', 'Last sync', 'Lag', 'Items in error', 'Last error', ''], rows)}
${pager(input)}</section>`;
}

function searchForm(query: StatusPageQuery): Html {
  const e = query.entities;
  const options = <T extends string>(all: readonly (readonly [T, string])[], current: T) =>
    all.map(
      ([value, label]) =>
        html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`,
    );
  const kinds = options<'' | 'company' | 'trust'>(
    [
      ['', 'companies and trusts'],
      ['company', 'companies'],
      ['trust', 'trusts'],
    ],
    e.kind ?? '',
  );
  return html`<form method="get" action="/" id="entity-search" role="search">
<label>Search <input type="search" name="q" value="${e.search}" placeholder="name, id, number or folder"></label>
<label>Show <select name="kind">${kinds}</select></label>
<select name="show" aria-label="Filter">${options(FILTERS, e.show)}</select>
<label>Sort <select name="sort">${options(SORTS, e.sort)}</select></label>
<button type="submit">Show</button></form>`;
}

function pager({ page, query }: EntitiesInput): Html {
  const e = query.entities;
  const last = Math.max(1, Math.ceil(page.matched / e.pageSize));
  const link = (to: number, label: string, rel: string) =>
    to < 1 || to > last || to === e.page
      ? html`<span class="none">${label}</span>`
      : html`<a href="${pageHref(query, { page: to })}" rel="${rel}">${label}</a>`;
  return html`<nav class="pager" aria-label="Pages of entities">${[
    link(1, '« First', 'first'),
    link(e.page - 1, '‹ Previous', 'prev'),
    html`<span>Page ${e.page} of ${last}</span>`,
    link(e.page + 1, 'Next ›', 'next'),
    link(last, 'Last »', 'last'),
  ]}</nav>`;
}
