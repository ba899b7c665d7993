/**
 * Every change to a document, shared by the API routes and the admin operations so both behave
 * alike: each one moves `lastUpdatedTimestamp` forward and emits one Document Change event.
 */
import { rm } from 'node:fs/promises';
import type { SimClock } from './clock.js';
import type {
  AttachmentRecord,
  BlobSource,
  DocumentRecord,
  OwnerKey,
  StatusRecord,
} from './records.js';
import { notFound, SimError, unprocessable } from './sim-error.js';
import type { Actor, SimStore } from './store.js';

/** The status a document gets when it is created without one (api.md). */
export const DEFAULT_STATUS_NAME = 'RECEIVED';

export interface NewDocument {
  readonly name: string;
  readonly documentDate: string;
  readonly asicDocNumber?: string | null;
  readonly statusTypeId?: number;
}

export class DocumentOps {
  constructor(
    private readonly store: SimStore,
    private readonly clock: SimClock,
  ) {}

  create(owner: OwnerKey, input: NewDocument, actor: Actor): DocumentRecord {
    this.store.requireOwner(owner);
    const status = this.newStatus(
      input.statusTypeId ?? this.defaultTypeId(),
      this.clock.today(),
      actor,
    );
    const doc: DocumentRecord = {
      id: this.store.nextId('document'),
      owner,
      traceNumber: String(this.store.nextId('trace')),
      name: input.name,
      documentDate: input.documentDate,
      asicDocNumber: input.asicDocNumber ?? null,
      updatedMicros: this.clock.nextChangeMicros(),
      status,
      attachments: [],
    };
    this.store.addDocument(doc);
    this.store.emit({ subType: 'newDocument', owner, documentId: doc.id, userId: actor.userId });
    return doc;
  }

  assignStatus(
    doc: DocumentRecord,
    typeId: number,
    effectiveDate: string,
    actor: Actor,
  ): StatusRecord {
    doc.status = this.newStatus(typeId, effectiveDate, actor);
    this.touch(doc, 'newStatus', actor);
    return doc.status;
  }

  addAttachment(
    doc: DocumentRecord,
    input: { name: string; blob: BlobSource; system?: boolean },
    actor: Actor,
  ): AttachmentRecord {
    const system = input.system ?? false;
    const attachment: AttachmentRecord = {
      n: this.store.nextId(system ? 'systemAttachment' : 'userAttachment'),
      system,
      name: input.name,
      creationDate: this.clock.today(),
      blob: input.blob,
    };
    doc.attachments.push(attachment);
    this.touch(doc, 'newAttachment', actor);
    return attachment;
  }

  /**
   * api.md names no event for a removed attachment. It is an edit of the document, and the
   * interface's example of an edited document carries `statusChange`, so that is what we send.
   */
  deleteAttachment(doc: DocumentRecord, ref: string, actor: Actor): AttachmentRecord {
    const attachment = findAttachment(doc, ref);
    if (attachment.system) {
      throw new SimError(403, 'forbidden', `System attachment ${ref} cannot be deleted`);
    }
    doc.attachments.splice(doc.attachments.indexOf(attachment), 1);
    discardBlob(attachment);
    this.touch(doc, 'statusChange', actor);
    return attachment;
  }

  /**
   * A service user renames or re-dates a document (the API has no route for it; the service's
   * own pages do). An edit of the document, sent as `statusChange` as a removed attachment is.
   */
  edit(
    doc: DocumentRecord,
    change: { readonly name?: string; readonly documentDate?: string },
    actor: Actor,
  ): void {
    if (change.name !== undefined) {
      if (change.name.trim() === '') throw unprocessable('name is required');
      doc.name = change.name;
    }
    if (change.documentDate !== undefined) doc.documentDate = change.documentDate;
    this.touch(doc, 'statusChange', actor);
  }

  delete(doc: DocumentRecord, actor: Actor): void {
    this.store.removeDocument(doc);
    clearBlobs(doc);
    this.store.emit({
      subType: 'deleteDocument',
      owner: doc.owner,
      documentId: doc.id,
      userId: actor.userId,
    });
  }

  private touch(
    doc: DocumentRecord,
    subType: 'newStatus' | 'newAttachment' | 'statusChange',
    actor: Actor,
  ): void {
    doc.updatedMicros = this.clock.nextChangeMicros();
    this.store.emit({ subType, owner: doc.owner, documentId: doc.id, userId: actor.userId });
  }

  private newStatus(typeId: number, effectiveDate: string, actor: Actor): StatusRecord {
    const type = this.store.statusType(typeId);
    if (!type) throw unprocessable(`Unknown status type ${typeId}`);
    return {
      id: this.store.nextId('status'),
      typeId,
      type: type.name,
      effectiveDate,
      createdBy: actor.name,
    };
  }

  private defaultTypeId(): number {
    const type = this.store.statusTypeByName(DEFAULT_STATUS_NAME);
    if (!type) throw unprocessable(`The firm has no ${DEFAULT_STATUS_NAME} status type`);
    return type.id;
  }
}

/**
 * Uploaded bytes go once nothing can reach them (links check that the attachment still exists),
 * so a long benchmark does not fill the disk. An open download keeps its file handle.
 */
function discardBlob(attachment: AttachmentRecord): void {
  if (attachment.blob.kind === 'file')
    rm(attachment.blob.path, { force: true }).catch(() => undefined);
}

/** Every attachment's bytes of a document that is gone. */
export function clearBlobs(doc: DocumentRecord): void {
  doc.attachments.forEach(discardBlob);
}

/**
 * `UA123` and `F456` name user and system attachments. A bare number is accepted for a user
 * attachment only; a system attachment needs its prefix (api.md).
 */
export function findAttachment(doc: DocumentRecord, ref: string): AttachmentRecord {
  const match = /^(UA|F)?(\d+)$/.exec(ref);
  const system = match?.[1] === 'F';
  const n = Number(match?.[2]);
  const found = match && doc.attachments.find((a) => a.n === n && a.system === system);
  if (!found) throw notFound(`No attachment ${ref} on document ${doc.id}`);
  return found;
}
