/**
 * The action an outbox entry carries out, rebuilt from its payload. A push settled after a crash
 * changes the agreed state through `applyActionResult`, exactly as the executor does when the
 * push answers at once, so the two paths cannot drift apart (one function for the base). The
 * row is the one the planner gives such an action; it labels, it decides nothing.
 */
import { assertNever } from '../domain/assert-never.js';
import type { SyncAction } from '../domain/sync-actions.js';
import type { BaseDocument, LocalFile, OwnerRef } from '../domain/types.js';
import type { TypedPush } from '../state/outbox-payloads.js';

/** A push of the outbox, recorded or about to be: deleting a document changes no base. */
type Pushed = Exclude<TypedPush, { kind: 'delete-document' }> & {
  readonly owner: OwnerRef;
  readonly documentId: string | null;
};

/** `base` is the document's agreed state (null for a create, which has none yet). */
export function actionOfPush(item: Pushed, base: BaseDocument | null): SyncAction {
  const common = {
    owner: item.owner,
    documentId: item.documentId,
    documentName: base?.name ?? '',
  };
  const folder = base?.folder ?? '';
  switch (item.kind) {
    case 'create-document': {
      const { name, documentDate } = item.payload;
      const created = { name, documentDate, folder: item.payload.folder, files: [] };
      return { ...common, kind: 'push-new-document', row: 2, documentName: name, ...created };
    }
    case 'upload-attachment':
      return { ...common, kind: 'push-attachment', row: 40, folder, file: fileOf(item.payload) };
    case 'replace-attachment':
      return {
        ...common,
        kind: 'push-replaced-attachment',
        row: 31,
        folder,
        file: fileOf(item.payload),
        replacesAttachmentId: item.payload.replacesAttachmentId,
      };
    case 'delete-attachment': {
      const { attachmentId } = item.payload;
      const file = base?.attachments.find((a) => a.id === attachmentId)?.file ?? '';
      return { ...common, kind: 'push-delete-attachment', row: 32, folder, attachmentId, file };
    }
    case 'assign-status':
      return {
        ...common,
        kind: 'push-status',
        row: 20,
        folder,
        statusTypeId: item.payload.typeId,
        statusName: '',
        effectiveDate: item.payload.effectiveDate,
      };
    default:
      return assertNever(item);
  }
}

function fileOf(payload: {
  readonly fileName: string;
  readonly sha256: string;
  readonly size: number;
  readonly mtimeMs: number;
}): LocalFile {
  return {
    name: payload.fileName,
    sha256: payload.sha256,
    size: payload.size,
    mtimeMs: payload.mtimeMs,
  };
}
