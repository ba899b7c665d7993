/**
 * Deletes a safety rail holds (domain/held-deletes.ts), with what a person decided about them.
 * The daemon writes the holds; `docsync deletes` (another process, beside the daemon: WAL lets
 * it write while the daemon reads) writes the decisions; the daemon reads them back and acts on
 * them at its next sync of the entity. A row leaves when its sync settled it.
 */
import type {
  DeleteSide,
  HeldDecision,
  HeldDelete,
  HeldDeleteFacts,
} from '../domain/held-deletes.js';
import type { OwnerKind, OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf } from './row-helpers.js';

interface HeldRow extends OwnerColumns {
  document_id: string;
  side: DeleteSide;
  folder: string;
  document_name: string;
  reason: string;
  first_held_at: number;
  last_held_at: number;
  decision: HeldDecision | null;
  decided_at: number | null;
}

export interface WaitingDelete extends HeldDelete {
  /** How many holds of this delete's entity wait for a decision. */
  readonly entityWaiting: number;
  /** When the newest of them was first held: with the count, what an approval of them saw. */
  readonly entityNewest: number;
}

export interface HeldTally {
  /** Holds nobody has decided on yet. */
  readonly waiting: number;
  /** The entities those belong to. */
  readonly entities: number;
  /** When the newest of those was first held; null when none waits. */
  readonly newest: number | null;
  /** Holds approved or discarded, which their entity's next sync carries out. */
  readonly decided: number;
}

export class HeldDeleteRepo {
  readonly #db: Database;
  readonly #hold;
  readonly #list;
  readonly #decided;
  readonly #waiting;
  readonly #tally;
  readonly #decide;
  readonly #remove;
  readonly #clearOwner;

  constructor(db: Database) {
    this.#db = db;
    // A delete held again keeps when it was first held and any decision already taken.
    this.#hold = db.prepare(
      `INSERT INTO held_deletes (document_id, side, owner_kind, owner_id, folder, document_name,
         reason, first_held_at, last_held_at)
       VALUES (@documentId, @side, @ownerKind, @ownerId, @folder, @documentName, @reason, @at, @at)
       ON CONFLICT (document_id, side) DO UPDATE SET folder = excluded.folder,
         document_name = excluded.document_name, reason = excluded.reason,
         last_held_at = excluded.last_held_at`,
    );
    this.#list = db.prepare<[], HeldRow>(
      'SELECT * FROM held_deletes ORDER BY first_held_at, owner_kind, owner_id, folder',
    );
    this.#decided = db.prepare<[], HeldRow>(
      'SELECT * FROM held_deletes WHERE decision IS NOT NULL',
    );
    // An entity's holds together, the entity held longest first: the page's buttons are per
    // entity, and each row knows how many its entity has waiting beyond the rows shown, and the
    // newest of them: what the entity's button says it approves.
    this.#waiting = db.prepare<
      [number],
      HeldRow & { entity_waiting: number; entity_newest: number }
    >(
      `SELECT *, count(*) OVER entity AS entity_waiting, max(first_held_at) OVER entity AS entity_newest,
         min(first_held_at) OVER entity AS since
       FROM held_deletes WHERE decision IS NULL
       WINDOW entity AS (PARTITION BY owner_kind, owner_id)
       ORDER BY since, owner_kind, owner_id, folder LIMIT ?`,
    );
    this.#tally = db.prepare<[], HeldTally>(
      `SELECT count(*) FILTER (WHERE decision IS NULL) AS waiting,
         count(DISTINCT CASE WHEN decision IS NULL THEN owner_kind || ' ' || owner_id END) AS entities,
         max(first_held_at) FILTER (WHERE decision IS NULL) AS newest,
         count(*) FILTER (WHERE decision IS NOT NULL) AS decided
       FROM held_deletes`,
    );
    this.#decide = db.prepare<[HeldDecision, number, string, DeleteSide]>(
      'UPDATE held_deletes SET decision = ?, decided_at = ? WHERE document_id = ? AND side = ?',
    );
    this.#remove = db.prepare<[string, DeleteSide]>(
      'DELETE FROM held_deletes WHERE document_id = ? AND side = ?',
    );
    this.#clearOwner = db.prepare<[OwnerKind, string]>(
      'DELETE FROM held_deletes WHERE owner_kind = ? AND owner_id = ?',
    );
  }

  /** Records the deletes the rails hold now, in one commit. */
  hold(held: readonly HeldDeleteFacts[], at: number): void {
    if (held.length === 0) return;
    this.#db.transaction(() => {
      for (const h of held) {
        this.#hold.run({
          documentId: h.documentId,
          side: h.side,
          ownerKind: h.owner.kind,
          ownerId: h.owner.id,
          folder: h.folder,
          documentName: h.documentName,
          reason: h.reason,
          at,
        });
      }
    })();
  }

  /** Oldest hold first. */
  list(): HeldDelete[] {
    return this.#list.all().map(toHeld);
  }

  /** The holds a person has decided on and no sync has settled yet. */
  decided(): HeldDelete[] {
    return this.#decided.all().map(toHeld);
  }

  /**
   * The holds nobody has decided on, at most `limit`, an entity's together; `entityWaiting` is
   * how many its entity has in all.
   */
  waiting(limit: number): WaitingDelete[] {
    return this.#waiting.all(limit).map((row) => ({
      ...toHeld(row),
      entityWaiting: row.entity_waiting,
      entityNewest: row.entity_newest,
    }));
  }

  /**
   * How many holds wait for a decision, of how many entities, the newest of them, and how many
   * are decided.
   */
  tally(): HeldTally {
    return this.#tally.get() ?? { waiting: 0, entities: 0, newest: null, decided: 0 };
  }

  /** Records a decision on each of `held`, in one commit. */
  decide(
    held: readonly Pick<HeldDelete, 'documentId' | 'side'>[],
    decision: HeldDecision,
    at: number,
  ) {
    this.#db.transaction(() => {
      for (const h of held) this.#decide.run(decision, at, h.documentId, h.side);
    })();
  }

  /** Forgets the holds a sync settled. */
  remove(held: readonly Pick<HeldDelete, 'documentId' | 'side'>[]): void {
    if (held.length === 0) return;
    this.#db.transaction(() => {
      for (const h of held) this.#remove.run(h.documentId, h.side);
    })();
  }

  clearOwner(owner: OwnerRef): void {
    this.#clearOwner.run(owner.kind, owner.id);
  }
}

function toHeld(row: HeldRow): HeldDelete {
  return {
    owner: ownerOf(row),
    documentId: row.document_id,
    side: row.side,
    folder: row.folder,
    documentName: row.document_name,
    reason: row.reason,
    firstHeldAt: row.first_held_at,
    lastHeldAt: row.last_held_at,
    decision: row.decision,
    decidedAt: row.decided_at,
  };
}
