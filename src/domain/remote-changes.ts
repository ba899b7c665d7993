/**
 * What changed in the service since the base. Changes are found by content (status record id,
 * attachment ids, name and date), not by `lastUpdatedTimestamp` alone: lists carry microseconds
 * and details whole seconds for the same version (api.md), so the text differs without a change.
 */
import type {
  BaseAttachment,
  BaseDocument,
  RemoteAttachment,
  RemoteDocument,
  RemoteStatus,
} from './types.js';

/** What the cycle learned from the service for one entity. */
export interface RemoteInput {
  /** Details of every document listed as changed (or all of them, on a full listing). */
  readonly changed: readonly RemoteDocument[];
  /** Ids of a full listing; null when this cycle only listed `updatedAfter` the cursor. */
  readonly listedIds: ReadonlySet<string> | null;
  /** Ids named by `deleteDocument` webhook messages. */
  readonly deletedIds?: ReadonlySet<string>;
  /**
   * Listed as changed, but their details could not be read this cycle (row 56): the service
   * moved, and how is not known.
   */
  readonly unreadIds?: ReadonlySet<string>;
}

export type DeletionSource = 'full-listing' | 'delete-event';

export type RemoteChange =
  | { readonly kind: 'remote-new'; readonly document: RemoteDocument }
  | {
      readonly kind: 'remote-status';
      readonly documentId: string;
      readonly status: RemoteStatus | null;
    }
  | {
      readonly kind: 'remote-attachment-added';
      readonly documentId: string;
      readonly attachment: RemoteAttachment;
    }
  | {
      readonly kind: 'remote-attachment-removed';
      readonly documentId: string;
      readonly attachment: BaseAttachment;
    }
  | {
      readonly kind: 'remote-details';
      readonly documentId: string;
      readonly name: string;
      readonly documentDate: string;
    }
  | {
      /** Only the timestamp moved: nothing to do but remember it. */
      readonly kind: 'remote-touched';
      readonly documentId: string;
      readonly lastUpdatedTimestamp: string;
    }
  | {
      readonly kind: 'remote-deleted';
      readonly documentId: string;
      readonly source: DeletionSource;
    };

export type RemoteChangeKind = RemoteChange['kind'];

/** Content changes of one document present in both the base and the service. */
export function documentChanges(doc: BaseDocument, remote: RemoteDocument): RemoteChange[] {
  const changes: RemoteChange[] = [];
  const id = doc.id;
  if (
    (remote.status?.id ?? null) !== doc.statusId ||
    (remote.status?.typeId ?? null) !== doc.statusTypeId
  ) {
    changes.push({ kind: 'remote-status', documentId: id, status: remote.status });
  }
  const remoteIds = new Set(remote.attachments.map((a) => a.id));
  const baseIds = new Set(doc.attachments.map((a) => a.id));
  for (const attachment of remote.attachments) {
    if (!baseIds.has(attachment.id)) {
      changes.push({ kind: 'remote-attachment-added', documentId: id, attachment });
    }
  }
  for (const attachment of doc.attachments) {
    if (!remoteIds.has(attachment.id)) {
      changes.push({ kind: 'remote-attachment-removed', documentId: id, attachment });
    }
  }
  if (remote.name !== doc.name || remote.documentDate !== doc.documentDate) {
    changes.push({
      kind: 'remote-details',
      documentId: id,
      name: remote.name,
      documentDate: remote.documentDate,
    });
  }
  if (changes.length === 0 && remote.lastUpdatedTimestamp !== doc.lastUpdatedTimestamp) {
    changes.push({
      kind: 'remote-touched',
      documentId: id,
      lastUpdatedTimestamp: remote.lastUpdatedTimestamp,
    });
  }
  return changes;
}

/** How a base document's absence is known, or null while it may still exist. */
export function deletionSource(id: string, remote: RemoteInput): DeletionSource | null {
  // Details fetched this cycle prove the document exists, whatever a late webhook says.
  if (remote.changed.some((d) => d.id === id)) return null;
  if (remote.deletedIds?.has(id)) return 'delete-event';
  if (remote.listedIds !== null && !remote.listedIds.has(id)) return 'full-listing';
  return null;
}

export function detectRemoteChanges(
  base: ReadonlyMap<string, BaseDocument>,
  remote: RemoteInput,
): RemoteChange[] {
  const changes: RemoteChange[] = [];
  for (const document of remote.changed) {
    const doc = base.get(document.id);
    if (doc === undefined) changes.push({ kind: 'remote-new', document });
    else changes.push(...documentChanges(doc, document));
  }
  for (const doc of base.values()) {
    const source = deletionSource(doc.id, remote);
    if (source !== null) changes.push({ kind: 'remote-deleted', documentId: doc.id, source });
  }
  return changes;
}
