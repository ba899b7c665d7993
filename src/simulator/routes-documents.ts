/**
 * Documents of a company or a trust: list (with the strict `updatedAfter`), details, create,
 * delete, assign status, and the company-only `unlodged` lists.
 */
import { isDate, parseUpdatedAfter } from './clock.js';
import type { DocumentOps } from './document-ops.js';
import { type Reply, type RequestContext, type Route, readJson } from './http-kit.js';
import { envelope, parsePage } from './paging.js';
import type { SimProfile } from './profile.js';
import type { DocumentRecord, OwnerKey, OwnerKind } from './records.js';
import { badRequest, unprocessable } from './sim-error.js';
import type { SimStore } from './store.js';
import { documentDetails, documentListItem, statusView, unlodgedItem } from './views.js';

export const OWNER_PATHS: readonly [OwnerKind, string][] = [
  ['company', '/companies/{ownerId}'],
  ['trust', '/trusts/{ownerId}'],
];

export function ownerOf(kind: OwnerKind, ctx: RequestContext): OwnerKey {
  return { kind, id: ctx.params.ownerId! };
}

export function documentRoutes(store: SimStore, ops: DocumentOps, profile: SimProfile): Route[] {
  return [
    ...unlodgedRoutes(store),
    ...OWNER_PATHS.flatMap(([kind, base]): Route[] => {
      const route = (
        method: string,
        path: string,
        handle: (ctx: RequestContext, owner: OwnerKey) => Reply | Promise<Reply>,
      ): Route => ({
        method,
        template: `${base}${path}`,
        auth: true,
        handle: (ctx) => handle(ctx, ownerOf(kind, ctx)),
      });
      return [
        route('GET', '/documents', ({ query }, owner) => listDocuments(store, owner, query)),
        route('GET', '/documents/{documentId}', ({ params }, owner) => ({
          status: 200,
          body: documentDetails(store.requireDocument(owner, params.documentId!), profile),
        })),
        route('POST', '/documents', async (ctx, owner) => {
          const input = parseNewDocument(await readJson(ctx.req));
          const created = ops.create(owner, input, ctx.actor);
          return { status: 201, body: documentDetails(created, profile) };
        }),
        route('DELETE', '/documents/{documentId}', (ctx, owner) => {
          ops.delete(requireOwnedDocument(store, owner, ctx), ctx.actor);
          return { status: 204 };
        }),
        route('POST', '/documents/{documentId}/statuses', async (ctx, owner) => {
          const doc = requireOwnedDocument(store, owner, ctx);
          const body = await readJson(ctx.req);
          const typeId = parseTypeId(body.typeId);
          if (!isDate(body.effectiveDate))
            throw unprocessable('effectiveDate must be a yyyy-MM-dd date');
          return {
            status: 201,
            body: statusView(ops.assignStatus(doc, typeId, body.effectiveDate, ctx.actor)),
          };
        }),
      ];
    }),
  ];
}

export function requireOwnedDocument(
  store: SimStore,
  owner: OwnerKey,
  ctx: RequestContext,
): DocumentRecord {
  store.requireOwner(owner);
  return store.requireDocument(owner, ctx.params.documentId!);
}

function listDocuments(store: SimStore, owner: OwnerKey, query: URLSearchParams): Reply {
  store.requireOwner(owner);
  const page = parsePage(query);
  const text = query.get('updatedAfter');
  const after = text === null ? null : parseUpdatedAfter(text);
  if (text !== null && after === null) {
    throw badRequest(`updatedAfter must be yyyy-MM-ddTHH:mm:ss in UTC, got "${text}"`);
  }
  // Strictly later only: a document updated exactly at `updatedAfter` is not listed again.
  const docs = filter(store.documentsOf(owner), (d) => after === null || d.updatedMicros > after);
  // A document a test told the service to skip is missing from this listing, and only this one.
  const shown = store.skipOnce.size === 0 ? docs : skippingOnce(store.skipOnce, docs);
  return { status: 200, body: envelope('documents', shown, page, documentListItem) };
}

/** The documents, less those in `skip`, each of which is taken out of it as it is left out. */
function* skippingOnce(
  skip: Set<number>,
  docs: Iterable<DocumentRecord>,
): Iterable<DocumentRecord> {
  for (const doc of docs) {
    if (skip.delete(doc.id)) continue;
    yield doc;
  }
}

function* filter<T>(items: Iterable<T>, keep: (item: T) => boolean): Iterable<T> {
  for (const item of items) if (keep(item)) yield item;
}

/**
 * Unlodged: company documents carrying an ASIC form number whose status is not LODGED yet.
 * api.md does not define "unlodged"; this is the meaning the service's name suggests. Items
 * have the service's public shape (views.ts, unlodgedItem).
 */
function unlodgedRoutes(store: SimStore): Route[] {
  const unlodged = (doc: DocumentRecord) =>
    doc.owner.kind === 'company' && doc.asicDocNumber !== null && doc.status.type !== 'LODGED';
  const item = (req: RequestContext['req']) => {
    const webUrl = `http://${req.headers.host ?? 'localhost'}/web`;
    return (doc: DocumentRecord) => unlodgedItem(doc, store.requireCompany(doc.owner.id), webUrl);
  };
  return [
    {
      method: 'GET',
      template: '/companies/documents/unlodged',
      auth: true,
      handle: ({ req, query }) => {
        const page = parsePage(query);
        const docs = filter(store.documents.values(), unlodged);
        return { status: 200, body: envelope('documents', docs, page, item(req)) };
      },
    },
    {
      method: 'GET',
      template: '/companies/{companyId}/documents/unlodged',
      auth: true,
      handle: ({ req, params, query }) => {
        const owner: OwnerKey = { kind: 'company', id: params.companyId! };
        store.requireOwner(owner);
        const page = parsePage(query);
        const docs = filter(store.documentsOf(owner), unlodged);
        return { status: 200, body: envelope('documents', docs, page, item(req)) };
      },
    },
  ];
}

function parseNewDocument(body: Record<string, unknown>) {
  const { name, documentDate, asicDocNumber, status } = body;
  if (typeof name !== 'string' || name.trim() === '') throw unprocessable('name is required');
  if (!isDate(documentDate)) throw unprocessable('documentDate must be a yyyy-MM-dd date');
  if (asicDocNumber !== undefined && asicDocNumber !== null && typeof asicDocNumber !== 'string') {
    throw unprocessable('asicDocNumber must be a string or null');
  }
  if (status !== undefined && status !== null && typeof status !== 'object') {
    throw unprocessable('status must be an object {typeId}');
  }
  const typeId = status ? parseTypeId((status as Record<string, unknown>).typeId) : undefined;
  return {
    name,
    documentDate,
    asicDocNumber: asicDocNumber ?? null,
    ...(typeId !== undefined ? { statusTypeId: typeId } : {}),
  };
}

/** A type id as a number or a numeric string (clients keep ids as strings, api.md). */
function parseTypeId(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  throw unprocessable(`typeId must be a status type id, got ${JSON.stringify(value)}`);
}
