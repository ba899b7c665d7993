/**
 * What the firm-wide unlodged list says changed. Pure: the daemon's sweep
 * (daemon/unlodged-sweep.ts) reads the list a page at a time on its small budget, looks up what
 * the agreed state holds of each document, and asks this module which companies to list now.
 *
 * The list (`GET /cas/companies/documents/unlodged`) shows every company document with an ASIC
 * form that is not lodged yet, with its current status (a new status gets a new status id) and
 * its company, 500 a request: a firm's whole list costs a few requests where listing each
 * company costs one request per company. Its items carry no change time, so what it can show is
 * a document the folder does not have, a status the folder does not have, and a document that
 * left the list (lodged, deleted, or its form number removed). It shows nothing of attachments,
 * of trusts, of lodged documents or of documents without a form.
 *
 * The rules, numbered (test/unit/unlodged-hints.test.ts has a case each):
 * 1. A document the agreed state does not hold: its company is listed (a new document).
 * 2. A document whose status id is not the agreed one: its company is listed (a new status).
 * 3. A document already hinted with the same status is not hinted again, so a document docsync
 *    does not take (one it skips, one in error) costs one listing, not one per sweep.
 * 4. A document the agreed state holds, on the last whole sweep and missing from this whole one:
 *    its company is listed whole (lodged, deleted, or its form removed: only a whole listing
 *    shows a deletion).
 * 5. A sweep cut short (a page that failed or held a malformed item, a stop) judges nothing
 *    missing: rule 4 compares whole sweeps only.
 * 6. A document whose status is the agreed one: no hint.
 */
import type { OwnerRef, UnlodgedDocument } from './types.js';

/** One page of the list as the client reads it. */
export interface UnlodgedPage {
  readonly documents: readonly UnlodgedDocument[];
  /** Items that broke the contract, left out: the sweep is then not whole (rule 5). */
  readonly malformed: number;
  /** The list's length as the service says it; null when it does not. */
  readonly total: number | null;
  /** The page size asked for: without a total, a shorter page is the last. */
  readonly limit: number;
}

/** Where the next page starts, or null when this one was the last. */
export function nextOffset(offset: number, page: UnlodgedPage): number | null {
  const count = page.documents.length + page.malformed;
  if (count === 0) return null;
  const end = offset + count;
  return (page.total === null ? count < page.limit : end >= page.total) ? null : end;
}

/** The sighting of a list item: its document, its company, its status. */
export function sightingOf(doc: UnlodgedDocument): UnlodgedSighting {
  return { documentId: doc.id, companyId: doc.owner.id, statusId: doc.status?.id ?? null };
}

/** One item of the list, as much of it as the hint reads. */
export interface UnlodgedSighting {
  readonly documentId: string;
  /** The company as the item names it (its spelling of the id may differ from the catalogue's). */
  readonly companyId: string;
  readonly statusId: string | null;
}

/** What the agreed state (the base) holds of a document. */
export interface AgreedDocument {
  readonly owner: OwnerRef;
  readonly statusId: string | null;
}

export type HintReason = 'new-document' | 'new-status' | 'left-the-list';

export interface UnlodgedHint {
  readonly rule: 1 | 2 | 4;
  readonly reason: HintReason;
  readonly documentId: string;
  /** The company as the list names it. */
  readonly companyId: string;
  /** The company as the agreed state names it, when it holds the document. */
  readonly owner: OwnerRef | null;
  /** List the company whole (rule 4), not only what changed since its cursor. */
  readonly whole: boolean;
}

/** Documents hinted, with the status each was hinted for (rule 3). */
export type HintedStatuses = ReadonlyMap<string, string | null>;

/** Rules 1, 2, 3, 6 over one page; `hinted` comes back with this page's hints in it. */
export function judgePage(
  page: readonly UnlodgedSighting[],
  agreed: ReadonlyMap<string, AgreedDocument>,
  hinted: HintedStatuses,
): { hints: UnlodgedHint[]; hinted: HintedStatuses } {
  const next = new Map(hinted);
  const hints: UnlodgedHint[] = [];
  for (const item of page) {
    const known = agreed.get(item.documentId);
    if (known && known.statusId === item.statusId) continue; // rule 6
    if (next.has(item.documentId) && next.get(item.documentId) === item.statusId) continue; // 3
    next.set(item.documentId, item.statusId);
    hints.push({
      rule: known ? 2 : 1,
      reason: known ? 'new-status' : 'new-document',
      documentId: item.documentId,
      companyId: item.companyId,
      owner: known?.owner ?? null,
      whole: false,
    });
  }
  return { hints, hinted: next };
}

/**
 * Rules 4 and 5 at the end of a sweep. `previous` and `current` map each document seen to its
 * company (null: that sweep was cut short); `agreed` holds what the state knows of the documents
 * of `previous`. `hinted` comes back holding only documents still on the list, so it stays the
 * list's size.
 */
export function judgeSweep(
  previous: ReadonlyMap<string, string> | null,
  current: ReadonlyMap<string, string> | null,
  agreed: ReadonlyMap<string, AgreedDocument>,
  hinted: HintedStatuses,
): { hints: UnlodgedHint[]; hinted: HintedStatuses } {
  if (previous === null || current === null) return { hints: [], hinted }; // rule 5
  const hints: UnlodgedHint[] = [];
  for (const [documentId, companyId] of previous) {
    const known = agreed.get(documentId);
    if (current.has(documentId) || !known) continue;
    hints.push({
      rule: 4,
      reason: 'left-the-list',
      documentId,
      companyId,
      owner: known.owner,
      whole: true,
    });
  }
  const kept = new Map([...hinted].filter(([documentId]) => current.has(documentId)));
  return { hints, hinted: kept };
}
