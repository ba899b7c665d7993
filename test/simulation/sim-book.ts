/**
 * The ledger's book of documents and attachments (sim-ledger.ts): the world as the seed found it
 * (every document of the service at its start, with its name, date and attachments: kind, name
 * and bytes), and every document and attachment made since, by whom (a service user, a person
 * in the folder, or docsync), with the document each went into. The chaos ledger knows bytes
 * alone; the book knows where they belong, so the end can ask not "are these bytes somewhere"
 * but "are they in their document, under their name, of their kind, on both sides"
 * (sim-losses.ts).
 */
import type { AttachmentKind, OwnerRef } from '../../src/domain/types.js';
import type { StateDump } from '../../src/simulator/index.js';

export type DocumentOrigin = 'start' | 'service user' | 'docsync';
export type FileOrigin = 'start' | 'service user' | 'person';

export interface BookDocument {
  readonly id: string;
  readonly owner: OwnerRef;
  readonly origin: DocumentOrigin;
}

/** Where a content was first put, by whom: its home, which the end holds it to. */
export interface BookFile {
  readonly sha: string;
  /** Null for a file of a folder a person made, before docsync made its document. */
  readonly documentId: string | null;
  readonly name: string;
  readonly kind: AttachmentKind;
  readonly origin: FileOrigin;
  /**
   * A person's bytes over a system form, or over the `(local edit)` copy kept of one: beside the
   * form as that copy, local by design.
   */
  readonly overSystem: boolean;
}

/** A document's name and date as the service should show them: set at its making, or since. */
export interface Details {
  readonly name: string;
  readonly documentDate: string;
}

/** A content in its document: the book's key for a file. */
export const fileKey = (documentId: string | null, sha: string) => `${documentId ?? '-'}:${sha}`;

export class SimBook {
  readonly documents = new Map<string, BookDocument>();
  /**
   * By document and sha256 (`fileKey`): each write's bytes are unique in a seed, but the forms
   * of two documents of one name, as the seed found them, are the same bytes.
   */
  readonly files = new Map<string, BookFile>();
  /** Contents a user deleted from a document (`fileKey`), on the side that held them. */
  readonly deleted = new Set<string>();
  /** The service's attachment ids of the files the book knows them for. */
  readonly attachmentIds = new Map<string, string>();
  /** Name and date of each document, as its maker or a service user last set them. */
  readonly details = new Map<string, Details>();
  /** Of `deleted`, the attachments a service user removed: they stay removed (sim-removals.ts). */
  readonly serviceRemoved = new Set<string>();
  /** Bytes a person put back from the trash (`docsync trash restore`): theirs to bring back. */
  readonly broughtBack = new Set<string>();
  /** Of `serviceRemoved`, the ledger's order number of each removal. */
  readonly serviceRemovedAt = new Map<string, number>();
  /**
   * A person's bytes (`fileKey`) written over a file of a folder, with the file they replaced
   * (`fileKey`): an edit of it, which beats its removal in the service (row 33).
   */
  readonly writtenOver = new Map<string, string>();
  /** Documents a service user deleted. */
  readonly serviceDeleted = new Set<string>();
  /**
   * Documents docsync made again from a folder, each with the one it took the place of (rows 12,
   * 19, 54), as the create's record in the outbox names it.
   */
  readonly madeAgain = new Map<string, string>();
  /**
   * Documents whose folder a person deleted, with the ledger's order number of the deletion:
   * what they typed in it before is gone with it (docsync may bring the folder back, row 9).
   */
  readonly folderDeletedAt = new Map<string, number>();
  /** The same deletions, by when (virtual time): a delete waits out its hold from then on. */
  readonly folderDeletedTime = new Map<string, number>();
  /** Documents whose held delete a person discarded: docsync brings their folder back (row 53). */
  readonly deleteDiscarded = new Set<string>();
  /**
   * New documents whose folder a pull placed, its commit not made yet: the pull parked before
   * it (`parked`), its placement failed after the rename (`failed`: the flush after it,
   * disk-faults.ts), or the daemon died while it was parked (`died`); the last two in doubt
   * until the entity's next sync settles them, which a person may delete the folder before.
   */
  readonly placing = new Map<string, 'parked' | 'failed' | 'died'>();
  /** Folders a person deleted while `placing`, by the deletion's order number: the pull may yet commit. */
  readonly #deletedWhilePlacing = new Map<string, number>();
  /**
   * Folders a person deleted after a pull of their new document placed them and before its
   * commit, which never came (the daemon died, before the delete or after it, or the placement
   * failed), and the next sync found no folder, by the deletion's order number
   * (`folderDeletedAt`): docsync cannot tell such a folder from one never placed, and downloads
   * the document again, with no conflict.
   */
  readonly deletedUncommitted = new Map<string, number>();

  /**
   * A pull of a new document placed its folder (`parked`: about to commit), or its placement
   * failed after the rename (`failed`). A pull placing again ends one left uncommitted: its
   * settlement found no folder.
   */
  placed(id: string, how: 'parked' | 'failed'): void {
    const before = this.placing.get(id);
    if (before === 'failed' || before === 'died') this.#placeAbandoned(id);
    this.placing.set(id, how);
  }

  /** The pull's commit, or its settlement in the next sync, agrees on the folder: docsync knows it. */
  placeCommitted(id: string): void {
    this.placing.delete(id);
    this.#deletedWhilePlacing.delete(id);
  }

  /**
   * The daemon died: pulls parked before their commit never make it, and stay in doubt until the
   * restart's sync settles them (settle-pulls.ts), by the folder it finds or not.
   */
  crashed(): void {
    for (const [id, how] of this.placing) if (how === 'parked') this.placing.set(id, 'died');
  }

  /** A person deleted a document's folder, as the ledger's record number `seq`. */
  folderDeleted(id: string, seq: number, at: number): void {
    this.folderDeletedAt.set(id, seq);
    this.folderDeletedTime.set(id, at);
    if (this.placing.has(id)) this.#deletedWhilePlacing.set(id, seq);
  }

  #placeAbandoned(id: string): void {
    this.placing.delete(id);
    const seq = this.#deletedWhilePlacing.get(id);
    this.#deletedWhilePlacing.delete(id);
    if (seq !== undefined) this.deletedUncommitted.set(id, seq);
  }

  /** Every document of the service as the seed begins, with its attachments. */
  startWorld(dump: StateDump): void {
    for (const doc of dump.documents) {
      this.document(doc, 'start');
      for (const a of doc.attachments) {
        this.file({ sha: a.sha256, documentId: doc.id, name: a.name, kind: a.kind }, 'start');
        this.attachmentIds.set(a.id, fileKey(doc.id, a.sha256));
      }
    }
  }

  document(
    doc: { id: string; owner: OwnerRef; name: string; documentDate: string },
    origin: DocumentOrigin,
  ): void {
    this.documents.set(doc.id, { id: doc.id, owner: doc.owner, origin });
    this.details.set(doc.id, { name: doc.name, documentDate: doc.documentDate });
  }

  /** A service user changed a document's name or date (the service's own edit, not docsync's). */
  detailsChanged(documentId: string, change: Partial<Details>): void {
    const before = this.details.get(documentId);
    if (before) this.details.set(documentId, { ...before, ...change });
  }

  file(
    file: Omit<BookFile, 'origin' | 'overSystem'> & { overSystem?: boolean },
    origin: FileOrigin,
    attachmentId?: string,
  ): void {
    const key = fileKey(file.documentId, file.sha);
    this.files.set(key, { overSystem: false, ...file, origin });
    if (attachmentId) this.attachmentIds.set(attachmentId, key);
  }

  /** A service user deleted this attachment, as the ledger's record number `seq`. */
  attachmentDeleted(attachmentId: string, seq: number): void {
    const key = this.attachmentIds.get(attachmentId);
    if (!key) return;
    this.deleted.add(key);
    this.serviceRemoved.add(key);
    this.serviceRemovedAt.set(key, seq);
  }
}
