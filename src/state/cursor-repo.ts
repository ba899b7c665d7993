/**
 * Per entity: the sync cursor (the service's `lastUpdatedTimestamp` of the newest change applied,
 * used as `updatedAfter`), when the entity last synced and last had a full reconcile, and its last
 * error. A cursor only moves forward: moving it back would be harmless re-work, but a bug that
 * moves it forward too far loses changes, so every write goes through one comparison here and
 * the engine advances it only after every action of the entity has been applied (docs/state.md).
 */

import { ownerKey } from '../domain/owner-key.js';
import type { OwnerKind, OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf, ownersJson } from './row-helpers.js';
import { compareServiceTimestamps, serviceTimestampKey } from './service-timestamp-order.js';

export interface CursorRecord {
  readonly owner: OwnerRef;
  /** `lastUpdatedTimestamp` as the service wrote it; null before the first successful sync. */
  readonly cursor: string | null;
  readonly lastSuccessAt: number | null;
  readonly lastFullReconcileAt: number | null;
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
}

interface CursorRow extends OwnerColumns {
  cursor: string | null;
  last_success_at: number | null;
  last_full_reconcile_at: number | null;
  last_error: string | null;
  last_error_at: number | null;
}

export class CursorRepo {
  readonly #get;
  readonly #getMany;
  readonly #list;
  readonly #ensure;
  readonly #setCursor;
  readonly #success;
  readonly #failure;
  readonly #advance;
  readonly #remove;
  readonly #oldest;
  readonly #successTimes;

  constructor(db: Database) {
    this.#get = db.prepare<[string, string], CursorRow>(
      'SELECT * FROM cursors WHERE owner_kind = ? AND owner_id = ?',
    );
    this.#getMany = db.prepare<[string], CursorRow>(
      `SELECT c.* FROM json_each(?) AS o JOIN cursors AS c
         ON c.owner_kind = o.value ->> 0 AND c.owner_id = o.value ->> 1`,
    );
    this.#list = db.prepare<[], CursorRow>('SELECT * FROM cursors ORDER BY owner_kind, owner_id');
    this.#successTimes = db
      .prepare<[], [OwnerKind, string, number | null]>(
        'SELECT owner_kind, owner_id, last_success_at FROM cursors',
      )
      .raw();
    this.#oldest = db.prepare<[], { n: number; oldest: number | null }>(
      // On the index of last syncs, where a never synced row (null) sorts first.
      `SELECT (SELECT count(*) FROM cursors) AS n,
         (SELECT coalesce(last_success_at, 0) FROM cursors ORDER BY last_success_at LIMIT 1)
           AS oldest`,
    );
    this.#ensure = db.prepare(
      'INSERT INTO cursors (owner_kind, owner_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
    );
    this.#setCursor = db.prepare(
      'UPDATE cursors SET cursor = ? WHERE owner_kind = ? AND owner_id = ?',
    );
    // Upserts: the first report for an entity creates its row in the same single statement.
    this.#success = db.prepare(
      `INSERT INTO cursors (owner_kind, owner_id, last_success_at, last_full_reconcile_at)
       VALUES (@kind, @id, @at, CASE WHEN @full THEN @at END)
       ON CONFLICT DO UPDATE SET last_success_at = @at, last_error = NULL, last_error_at = NULL,
         last_full_reconcile_at = CASE WHEN @full THEN @at ELSE last_full_reconcile_at END`,
    );
    this.#failure = db.prepare(
      `INSERT INTO cursors (owner_kind, owner_id, last_error, last_error_at)
       VALUES (@kind, @id, @error, @at)
       ON CONFLICT DO UPDATE SET last_error = @error, last_error_at = @at`,
    );
    this.#remove = db.prepare('DELETE FROM cursors WHERE owner_kind = ? AND owner_id = ?');
    this.#advance = db.transaction((owner: OwnerRef, cursor: string): boolean => {
      serviceTimestampKey(cursor); // throws on a malformed one, the first cursor included
      const current = this.#get.get(owner.kind, owner.id)?.cursor ?? null;
      if (current !== null && compareServiceTimestamps(cursor, current) <= 0) return false;
      this.#ensure.run(owner.kind, owner.id);
      this.#setCursor.run(cursor, owner.kind, owner.id);
      return true;
    });
  }

  get(owner: OwnerRef): CursorRecord | null {
    const row = this.#get.get(owner.kind, owner.id);
    return row ? toRecord(row) : null;
  }

  /** get for several entities in one statement, keyed by `ownerKey`; absent when there is none. */
  getMany(owners: readonly OwnerRef[]): Map<string, CursorRecord> {
    const records = new Map<string, CursorRecord>();
    for (const row of this.#getMany.iterate(ownersJson(owners))) {
      const record = toRecord(row);
      records.set(ownerKey(record.owner), record);
    }
    return records;
  }

  list(): CursorRecord[] {
    return this.#list.all().map(toRecord);
  }

  /**
   * When each entity last synced, by `ownerKey` (0: never), without the rest of the rows: a
   * poll round orders the firm by it at its start.
   */
  lastSuccessTimes(): Map<string, number> {
    const times = new Map<string, number>();
    for (const [kind, id, at] of this.#successTimes.iterate())
      times.set(ownerKey({ kind, id }), at ?? 0);
    return times;
  }

  /**
   * When the least recently synced entity was last synced (0: one never was); null with no
   * entity. One statement: `/metrics` asks at every scrape, and listing every cursor for it
   * would hold the event loop each time.
   */
  oldestSuccessAt(): number | null {
    const row = this.#oldest.get()!;
    return row.n === 0 ? null : (row.oldest ?? 0);
  }

  /**
   * Moves the cursor to `cursor` if that is later than the stored one; returns whether it moved.
   * An equal or earlier cursor (a late webhook, a details timestamp with less precision) is a
   * no-op. A malformed timestamp throws rather than being stored.
   */
  advance(owner: OwnerRef, cursor: string): boolean {
    return this.#advance.immediate(owner, cursor);
  }

  /** Records a successful sync of the entity (clears its last error). */
  markSynced(owner: OwnerRef, at: number, options: { fullReconcile?: boolean } = {}): void {
    this.#success.run({ at, full: options.fullReconcile ? 1 : 0, kind: owner.kind, id: owner.id });
  }

  /** Records why the entity's sync failed; the cursor stays where it was. */
  markFailed(owner: OwnerRef, error: string, at: number): void {
    this.#failure.run({ error, at, kind: owner.kind, id: owner.id });
  }

  /** Forgets the entity's cursor: its next sync lists everything again. */
  remove(owner: OwnerRef): boolean {
    return this.#remove.run(owner.kind, owner.id).changes > 0;
  }
}

function toRecord(row: CursorRow): CursorRecord {
  return {
    owner: ownerOf(row),
    cursor: row.cursor,
    lastSuccessAt: row.last_success_at,
    lastFullReconcileAt: row.last_full_reconcile_at,
    lastError: row.last_error,
    lastErrorAt: row.last_error_at,
  };
}
