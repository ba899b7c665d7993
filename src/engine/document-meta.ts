/**
 * `.document.json` from the agreed base: what the folder shows is what both sides agreed on,
 * so a user's edit of `"status"` is always an edit against the base, never a stale echo.
 */
import type { BaseDocument, DocumentMeta, RemoteDocument, StatusType } from '../domain/types.js';

export interface MetaExtras {
  readonly traceNumber: string | null;
  readonly asicDocNumber: string | null;
  /** creationDate of attachments by id, when known. */
  readonly creationDates?: ReadonlyMap<string, string | null>;
}

export function extrasOf(doc: RemoteDocument | DocumentMeta | null | undefined): MetaExtras {
  if (!doc) return { traceNumber: null, asicDocNumber: null };
  const dates = new Map<string, string | null>(doc.attachments.map((a) => [a.id, a.creationDate]));
  return { traceNumber: doc.traceNumber, asicDocNumber: doc.asicDocNumber, creationDates: dates };
}

export function metaFromBase(
  base: BaseDocument,
  extras: MetaExtras,
  statusTypes: readonly StatusType[],
  link: string,
): DocumentMeta {
  const status = statusTypes.find((t) => t.id === base.statusTypeId)?.name ?? null;
  return {
    id: base.id,
    owner: base.owner,
    name: base.name,
    documentDate: base.documentDate,
    traceNumber: extras.traceNumber,
    asicDocNumber: extras.asicDocNumber,
    status,
    statusDate: base.statusDate,
    lastUpdatedTimestamp: base.lastUpdatedTimestamp,
    attachments: base.attachments.map((a) => ({
      id: a.id,
      kind: a.kind,
      file: a.file,
      creationDate: extras.creationDates?.get(a.id) ?? null,
      sha256: a.sha256,
    })),
    link,
  };
}
