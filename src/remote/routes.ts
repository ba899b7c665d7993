/**
 * Every path of the API contract, in one table (api.md). A deployment that finds a path
 * different on the real service corrects it here and nowhere else. `source` says where each
 * path comes from: `public` (the service's public docs), `seed` (the interface description) or
 * `ours` (decided by this project because neither shows it; the first suspects if a call fails).
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
}

const route = (method: HttpMethod, path: string, source: RouteSource): Route => ({
  method,
  path,
  source,
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
