/**
 * Documents whose folder a pull is building (row 1), or building again after a person deleted it
 * while the service changed the document (rows 9 and 53), each recorded before the folder is
 * made and gone in the commit that agrees on the document. A crash between the folder's
 * appearance and that commit leaves a folder the base does not know (or, for a folder built
 * again, one the base still calls deleted). If the service then deletes a new document, nothing
 * else tells its folder from one copied in from elsewhere (row 6, never synced); and a folder
 * built again over a person's delete would be back with nothing to say why. With this record the
 * next sync of the entity completes the pull first (engine/settle-pulls.ts): the folder's base
 * is the one the pull would have committed, with the conflict it would have recorded, and the
 * ordinary rows judge what happened since.
 */
import type { ConflictSubject } from '../domain/sync-actions.js';
import type { OwnerRef, RemoteDocument } from '../domain/types.js';
import type { ConflictWinner } from './conflict-repo.js';
import type { Database } from './open-database.js';
import { ownerParams } from './row-helpers.js';

/** The conflict a pull's commit records (row 9: why a folder a person deleted is back). */
export interface PulledConflict {
  readonly winner: ConflictWinner;
  readonly detail: string;
  readonly subject: ConflictSubject;
}

export interface PullInDoubt {
  /** The document as the pull read it. */
  readonly document: RemoteDocument;
  readonly conflict: PulledConflict | null;
}

interface PullRow {
  document_json: string;
  conflict_json: string | null;
}

export class PullInDoubtRepo {
  readonly #add;
  readonly #forget;
  readonly #forOwner;
  readonly #clearOwner;

  constructor(db: Database) {
    this.#add = db.prepare(
      `INSERT INTO pulls_in_doubt
         (document_id, owner_kind, owner_id, document_json, conflict_json, started_at)
       VALUES (@documentId, @ownerKind, @ownerId, @json, @conflict, @at)
       ON CONFLICT (document_id) DO UPDATE SET document_json = excluded.document_json,
         conflict_json = excluded.conflict_json, started_at = excluded.started_at`,
    );
    this.#forget = db.prepare('DELETE FROM pulls_in_doubt WHERE document_id = ?');
    this.#forOwner = db.prepare<{ ownerKind: string; ownerId: string }, PullRow>(
      `SELECT document_json, conflict_json FROM pulls_in_doubt
       WHERE owner_kind = @ownerKind AND owner_id = @ownerId ORDER BY document_id`,
    );
    this.#clearOwner = db.prepare(
      'DELETE FROM pulls_in_doubt WHERE owner_kind = @ownerKind AND owner_id = @ownerId',
    );
  }

  /** A pull is about to build `document`'s folder; its commit is to record `conflict`. */
  add(document: RemoteDocument, at: number, conflict: PulledConflict | null = null): void {
    const { owner, id } = document;
    this.#add.run({
      ...ownerParams(owner),
      documentId: id,
      json: JSON.stringify(document),
      conflict: conflict ? JSON.stringify(conflict) : null,
      at,
    });
  }

  /** The document's agreed state was committed or removed: the pull is no longer in doubt. */
  forget(documentId: string): void {
    this.#forget.run(documentId);
  }

  /** The unfinished pulls of `owner`. */
  forOwner(owner: OwnerRef): PullInDoubt[] {
    return this.#forOwner.all(ownerParams(owner)).map((row) => ({
      document: JSON.parse(row.document_json) as RemoteDocument,
      conflict: row.conflict_json ? (JSON.parse(row.conflict_json) as PulledConflict) : null,
    }));
  }

  /** The entity is forgotten: so are its pulls. */
  clearOwner(owner: OwnerRef): void {
    this.#clearOwner.run(ownerParams(owner));
  }
}
