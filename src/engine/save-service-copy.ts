/**
 * The service has no recycle bin: a document deleted there is gone with its status history and
 * its system forms. So before docsync deletes a document or an attachment in the service, it
 * downloads the service's copy into `.docsync/trash/<yyyy-mm-dd>/`, beside what it trashes
 * locally, and every deletion can be undone by hand for as long as the trash keeps it
 * (daemon.md "Every delete can be undone"). A copy that cannot be made fails the delete, which
 * is retried: nothing is deleted without one. A crash between the copy and the delete makes a
 * second copy on the retry (` (2)`), which costs disk for a while, never a record.
 */
import { baseFromDocument } from '../domain/apply-action-result.js';
import { RemoteChangedError } from '../domain/errors.js';
import { toLocalName } from '../domain/local-names.js';
import { documentChanges } from '../domain/remote-changes.js';
import type { BaseDocument, RemoteDocument } from '../domain/types.js';
import type { EngineDeps } from './engine-deps.js';
import type { ActionContext } from './execute-action.js';
import { isGone } from './push.js';

/**
 * The whole document as the service has it now: `.document.json` and every attachment, system
 * forms too. Returns the view it copied (null: already gone from the service).
 */
export async function saveDocumentCopy(
  ctx: ActionContext,
  documentId: string,
  folder: string,
): Promise<RemoteDocument | null> {
  const doc = await detailsOrGone(ctx, documentId);
  if (doc === null) return null;
  const base = ctx.deps.state.base.get(documentId);
  // Changed there since the agreed state: no copy, and (the caller) no delete.
  if (base && changedSince(base, doc)) throw new RemoteChangedError(documentId);
  await ctx.deps.local.saveToTrash(
    folder,
    doc.attachments.map((a) => ({
      key: a.id,
      desiredName: localNameOf(base, a.id, a.name),
      fill: (path: string) => ctx.deps.remote.downloadAttachment(ctx.owner, doc.id, a.id, path),
    })),
    (written) => ctx.metaFor(baseFromDocument(doc, folder, written), doc),
    { owner: ctx.owner, documentId: doc.id, attachmentId: null },
  );
  return doc;
}

/**
 * Right before a document's delete is sent: the service's view again, which must still be the
 * one the trash copy holds and the agreed state knows. An answer that came late (read before a
 * service user's edit, received after it) made the copy of a view already stale; this second
 * look is what sees that edit, and the delete is not sent (RemoteChangedError).
 */
export async function checkStillAsCopied(
  ctx: ActionContext,
  documentId: string,
  copied: RemoteDocument | null,
): Promise<void> {
  if (copied === null) return; // already gone from the service: nothing left to lose
  const now = await detailsOrGone(ctx, documentId);
  if (now === null) return;
  const base = ctx.deps.state.base.get(documentId);
  if ((base && changedSince(base, now)) || !sameContent(copied, now))
    throw new RemoteChangedError(documentId);
}

/** Whether the service changed the document since `base`: its content, not a timestamp alone. */
function changedSince(base: BaseDocument, doc: RemoteDocument): boolean {
  return documentChanges(base, doc).some((c) => c.kind !== 'remote-touched');
}

function sameContent(a: RemoteDocument, b: RemoteDocument): boolean {
  const ids = (d: RemoteDocument) =>
    d.attachments
      .map((x) => x.id)
      .sort()
      .join();
  return (
    (a.status?.id ?? null) === (b.status?.id ?? null) &&
    ids(a) === ids(b) &&
    a.name === b.name &&
    a.documentDate === b.documentDate
  );
}

/** One attachment, kept in a folder named like its document's. */
export async function saveAttachmentCopy(
  deps: Pick<EngineDeps, 'local' | 'remote'>,
  base: BaseDocument,
  attachmentId: string,
): Promise<void> {
  const name = localNameOf(base, attachmentId, attachmentId);
  try {
    await deps.local.saveToTrash(
      base.folder,
      [
        {
          key: attachmentId,
          desiredName: name,
          fill: (path: string) =>
            deps.remote.downloadAttachment(base.owner, base.id, attachmentId, path),
        },
      ],
      null,
      { owner: base.owner, documentId: base.id, attachmentId },
    );
  } catch (error) {
    // Already gone from the service: there is nothing left to lose.
    if (!isGone(error)) throw error;
  }
}

async function detailsOrGone(ctx: ActionContext, documentId: string) {
  try {
    return await ctx.deps.remote.document(ctx.owner, documentId);
  } catch (error) {
    if (isGone(error)) return null;
    throw error;
  }
}

/** The name the folder knew the attachment by, else its service name made legal. */
function localNameOf(base: BaseDocument | null, attachmentId: string, remoteName: string) {
  return (
    base?.attachments.find((a) => a.id === attachmentId)?.file ?? toLocalName(remoteName, 'file')
  );
}
