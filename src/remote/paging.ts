/**
 * Lists as async iterators over offset/limit pages (api.md: both required, limit at most 500).
 * Paging stops on an empty page or once `total` is reached; a page shorter than asked is not
 * taken as the end while `total` says there is more, because a service may cap pages itself.
 */

import type { RouteName } from './routes.js';
import type { RequestSpec, ServiceHttp } from './service-http.js';
import type { ListKey } from './shapes.js';

export const PAGE_LIMIT = 500;

export async function* paged(
  http: ServiceHttp,
  name: RouteName,
  spec: RequestSpec,
  /** api.md's key of the list; where the items really are is read by `http.shapes`. */
  key: ListKey,
): AsyncGenerator<unknown> {
  const label = http.label(name);
  for (let offset = 0; ; ) {
    const body = await http.request(name, {
      ...spec,
      query: { ...spec.query, offset, limit: PAGE_LIMIT },
    });
    const { items, total } = http.shapes.list(body, label, key);
    yield* items;
    offset += items.length;
    const done =
      items.length === 0 || (total === null ? items.length < PAGE_LIMIT : offset >= total);
    if (done) return;
  }
}
