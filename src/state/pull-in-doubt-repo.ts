/**
 * New documents whose folder a pull is building (row 1), each recorded before the folder is
 * made and gone in the commit that agrees on the document. A crash between the folder's
 * appearance and that commit leaves a folder naming a document the base does not know; if the
 * service then deletes the document, nothing else tells that folder from one copied in from
 * elsewhere (row 6, never synced). With this record the next sync of the entity completes the
 * pull first (engine/settle-pulls.ts): the folder's base is the one the pull would have
 * committed, and the ordinary rows judge what happened since.
 */
import type { OwnerRef, RemoteDocument } from '../domain/types.js';
import type { Database } from './open-database.js';
import { ownerParams } from './row-helpers.js';

export class PullInDoubtRepo {
  readonly #add;
  readonly #forget;
  readonly #forOwner;
  readonly #clearOwner;

  constructor(db: Database) {
    this.#add = db.prepare(
      `INSERT INTO pulls_in_doubt (document_id, owner_kind, owner_id, document_json, started_at)
       VALUES (@documentId, @ownerKind, @ownerId, @json, @at)
       ON CONFLICT (document_id) DO UPDATE SET document_json = excluded.document_json,
         started_at = excluded.started_at`,
    );
    this.#forget = db.prepare('DELETE FROM pulls_in_doubt WHERE document_id = ?');
    this.#forOwner = db
      .prepare<{ ownerKind: string; ownerId: string }, string>(
        `SELECT document_json FROM pulls_in_doubt
         WHERE owner_kind = @ownerKind AND owner_id = @ownerId ORDER BY document_id`,
      )
      .pluck();
    this.#clearOwner = db.prepare(
      'DELETE FROM pulls_in_doubt WHERE owner_kind = @ownerKind AND owner_id = @ownerId',
    );
  }

  /** A pull is about to build `document`'s folder. */
  add(document: RemoteDocument, at: number): void {
    const { owner, id } = document;
    this.#add.run({ ...ownerParams(owner), documentId: id, json: JSON.stringify(document), at });
  }

  /** The document's agreed state was committed or removed: the pull is no longer in doubt. */
  forget(documentId: string): void {
    this.#forget.run(documentId);
  }

  /** The documents of `owner` as their unfinished pulls read them. */
  forOwner(owner: OwnerRef): RemoteDocument[] {
    return this.#forOwner.all(ownerParams(owner)).map((json) => JSON.parse(json) as RemoteDocument);
  }

  /** The entity is forgotten: so are its pulls. */
  clearOwner(owner: OwnerRef): void {
    this.#clearOwner.run(ownerParams(owner));
  }
}
