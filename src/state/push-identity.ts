/**
 * What a push changes, as one key: planning the same change again finds the open push of that
 * change instead of recording a second one (outbox-repo.ts). The key is a JSON array of its
 * parts, so no name can reach into the next part: `x.pdf: y.pdf` and `x.pdf` are two files,
 * whatever characters their names hold. Nothing matches a key by prefix;
 * what needs a part of the identity (the pushes of one file) reads the structured columns.
 */
import { assertNever } from '../domain/assert-never.js';
import type { OwnerRef } from '../domain/types.js';
import type { TypedPush } from './outbox-payloads.js';

export type PushSubject = TypedPush & {
  readonly owner: OwnerRef;
  readonly documentId: string | null;
};

/**
 * The parts that name the change (not the attempt) of each kind. A create is named by its
 * folder's identity on disk where there is one, not by the folder's name: the folder renamed
 * while its create is under way (or in doubt after a crash) is still that create, never a second.
 */
function changeParts(push: TypedPush): readonly string[] {
  switch (push.kind) {
    case 'create-document':
      return push.payload.folderIdentity === undefined
        ? [push.payload.folder]
        : ['identity', push.payload.folderIdentity];
    case 'upload-attachment':
    case 'replace-attachment':
      return [push.payload.fileName, push.payload.sha256];
    case 'delete-attachment':
      return [push.payload.attachmentId];
    case 'assign-status':
      return [push.payload.typeId, push.payload.effectiveDate];
    case 'delete-document':
      return [];
    default:
      return assertNever(push);
  }
}

export function pushIdentity(push: PushSubject): string {
  const { kind, owner, documentId } = push;
  return JSON.stringify([kind, owner.kind, owner.id, documentId, ...changeParts(push)]);
}

/**
 * What the request of a push sends, beyond the key: a create's name and date (its key is its
 * folder). A push planned again under its key with another request is a new change for the
 * service, so a refusal of the old one does not hold it back.
 */
export function requestOf(push: TypedPush): string {
  if (push.kind === 'create-document')
    return JSON.stringify([push.payload.name, push.payload.documentDate]);
  return JSON.stringify(changeParts(push));
}
