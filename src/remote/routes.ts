/**
 * Every path of the API contract, in one table (api.md). `source` says where each path comes
 * from: `public` (the service's public docs), `seed` (the interface description) or `ours`
 * (decided by this project because neither shows it; the first suspects if a call fails). A
 * deployment that finds a path different on the real service corrects it in its configuration
 * (`service.routes`), checked here when the configuration loads; the client then calls the
 * table `routeTable` builds, never `ROUTES` directly.
 *
 * `{owner}` expands to `companies/{id}` or `trusts/{id}`.
 */
import type { OwnerRef } from '../domain/types.js';

export type RouteSource = 'public' | 'seed' | 'ours';
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  readonly source: RouteSource;
  /** The path comes from `service.routes`, not from this table. */
  readonly overridden: boolean;
}

const route = (method: HttpMethod, path: string, source: RouteSource): Route => ({
  method,
  path,
  source,
  overridden: false,
});

export const ROUTES = {
  authorize: route('GET', '/oauth/authorize', 'public'),
  token: route('POST', '/oauth/token', 'public'),

  listCompanies: route('GET', '/cas/companies', 'public'),
  companyDetails: route('GET', '/cas/companies/{companyId}', 'public'),
  companiesByLabel: route('GET', '/cas/labels/{labelId}/companies', 'public'),

  listTrusts: route('GET', '/cas/trusts', 'public'),
  trustDetails: route('GET', '/cas/trusts/{trustId}', 'public'),
  trustRelationships: route('GET', '/cas/trusts/{trustId}/relationships', 'public'),

  statusTypes: route('GET', '/cas/documents/statusTypes', 'ours'),

  listDocuments: route('GET', '/{owner}/documents', 'seed'),
  documentDetails: route('GET', '/{owner}/documents/{documentId}', 'public'),
  createDocument: route('POST', '/{owner}/documents', 'public'),
  deleteDocument: route('DELETE', '/{owner}/documents/{documentId}', 'ours'),
  assignStatus: route('POST', '/cas/{owner}/documents/{documentId}/statuses', 'public'),
  uploadAttachment: route('POST', '/{owner}/documents/{documentId}/attachments', 'ours'),
  attachmentLink: route(
    'GET',
    '/{owner}/documents/{documentId}/attachments/{attachmentId}/download',
    'ours',
  ),
  deleteAttachment: route(
    'DELETE',
    '/{owner}/documents/{documentId}/attachments/{attachmentId}',
    'ours',
  ),
  unlodgedOfCompany: route('GET', '/cas/companies/{companyId}/documents/unlodged', 'public'),
  unlodgedOfFirm: route('GET', '/cas/companies/documents/unlodged', 'public'),

  listContacts: route('GET', '/contacts', 'seed'),
  contact: route('GET', '/contacts/{contactId}', 'seed'),

  listUnitTransactions: route('GET', '/cas/trusts/{trustId}/unitTransactions', 'public'),
  createUnitTransaction: route('POST', '/cas/trusts/{trustId}/unitTransactions', 'public'),
  deleteUnitTransaction: route(
    'DELETE',
    '/cas/trusts/{trustId}/unitTransactions/{transactionId}',
    'ours',
  ),

  pensionSummary: route('GET', '/sf/funds/{fundId}/reports/pensionSummary', 'public'),
} as const satisfies Record<string, Route>;

export type RouteName = keyof typeof ROUTES;

/** The routes the client calls: the built-in table with the configuration's paths in it. */
export type RouteTable = Readonly<Record<RouteName, Route>>;

export const ROUTE_NAMES = Object.keys(ROUTES) as RouteName[];

export function isRouteName(name: string): name is RouteName {
  return Object.hasOwn(ROUTES, name);
}

/** `GET /cas/companies`: how a route is named in logs, metrics and error messages. */
export function routeLabel(route: Route): string {
  return `${route.method} ${route.path}`;
}

/** The `{name}` placeholders of a path template, in order. */
export function placeholdersOf(path: string): string[] {
  return [...path.matchAll(/\{(\w*)\}/g)].map((m) => m[1]!);
}

/**
 * What is wrong with `path` as the configured path of route `name`, as a config problem
 * ("expected …, got …"), or null. The path must name the same placeholders as the built-in
 * one: a missing `{documentId}` would call the same URL for every document, an unknown one
 * could never be filled.
 */
export function routeOverrideProblem(name: string, path: string): string | null {
  if (!isRouteName(name)) {
    return `expected a route name (${ROUTE_NAMES.join(', ')}), got "${name}"`;
  }
  if (!path.startsWith('/') || /[?#\s]/.test(path)) {
    return `expected a path starting with / (no query, no spaces), got ${JSON.stringify(path)}`;
  }
  const builtIn = ROUTES[name].path;
  const wanted = placeholdersOf(builtIn);
  const given = placeholdersOf(path);
  const missing = wanted.filter((p) => !given.includes(p));
  const unknown = given.filter((p) => !wanted.includes(p));
  if (missing.length === 0 && unknown.length === 0) return null;
  const what = [...missing.map((p) => `{${p}}`), ...unknown.map((p) => `no {${p}}`)].join(' and ');
  return `expected a path with ${what} (the built-in one is ${builtIn}), got ${JSON.stringify(path)}`;
}

/** The built-in table with `overrides` (checked by `routeOverrideProblem` at load) applied. */
export function routeTable(overrides: Readonly<Record<string, string>> = {}): RouteTable {
  const table = { ...ROUTES } as Record<RouteName, Route>;
  for (const [name, path] of Object.entries(overrides)) {
    const problem = routeOverrideProblem(name, path);
    if (problem) throw new Error(`service.routes.${name}: ${problem}`);
    table[name as RouteName] = { ...ROUTES[name as RouteName], path, overridden: true };
  }
  return table;
}

/** The path segment of an owner: `companies/{id}` or `trusts/{id}`. */
export function ownerSegment(owner: OwnerRef): string {
  return `${owner.kind === 'company' ? 'companies' : 'trusts'}/${encodeURIComponent(owner.id)}`;
}

/** Fills a route's placeholders; every value is URL-encoded, so no id can change the path. */
export function expandPath(
  path: string,
  params: Readonly<Record<string, string>>,
  owner?: OwnerRef,
): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    if (name === 'owner') {
      if (!owner) throw new Error(`route ${path} needs an owner`);
      return ownerSegment(owner);
    }
    const value = params[name];
    if (value === undefined) throw new Error(`route ${path} needs {${name}}`);
    return encodeURIComponent(value);
  });
}
