/**
 * Every path of the API contract, in one table (api.md). `source` says where each path comes
 * from: `public` (the service's public docs), `seed` (the interface description) or `ours`
 * (decided by this project because neither shows it; the first suspects if a call fails). A
 * deployment that finds a path different on the real service corrects it in its configuration
 * (`service.routes`), checked here when the configuration loads; the client then calls the
 * table `routeTable` builds, never `ROUTES` directly.
 *
 * `{owner}` expands to `companies/{id}` or `trusts/{id}`. The public pages put the two kinds'
 * documents under different prefixes (companies without `/cas`, trusts with it), so every route
 * with `{owner}` can also be set per owner kind (`service.routes.listDocuments.trust`), and the
 * prefix of the built-in ones is found by asking (document-prefixes.ts).
 */
import type { OwnerKind, OwnerRef } from '../domain/types.js';

export type RouteSource = 'public' | 'seed' | 'ours';
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  readonly source: RouteSource;
  /** The path comes from `service.routes`, not from this table. */
  readonly overridden: boolean;
  /** Paths set per owner kind (`service.routes.<name>.<kind>`), over `path` for that kind. */
  readonly byKind?: Readonly<Partial<Record<OwnerKind, string>>>;
}

/** A route as called for one owner kind: `{owner}` written out, e.g. `/cas/trusts/{trustId}/…`. */
export interface KindRoute extends Route {
  readonly kind: OwnerKind;
  /** The setting that sets this path: `service.routes.listDocuments.trust`. */
  readonly setting: string;
  /** The path is the built-in one with the prefix found on first contact (document-prefixes.ts). */
  readonly prefixFound: boolean;
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

/** Routes of one owner's documents: their path holds `{owner}`, and each can be set per kind. */
export const OWNER_ROUTE_NAMES = [
  'listDocuments',
  'documentDetails',
  'createDocument',
  'deleteDocument',
  'assignStatus',
  'uploadAttachment',
  'attachmentLink',
  'deleteAttachment',
] as const satisfies readonly RouteName[];

export type OwnerRouteName = (typeof OWNER_ROUTE_NAMES)[number];

export function isOwnerRoute(name: RouteName): name is OwnerRouteName {
  return (OWNER_ROUTE_NAMES as readonly RouteName[]).includes(name);
}

/**
 * The owner routes whose built-in path takes the prefix found on first contact. Assigning a
 * status is left out: both readings put it under `/cas` for either kind (api.md and the public
 * company page), where the other routes of a company's documents have no `/cas`.
 */
export function takesFoundPrefix(name: OwnerRouteName): boolean {
  return name !== 'assignStatus';
}

/** `companies/{companyId}` or `trusts/{trustId}`: `{owner}` written out for a kind. */
export function ownerTemplate(kind: OwnerKind): string {
  return kind === 'company' ? 'companies/{companyId}' : 'trusts/{trustId}';
}

/** The placeholder of an owner's id in a per-kind path. */
const ownerIdName = (kind: OwnerKind) => (kind === 'company' ? 'companyId' : 'trustId');

/** Settings of `service.routes`: a path, or (for an owner route) a path per owner kind. */
export type RouteOverride = string | Readonly<Partial<Record<OwnerKind, string>>>;

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
export function routeOverrideProblem(name: string, path: string, kind?: OwnerKind): string | null {
  if (!isRouteName(name)) {
    return `expected a route name (${ROUTE_NAMES.join(', ')}), got "${name}"`;
  }
  if (!path.startsWith('/') || /[?#\s]/.test(path)) {
    return `expected a path starting with / (no query, no spaces), got ${JSON.stringify(path)}`;
  }
  const builtIn = ROUTES[name].path;
  // One kind's path may name its owner as `{owner}` or by its id, as the public pages do.
  const given = placeholdersOf(path).map((p) => (kind && p === ownerIdName(kind) ? 'owner' : p));
  const wanted = placeholdersOf(builtIn);
  const missing = wanted.filter((p) => !given.includes(p));
  const unknown = given.filter((p) => !wanted.includes(p));
  if (missing.length === 0 && unknown.length === 0) return null;
  const what = [...missing.map((p) => `{${p}}`), ...unknown.map((p) => `no {${p}}`)].join(' and ');
  return `expected a path with ${what} (the built-in one is ${builtIn}), got ${JSON.stringify(path)}`;
}

/**
 * What is wrong with the setting `service.routes.<name>`, by key (`name` or `name.kind`), as
 * config problems; empty when nothing is.
 */
export function routeSettingProblems(
  name: string,
  value: unknown,
): { key: string; message: string }[] {
  if (typeof value === 'string') {
    const problem = routeOverrideProblem(name, value);
    return problem ? [{ key: name, message: problem }] : [];
  }
  const perKind = isRouteName(name) && isOwnerRoute(name);
  if (!perKind || typeof value !== 'object' || value === null || Array.isArray(value)) {
    const how = perKind ? ', or {"company": path, "trust": path}' : '';
    const problem = isRouteName(name) ? null : routeOverrideProblem(name, '/');
    return [{ key: name, message: problem ?? `expected a path (a string)${how}` }];
  }
  return Object.entries(value).flatMap(([kind, path]) => {
    const key = `${name}.${kind}`;
    if (kind !== 'company' && kind !== 'trust') {
      return [{ key, message: 'expected "company" or "trust"' }];
    }
    if (typeof path !== 'string') return [{ key, message: 'expected a path (a string)' }];
    const problem = routeOverrideProblem(name, path, kind);
    return problem ? [{ key, message: problem }] : [];
  });
}

/** The built-in table with `overrides` (checked by `routeSettingProblems` at load) applied. */
export function routeTable(overrides: Readonly<Record<string, RouteOverride>> = {}): RouteTable {
  const table = { ...ROUTES } as Record<RouteName, Route>;
  for (const [name, value] of Object.entries(overrides)) {
    const problem = routeSettingProblems(name, value)[0];
    if (problem) throw new Error(`service.routes.${problem.key}: ${problem.message}`);
    const builtIn = ROUTES[name as RouteName];
    table[name as RouteName] =
      typeof value === 'string'
        ? { ...builtIn, path: value, overridden: true }
        : { ...builtIn, byKind: { ...value } };
  }
  return table;
}

/**
 * An owner route as called for `kind`: the path set for that kind, else the one set for both,
 * else the built-in one, with `prefix` (found on first contact) when it takes one.
 */
export function kindRoute(
  name: OwnerRouteName,
  route: Route,
  kind: OwnerKind,
  prefix: string | null,
): KindRoute {
  const own = route.byKind?.[kind];
  // The setting that corrects this kind's path, whichever gave it now.
  const fixed = { kind, setting: `service.routes.${name}.${kind}`, prefixFound: false };
  const written = (path: string) => path.replace('{owner}', ownerTemplate(kind));
  if (own !== undefined) return { ...route, ...fixed, path: written(own), overridden: true };
  if (route.overridden || prefix === null || !takesFoundPrefix(name)) {
    return { ...route, ...fixed, path: written(route.path) };
  }
  const bare = route.path.replace(/^\/cas(?=\/)/, '');
  return { ...route, ...fixed, path: written(`${prefix}${bare}`), prefixFound: true };
}

/** Whether the path of `name` for `kind` is set in the configuration (no prefix is looked for). */
export function routeIsSet(route: Route, kind: OwnerKind): boolean {
  return route.overridden || route.byKind?.[kind] !== undefined;
}

/** The path segment of an owner: `companies/{id}` or `trusts/{id}`. */
export function ownerSegment(owner: OwnerRef): string {
  return `${owner.kind === 'company' ? 'companies' : 'trusts'}/${encodeURIComponent(owner.id)}`;
}

/**
 * Fills a route's placeholders; every value is URL-encoded, so no id can change the path. The
 * owner fills `{owner}`, and `{companyId}` or `{trustId}` (as a per-kind path names it) when no
 * parameter does.
 */
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
    const value =
      params[name] ?? (owner && name === ownerIdName(owner.kind) ? owner.id : undefined);
    if (value === undefined) throw new Error(`route ${path} needs {${name}}`);
    return encodeURIComponent(value);
  });
}
