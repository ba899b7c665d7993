/**
 * Conflicts kept: when both sides changed the same thing, the newer change wins and the losing
 * version is kept as a conflict copy (daemon.md). This is the log of those copies, for the status
 * page and `docsync status`, so a person can find and resolve them.
 */
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf } from './row-helpers.js';

export type ConflictWinner = 'local' | 'remote';

export interface NewConflict {
  readonly owner: OwnerRef;
  readonly documentId: string;
  readonly attachmentId?: string | null;
  /** The conflict copy, relative to the root, e.g. `…/Minutes (conflict 2024-05-01 0930).pdf`. */
  readonly copyPath: string;
  readonly winner: ConflictWinner;
  /** One line for the operator: what changed on each side. */
  readonly detail?: string | null;
  readonly occurredAt: number;
}

export interface ConflictRecord extends Required<NewConflict> {
  readonly id: number;
}

interface ConflictRow extends OwnerColumns {
  id: number;
  document_id: string;
  attachment_id: string | null;
  copy_path: string;
  winner: ConflictWinner;
  detail: string | null;
  occurred_at: number;
}

export class ConflictRepo {
  readonly #insert;
  readonly #recent;
  readonly #forDocument;
  readonly #count;
  readonly #prune;

  constructor(db: Database) {
    this.#insert = db.prepare(
      `INSERT INTO conflicts (owner_kind, owner_id, document_id, attachment_id, copy_path, winner,
         detail, occurred_at)
       VALUES (@ownerKind, @ownerId, @documentId, @attachmentId, @copyPath, @winner, @detail,
         @occurredAt)`,
    );
    this.#recent = db.prepare<[number], ConflictRow>(
      'SELECT * FROM conflicts ORDER BY occurred_at DESC, id DESC LIMIT ?',
    );
    this.#forDocument = db.prepare<[string], ConflictRow>(
      'SELECT * FROM conflicts WHERE document_id = ? ORDER BY occurred_at DESC, id DESC',
    );
    this.#count = db.prepare<[], number>('SELECT count(*) FROM conflicts').pluck();
    this.#prune = db.prepare('DELETE FROM conflicts WHERE occurred_at < ?');
  }

  record(conflict: NewConflict): number {
    const info = this.#insert.run({
      ownerKind: conflict.owner.kind,
      ownerId: conflict.owner.id,
      documentId: conflict.documentId,
      attachmentId: conflict.attachmentId ?? null,
      copyPath: conflict.copyPath,
      winner: conflict.winner,
      detail: conflict.detail ?? null,
      occurredAt: conflict.occurredAt,
    });
    return Number(info.lastInsertRowid);
  }

  /** Newest first. */
  list(limit = 100): ConflictRecord[] {
    return this.#recent.all(limit).map(toRecord);
  }

  listForDocument(documentId: string): ConflictRecord[] {
    return this.#forDocument.all(documentId).map(toRecord);
  }

  count(): number {
    return this.#count.get() ?? 0;
  }

  /** Forgets conflicts older than `before` (the copies themselves stay in the folder). */
  prune(before: number): number {
    return this.#prune.run(before).changes;
  }
}

function toRecord(row: ConflictRow): ConflictRecord {
  return {
    id: row.id,
    owner: ownerOf(row),
    documentId: row.document_id,
    attachmentId: row.attachment_id,
    copyPath: row.copy_path,
    winner: row.winner,
    detail: row.detail,
    occurredAt: row.occurred_at,
  };
}
