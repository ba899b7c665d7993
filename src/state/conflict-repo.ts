/**
 * Conflicts kept: when both sides changed the same thing, the newer change wins and the losing
 * version is kept as a conflict copy (daemon.md). This is the log of those copies, for the status
 * page, `docsync status` and `docsync conflicts`, so a person can find and resolve them. A
 * conflict is open until it is resolved (`docsync conflicts resolve`); the resolved ones stay in
 * the log until housekeeping prunes them.
 */
import type { ConflictSubject } from '../domain/sync-actions.js';
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf } from './row-helpers.js';

export type ConflictWinner = 'local' | 'remote';
export type ConflictResolution = 'keep-mine' | 'keep-theirs' | 'keep-both';

export interface NewConflict {
  readonly owner: OwnerRef;
  readonly documentId: string;
  readonly attachmentId?: string | null;
  /** The conflict copy, relative to the root, e.g. `…/Minutes (conflict 2024-05-01 0930).pdf`. */
  readonly copyPath: string;
  readonly winner: ConflictWinner;
  /** One line for the operator: what changed on each side. */
  readonly detail?: string | null;
  /** What the sides disagreed on; null for a conflict recorded before docsync kept it. */
  readonly subject?: ConflictSubject | null;
  readonly occurredAt: number;
}

export interface ConflictRecord extends Required<NewConflict> {
  readonly id: number;
  /** How a person resolved it; null while it is open. */
  readonly resolution: ConflictResolution | null;
  readonly resolvedAt: number | null;
}

interface ConflictRow extends OwnerColumns {
  id: number;
  document_id: string;
  attachment_id: string | null;
  copy_path: string;
  winner: ConflictWinner;
  detail: string | null;
  occurred_at: number;
  subject: ConflictSubject['kind'] | null;
  subject_value: string | null;
  resolution: ConflictResolution | null;
  resolved_at: number | null;
}

export class ConflictRepo {
  readonly #insert;
  readonly #recent;
  readonly #recentOpen;
  readonly #get;
  readonly #copiesOf;
  readonly #countOpen;
  readonly #resolve;
  readonly #reopen;
  readonly #prune;

  constructor(db: Database) {
    this.#insert = db.prepare(
      `INSERT INTO conflicts (owner_kind, owner_id, document_id, attachment_id, copy_path, winner,
         detail, occurred_at, subject, subject_value)
       VALUES (@ownerKind, @ownerId, @documentId, @attachmentId, @copyPath, @winner, @detail,
         @occurredAt, @subject, @subjectValue)`,
    );
    this.#recent = db.prepare<[number], ConflictRow>(
      'SELECT * FROM conflicts ORDER BY occurred_at DESC, id DESC LIMIT ?',
    );
    this.#recentOpen = db.prepare<[number], ConflictRow>(
      'SELECT * FROM conflicts WHERE resolved_at IS NULL ORDER BY occurred_at DESC, id DESC LIMIT ?',
    );
    this.#get = db.prepare<[number], ConflictRow>('SELECT * FROM conflicts WHERE id = ?');
    this.#copiesOf = db
      .prepare<[string], string>('SELECT copy_path FROM conflicts WHERE document_id = ?')
      .pluck();
    this.#countOpen = db
      .prepare<[], number>('SELECT count(*) FROM conflicts WHERE resolved_at IS NULL')
      .pluck();
    this.#resolve = db.prepare<[ConflictResolution, number, number]>(
      'UPDATE conflicts SET resolution = ?, resolved_at = ? WHERE id = ? AND resolved_at IS NULL',
    );
    this.#reopen = db.prepare<[number]>(
      'UPDATE conflicts SET resolution = NULL, resolved_at = NULL WHERE id = ?',
    );
    // Only resolved ones, by when they were resolved: an open conflict is a person's to-do,
    // however old, and a record resolved yesterday is still what explains the copy.
    this.#prune = db.prepare(
      'DELETE FROM conflicts WHERE resolved_at IS NOT NULL AND resolved_at < ?',
    );
  }

  record(conflict: NewConflict): number {
    const subject = conflict.subject ?? null;
    const info = this.#insert.run({
      ownerKind: conflict.owner.kind,
      ownerId: conflict.owner.id,
      documentId: conflict.documentId,
      attachmentId: conflict.attachmentId ?? null,
      copyPath: conflict.copyPath,
      winner: conflict.winner,
      detail: conflict.detail ?? null,
      occurredAt: conflict.occurredAt,
      subject: subject?.kind ?? null,
      subjectValue: subject ? subjectValue(subject) : null,
    });
    return Number(info.lastInsertRowid);
  }

  /** Newest first; only the open ones with `{ open: true }`. */
  list(limit = 100, options: { open?: boolean } = {}): ConflictRecord[] {
    return (options.open ? this.#recentOpen : this.#recent).all(limit).map(toRecord);
  }

  get(id: number): ConflictRecord | null {
    const row = this.#get.get(id);
    return row ? toRecord(row) : null;
  }

  /** The copy paths of every conflict of the document recorded, open or resolved. */
  copiesOf(documentId: string): string[] {
    return this.#copiesOf.all(documentId);
  }

  /** Open conflicts: those nobody has resolved yet. */
  count(): number {
    return this.#countOpen.get() ?? 0;
  }

  /** Marks an open conflict resolved; false when it was not open (resolved meanwhile). */
  markResolved(id: number, resolution: ConflictResolution, at: number): boolean {
    return this.#resolve.run(resolution, at, id).changes === 1;
  }

  /** Opens a conflict again: a resolution that claimed it (markResolved) did not get through. */
  reopen(id: number): void {
    this.#reopen.run(id);
  }

  /**
   * Forgets conflicts resolved before `before` (the copies themselves stay in the folder); open
   * ones stay whatever their age.
   */
  prune(before: number): number {
    return this.#prune.run(before).changes;
  }
}

function subjectValue(subject: ConflictSubject): string | null {
  switch (subject.kind) {
    case 'file':
    case 'local-edit':
    case 'attachment':
      return subject.file;
    case 'status':
      return subject.lost;
    case 'document':
      return null;
  }
}

/** The subject read back through the same shape it was written with (`subjectValue`). */
function subjectOf(row: ConflictRow): ConflictSubject | null {
  switch (row.subject) {
    case null:
      return null;
    case 'file':
    case 'local-edit':
    case 'attachment':
      return { kind: row.subject, file: row.subject_value ?? '' };
    case 'status':
      return { kind: 'status', lost: row.subject_value };
    case 'document':
      return { kind: 'document' };
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
    subject: subjectOf(row),
    occurredAt: row.occurred_at,
    resolution: row.resolution,
    resolvedAt: row.resolved_at,
  };
}
