/**
 * `.document.json` from the agreed base: what the folder shows is what both sides agreed on,
 * so a user's edit of `"status"` is always an edit against the base, never a stale echo.
 */
import type { SyncAction } from '../domain/sync-actions.js';
import type { BaseDocument, DocumentMeta, RemoteDocument, StatusType } from '../domain/types.js';

/**
 * When a document's `.document.json` is written for an action: the one rule, here.
 * - `before`: the action changes only what the file shows (a status, a name, a date) and the
 *   base follows it. Written first, a crash in between reads as "both sides made the same
 *   change", never as a user's edit to push back.
 * - `with-files`: the action writes it itself, inside the new folder it builds with the files.
 * - `after`: written from the final base once the document's actions ran (every other action).
 *
 * Two writes happen outside a document's actions, for the same reason as `before`: a create
 * writes it inside its push, before the push counts as done (the folder must name its
 * document before the base does, execute-action.ts), and a push settled after a crash or a
 * timestamp learnt after pushes write it from the base they produce.
 */
export function metaWriteOf(action: SyncAction): 'before' | 'with-files' | 'after' {
  if (action.kind === 'pull-status' || action.kind === 'pull-details') return 'before';
  const builtWhole =
    (action.kind === 'pull-new-document' && action.folder === null) ||
    (action.kind === 'restore-document' && action.side === 'local');
  return builtWhole ? 'with-files' : 'after';
}

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

/** The name `.document.json` gives the agreed status (null: none, or a type not known). */
export function statusNameOf(base: BaseDocument, statusTypes: readonly StatusType[]) {
  return statusTypes.find((t) => t.id === base.statusTypeId)?.name ?? null;
}

export function metaFromBase(
  base: BaseDocument,
  extras: MetaExtras,
  statusTypes: readonly StatusType[],
  link: string,
): DocumentMeta {
  const status = statusNameOf(base, statusTypes);
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
