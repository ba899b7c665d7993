/**
 * Local work waiting for its sync: per entity, what the daemon found in its folder
 * and not in the agreed state (domain/local-work.ts), from when the daemon's look found it until
 * the entity's sync ended. Kept in the state, not in the daemon's memory, so `docsync status` in
 * another process says "Local changes waiting" instead of "Pending pushes: 0" while files left
 * by a stop wait for their upload.
 */
import type { LocalWork } from '../domain/local-work.js';
import type { OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf, ownerParams } from './row-helpers.js';

export interface LocalWorkRecord extends LocalWork {
  readonly owner: OwnerRef;
  readonly foundAt: number;
}

export interface LocalWorkTally extends LocalWork {
  readonly entities: number;
  /** When the oldest of it was found; null when nothing waits. */
  readonly since: number | null;
}

interface Row extends OwnerColumns {
  documents: number;
  files: number;
  found_at: number;
}

export class LocalWorkRepo {
  readonly #put;
  readonly #remove;
  readonly #removeAll;
  readonly #list;
  readonly #tally;

  constructor(db: Database) {
    this.#put = db.prepare(
      `INSERT INTO local_work (owner_kind, owner_id, documents, files, found_at)
       VALUES (@ownerKind, @ownerId, @documents, @files, @foundAt)
       ON CONFLICT (owner_kind, owner_id) DO UPDATE SET documents = excluded.documents,
         files = excluded.files, found_at = excluded.found_at`,
    );
    this.#remove = db.prepare(
      'DELETE FROM local_work WHERE owner_kind = @ownerKind AND owner_id = @ownerId',
    );
    this.#removeAll = db.prepare('DELETE FROM local_work');
    this.#list = db.prepare<[number], Row>(
      'SELECT * FROM local_work ORDER BY files DESC, documents DESC, owner_kind, owner_id LIMIT ?',
    );
    this.#tally = db.prepare<
      [],
      { entities: number; documents: number | null; files: number | null; since: number | null }
    >(
      `SELECT count(*) AS entities, sum(documents) AS documents, sum(files) AS files,
         min(found_at) AS since FROM local_work`,
    );
  }

  /** What the entity's folder holds for a sync now; null: nothing (its row goes). */
  record(owner: OwnerRef, work: LocalWork | null, at: number): void {
    if (work === null) this.clear(owner);
    else this.#put.run({ ...ownerParams(owner), ...work, foundAt: at });
  }

  /** Its sync ended, or the entity is forgotten. */
  clear(owner: OwnerRef): void {
    this.#remove.run(ownerParams(owner));
  }

  /** A cycle over every entity ended. */
  clearAll(): void {
    this.#removeAll.run();
  }

  /** The entities with the most waiting first. */
  list(limit: number): LocalWorkRecord[] {
    return this.#list.all(limit).map((row) => ({
      owner: ownerOf(row),
      documents: row.documents,
      files: row.files,
      foundAt: row.found_at,
    }));
  }

  tally(): LocalWorkTally {
    const row = this.#tally.get()!;
    return {
      entities: row.entities,
      documents: row.documents ?? 0,
      files: row.files ?? 0,
      since: row.since,
    };
  }
}
