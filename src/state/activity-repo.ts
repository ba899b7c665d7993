/**
 * The activity feed: what the executor changed, one row per file or document change, newest
 * last. Append-only and bounded: each write drops what falls beyond the newest ACTIVITY_KEEP
 * rows, one range delete on the primary key, so the table never needs a housekeeping pass and
 * a first sync of 100,000 documents leaves only its last changes.
 */
import type { ActivityChange, ActivityItem } from '../domain/activity.js';
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf } from './row-helpers.js';

/** Rows kept: a busy week of a large firm, and a few seconds to page through on the page. */
export const ACTIVITY_KEEP = 10_000;

export interface ActivityRecord extends ActivityItem {
  readonly id: number;
  readonly at: number;
  readonly owner: OwnerRef;
  /** The entity's name as the state knows it now; null when it left the service. */
  readonly entityName: string | null;
}

interface ActivityRow extends OwnerColumns {
  id: number;
  at: number;
  document_id: string | null;
  document_name: string;
  change: ActivityChange;
  file: string | null;
  detail: string | null;
  entity_name: string | null;
}

export class ActivityRepo {
  readonly #insert;
  readonly #trim;
  readonly #recent;
  readonly #record;

  constructor(db: Database) {
    this.#insert = db.prepare(
      `INSERT INTO activity (at, owner_kind, owner_id, document_id, document_name, change, file,
         detail)
       VALUES (@at, @ownerKind, @ownerId, @documentId, @documentName, @change, @file, @detail)`,
    );
    this.#trim = db.prepare('DELETE FROM activity WHERE id <= ?');
    this.#recent = db.prepare<[number, number], ActivityRow>(
      `SELECT a.*, e.name AS entity_name FROM activity AS a
         LEFT JOIN entities AS e ON e.kind = a.owner_kind AND e.id = a.owner_id
       WHERE a.id < ? ORDER BY a.id DESC LIMIT ?`,
    );
    this.#record = db.transaction((owner: OwnerRef, items: readonly ActivityItem[], at: number) => {
      let last = 0;
      for (const item of items) {
        const info = this.#insert.run({ at, ownerKind: owner.kind, ownerId: owner.id, ...item });
        last = Number(info.lastInsertRowid);
      }
      this.#trim.run(last - ACTIVITY_KEEP);
    });
  }

  /** Records what one action changed, in one commit. */
  record(owner: OwnerRef, items: readonly ActivityItem[], at: number): void {
    if (items.length > 0) this.#record.immediate(owner, items, at);
  }

  /** Newest first; `before` an id to page back from (absent: from the newest). */
  recent(limit: number, before?: number): ActivityRecord[] {
    return this.#recent.all(before ?? Number.MAX_SAFE_INTEGER, limit).map((row) => ({
      id: row.id,
      at: row.at,
      owner: ownerOf(row),
      entityName: row.entity_name,
      documentId: row.document_id,
      documentName: row.document_name,
      change: row.change,
      file: row.file,
      detail: row.detail,
    }));
  }
}
