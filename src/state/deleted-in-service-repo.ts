/**
 * Documents docsync itself deleted in the service, each recorded in the commit that removed its
 * agreed state. A folder put back after its delete was sent (a race no last look can close: the
 * request had left) names a document the service no longer has and the base no longer knows;
 * without this record it would read as a folder from elsewhere (row 6) and stay unsynced for
 * ever. With it, the planner knows the folder is the person's document come back, and creates it
 * again from the folder (row 19). A record leaves in the commit that creates it again, or with
 * its entity. A document docsync created from a folder, which the service deleted before a crash
 * let the create be settled, is recorded the same way: the folder already names it, and nothing
 * else does (engine/resolve-in-doubt.ts).
 */
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { ownerParams } from './row-helpers.js';

/** A document delete the service accepted: whose, and where its folder was. */
export interface DeletedInService {
  readonly owner: OwnerRef;
  readonly documentId: string;
  readonly folder: string;
}

export class DeletedInServiceRepo {
  readonly #add;
  readonly #forget;
  readonly #among;
  readonly #clearOwner;

  constructor(db: Database) {
    this.#add = db.prepare(
      `INSERT INTO deleted_in_service (document_id, owner_kind, owner_id, folder, deleted_at)
       VALUES (@documentId, @ownerKind, @ownerId, @folder, @at)
       ON CONFLICT (document_id) DO UPDATE SET folder = excluded.folder,
         deleted_at = excluded.deleted_at`,
    );
    this.#forget = db.prepare('DELETE FROM deleted_in_service WHERE document_id = ?');
    this.#among = db
      .prepare<{ ownerKind: string; ownerId: string; ids: string }, string>(
        `SELECT document_id FROM deleted_in_service
         WHERE owner_kind = @ownerKind AND owner_id = @ownerId
           AND document_id IN (SELECT value FROM json_each(@ids))`,
      )
      .pluck();
    this.#clearOwner = db.prepare(
      'DELETE FROM deleted_in_service WHERE owner_kind = @ownerKind AND owner_id = @ownerId',
    );
  }

  /** Records a delete; call inside the commit that removes the document's agreed state. */
  add(deleted: DeletedInService, at: number): void {
    const { owner, documentId, folder } = deleted;
    this.#add.run({ ...ownerParams(owner), documentId, folder, at });
  }

  /** The document was created again from its folder (its old id left the agreed state). */
  forget(documentId: string): void {
    this.#forget.run(documentId);
  }

  /** Which of `ids` docsync deleted in `owner`'s service. */
  among(owner: OwnerRef, ids: readonly string[]): Set<string> {
    if (ids.length === 0) return new Set();
    return new Set(this.#among.all({ ...ownerParams(owner), ids: JSON.stringify(ids) }));
  }

  /** The entity is forgotten: so are its deletes. */
  clearOwner(owner: OwnerRef): void {
    this.#clearOwner.run(ownerParams(owner));
  }
}
