/**
 * Deletions a `deleteDocument` webhook announced, kept until a sync of their entity applied them.
 * A listing filtered by time never shows a deletion, so the webhook is the
 * only word of it short of the nightly full listing: kept here, it is not lost when the sync it
 * asked for fails, and any later sync of the entity (a retry, a poll, a person's "Sync now")
 * asks the service about each one and applies it. A row leaves when its sync settled it: the
 * document is gone from the agreed state, or the service still has it.
 */
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { ownerParams } from './row-helpers.js';

export class AnnouncedDeletionRepo {
  readonly #db: Database;
  readonly #add;
  readonly #forOwner;
  readonly #remove;
  readonly #count;
  readonly #clearOwner;

  constructor(db: Database) {
    this.#db = db;
    this.#add = db.prepare(
      `INSERT INTO announced_deletions (owner_kind, owner_id, document_id, event_id, announced_at)
       VALUES (@ownerKind, @ownerId, @documentId, @eventId, @at)
       ON CONFLICT DO NOTHING`,
    );
    this.#forOwner = db
      .prepare<{ ownerKind: string; ownerId: string }, string>(
        `SELECT document_id FROM announced_deletions
         WHERE owner_kind = @ownerKind AND owner_id = @ownerId ORDER BY document_id`,
      )
      .pluck();
    this.#remove = db.prepare(
      `DELETE FROM announced_deletions
       WHERE owner_kind = @ownerKind AND owner_id = @ownerId AND document_id = @documentId`,
    );
    this.#count = db.prepare<[], number>('SELECT count(*) FROM announced_deletions').pluck();
    this.#clearOwner = db.prepare(
      'DELETE FROM announced_deletions WHERE owner_kind = @ownerKind AND owner_id = @ownerId',
    );
  }

  /** Keeps the deletions an event named for `owner` (one already kept stays as it was). */
  add(owner: OwnerRef, documentIds: readonly string[], eventId: string, at: number): void {
    this.#db.transaction(() => {
      for (const documentId of documentIds)
        this.#add.run({ ...ownerParams(owner), documentId, eventId, at });
    })();
  }

  /** The documents of `owner` announced deleted and not settled yet. */
  forOwner(owner: OwnerRef): string[] {
    return this.#forOwner.all(ownerParams(owner));
  }

  /** Settled: applied, or the service still has the document. */
  remove(owner: OwnerRef, documentIds: Iterable<string>): void {
    this.#db.transaction(() => {
      for (const documentId of documentIds) this.#remove.run({ ...ownerParams(owner), documentId });
    })();
  }

  /** The entity is forgotten: so are the deletions announced for it. */
  clearOwner(owner: OwnerRef): void {
    this.#clearOwner.run(ownerParams(owner));
  }

  count(): number {
    return this.#count.get() ?? 0;
  }
}
