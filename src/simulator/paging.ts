/**
 * Paging of every list: `offset` and `limit` are both required and `limit` is at most 500
 * (api.md); the answer is `{"<items>": [...], offset, limit, total}`.
 */
import { badRequest } from './sim-error.js';

export const MAX_LIMIT = 500;

export interface Page {
  readonly offset: number;
  readonly limit: number;
}

export function parsePage(query: URLSearchParams): Page {
  const offset = parseCount(query, 'offset');
  const limit = parseCount(query, 'limit');
  if (limit > MAX_LIMIT) throw badRequest(`limit must be at most ${MAX_LIMIT}, got ${limit}`);
  if (limit < 1) throw badRequest('limit must be at least 1');
  return { offset, limit };
}

function parseCount(query: URLSearchParams, name: string): number {
  const text = query.get(name);
  if (text === null || text === '') throw badRequest(`${name} is required`);
  if (!/^\d+$/.test(text)) throw badRequest(`${name} must be a whole number, got "${text}"`);
  return Number(text);
}

/** Pages any iterable without copying more than the page (lists may hold 100,000 items). */
export function envelope<T, V>(
  key: string,
  items: Iterable<T>,
  page: Page,
  view: (item: T) => V,
): Record<string, unknown> {
  const out: V[] = [];
  let total = 0;
  for (const item of items) {
    if (total >= page.offset && out.length < page.limit) out.push(view(item));
    total += 1;
  }
  return { [key]: out, offset: page.offset, limit: page.limit, total };
}

export function parseBoolean(query: URLSearchParams, name: string): boolean {
  const text = query.get(name);
  if (text === null || text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw badRequest(`${name} must be true or false, got "${text}"`);
}
