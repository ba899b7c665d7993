/**
 * The base after one action succeeded. The executor folds this over a document's actions, each
 * in the same transaction that records the action's success (style guide §9), so a document
 * half done keeps exactly what was done and the next plan does not repeat it. Ids the service
 * assigns (new attachments, status records, documents) and facts of written files only exist
 * after the action, so they come in as the result.
 */
import { assertNever } from './assert-never.js';
import type { SyncAction } from './sync-actions.js';
import type {
  BaseAttachment,
  BaseDocument,
  LocalFile,
  RemoteAttachment,
  RemoteDocument,
  RemoteStatus,
} from './types.js';

export type ActionResult =
  /** A file the executor wrote, by attachment id (pull, restore). */
  | {
      readonly kind: 'files-written';
      readonly folder?: string;
      readonly files: ReadonlyMap<string, LocalFile>;
    }
  | { readonly kind: 'attachment-created'; readonly attachment: RemoteAttachment }
  | { readonly kind: 'status-created'; readonly status: RemoteStatus }
  /** The document as the service holds it after a create, with local files by attachment id. */
  | {
      readonly kind: 'document-created';
      readonly document: RemoteDocument;
      readonly files: ReadonlyMap<string, LocalFile>;
    }
  | { readonly kind: 'done' };

function toBaseAttachment(attachment: RemoteAttachment, file: LocalFile): BaseAttachment {
  const { sha256, size, mtimeMs, name } = file;
  return { id: attachment.id, kind: attachment.kind, file: name, sha256, size, mtimeMs };
}

/** The base's three status fields for a status record (or none). */
export function statusFields(
  status: RemoteStatus | null,
): Pick<BaseDocument, 'statusId' | 'statusTypeId' | 'statusDate'> {
  return {
    statusId: status?.id ?? null,
    statusTypeId: status?.typeId ?? null,
    statusDate: status?.effectiveDate ?? null,
  };
}

/** A base row for a document both sides now hold in full. */
export function baseFromDocument(
  document: RemoteDocument,
  folder: string,
  files: ReadonlyMap<string, LocalFile>,
): BaseDocument {
  return {
    id: document.id,
    owner: document.owner,
    name: document.name,
    documentDate: document.documentDate,
    ...statusFields(document.status),
    lastUpdatedTimestamp: document.lastUpdatedTimestamp,
    folder,
    attachments: document.attachments.flatMap((a) => {
      const file = files.get(a.id);
      return file ? [toBaseAttachment(a, file)] : [];
    }),
  };
}

function withAttachments(
  base: BaseDocument,
  change: (list: readonly BaseAttachment[]) => readonly BaseAttachment[],
): BaseDocument {
  return { ...base, attachments: change(base.attachments) };
}

/** Row 31 done: the new content's attachment takes the old one's place. */
function withReplacedAttachment(
  base: BaseDocument,
  replacedId: string,
  entry: BaseAttachment,
): BaseDocument {
  return withAttachments(base, (l) => [...l.filter((a) => a.id !== replacedId), entry]);
}

/** One agreed attachment per id and per local file name: the newest replaces the others. */
function put(base: BaseDocument, entry: BaseAttachment): BaseDocument {
  return withAttachments(base, (l) => [
    ...l.filter((a) => a.id !== entry.id && a.file !== entry.file),
    entry,
  ]);
}

function created(result: ActionResult, file: LocalFile): BaseAttachment | null {
  if (result.kind !== 'attachment-created') return null;
  return toBaseAttachment(result.attachment, file);
}

function applyToExisting(
  base: BaseDocument,
  action: SyncAction,
  result: ActionResult,
): BaseDocument | null {
  switch (action.kind) {
    case 'pull-attachment':
    case 'restore-system-attachment': {
      const id = action.kind === 'pull-attachment' ? action.attachment.id : action.attachmentId;
      const file = result.kind === 'files-written' ? result.files.get(id) : undefined;
      if (!file) return base;
      const attachment: RemoteAttachment =
        action.kind === 'pull-attachment'
          ? action.attachment
          : { id, kind: 'system', name: action.file, creationDate: null };
      return put(base, toBaseAttachment(attachment, file));
    }
    case 'pull-status':
      return { ...base, ...statusFields(action.status) };
    case 'pull-details':
      return { ...base, name: action.name, documentDate: action.documentDate };
    case 'push-attachment': {
      const added = created(result, action.file);
      // Row 33: the new attachment takes the place of the one the service removed.
      return added ? put(base, added) : base;
    }
    case 'push-replaced-attachment': {
      const added = created(result, action.file);
      return added ? withReplacedAttachment(base, action.replacesAttachmentId, added) : base;
    }
    case 'push-delete-attachment':
    case 'trash-local-attachment':
      return withAttachments(base, (l) => l.filter((a) => a.id !== action.attachmentId));
    case 'keep-conflict-copy':
      // After the rename no agreed attachment lives under the old name (rows 37, 42).
      return withAttachments(base, (l) => l.filter((a) => a.file !== action.file));
    case 'push-status':
      return result.kind === 'status-created' ? { ...base, ...statusFields(result.status) } : base;
    case 'move-base-folder':
      return { ...base, folder: action.to };
    case 'update-base': {
      const { dropAttachmentIds = [], ...fields } = action.patch;
      const drop = new Set(dropAttachmentIds);
      return { ...withAttachments(base, (l) => l.filter((a) => !drop.has(a.id))), ...fields };
    }
    case 'push-delete-document':
    case 'trash-local-document':
    case 'forget-document':
      return null;
    // Whole-document kinds are folded by applyActionResult; the last two change no agreement.
    case 'pull-new-document':
    case 'restore-document':
    case 'push-new-document':
    case 'adopt-local-folder':
    case 'write-document-meta':
    case 'record-problem':
      return base;
    default:
      return assertNever(action);
  }
}

/** The base of `action`'s document once it succeeded with `result`; null removes the row. */
export function applyActionResult(
  base: BaseDocument | null,
  action: SyncAction,
  result: ActionResult,
): BaseDocument | null {
  if (action.kind === 'adopt-local-folder') return action.base;
  if (
    action.kind === 'pull-new-document' ||
    (action.kind === 'restore-document' && action.side === 'local')
  ) {
    if (result.kind !== 'files-written' || result.folder === undefined) return base;
    return baseFromDocument(action.document, result.folder, result.files);
  }
  if (action.kind === 'push-new-document' || action.kind === 'restore-document') {
    // The executor moves the base to the new id (and, on restore, drops the old one).
    if (result.kind !== 'document-created') return base;
    return baseFromDocument(result.document, action.folder, result.files);
  }
  return base === null ? null : applyToExisting(base, action, result);
}
