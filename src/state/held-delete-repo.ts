/**
 * Deletes a safety rail holds (domain/held-deletes.ts), with what a person decided about them,
 * and, under the daemon, the deletes of removed folders waiting their hold time (`due_at`; null
 * for a rail's hold). The daemon writes the holds; `docsync deletes` (another process, beside
 * the daemon: WAL lets it write while the daemon reads) writes the decisions; the daemon reads
 * them back and acts on them at its next sync of the entity. A row leaves when its sync settled
 * it.
 */
import type { SideCounts } from '../domain/check-safety.js';
import type {
  DeleteSide,
  HeldDecision,
  HeldDelete,
  HeldDeleteFacts,
  WaitingDeleteFacts,
} from '../domain/held-deletes.js';
import type { OwnerKind, OwnerRef } from '../domain/types.js';
import type { Database } from './open-database.js';
import { type OwnerColumns, ownerOf, ownerParams } from './row-helpers.js';

interface HeldRow extends OwnerColumns {
  document_id: string;
  side: DeleteSide;
  folder: string;
  document_name: string;
  reason: string;
  due_at: number | null;
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
  /** Holds nobody has decided on yet (not those waiting their hold time). */
  readonly waiting: number;
  /** The entities those belong to. */
  readonly entities: number;
  /** When the newest of those was first held; null when none waits. */
  readonly newest: number | null;
  /** Holds approved or discarded, which their entity's next sync carries out. */
  readonly decided: number;
  /** Deletes waiting their hold time, and when the last of them falls due (null: none). */
  readonly inHold: number;
  readonly inHoldUntil: number | null;
}

export class HeldDeleteRepo {
  readonly #db: Database;
  readonly #hold;
  readonly #wait;
  readonly #holdWaiting;
  readonly #undecided;
  readonly #inHold;
  readonly #endings;
  readonly #endingOf;
  readonly #list;
  readonly #decided;
  readonly #waiting;
  readonly #tally;
  readonly #decide;
  readonly #remove;
  readonly #clearOwner;

  constructor(db: Database) {
    this.#db = db;
    // A delete held again keeps when it was first held and any decision already taken; one
    // waiting its hold time is held for a person from now on.
    this.#hold = db.prepare(
      `INSERT INTO held_deletes (document_id, side, owner_kind, owner_id, folder, document_name,
         reason, first_held_at, last_held_at)
       VALUES (@documentId, @side, @ownerKind, @ownerId, @folder, @documentName, @reason, @at, @at)
       ON CONFLICT (document_id, side) DO UPDATE SET folder = excluded.folder,
         document_name = excluded.document_name, reason = excluded.reason,
         last_held_at = excluded.last_held_at, due_at = NULL`,
    );
    // A delete seen again in its hold keeps when its hold ends.
    this.#wait = db.prepare(
      `INSERT INTO held_deletes (document_id, side, owner_kind, owner_id, folder, document_name,
         reason, due_at, first_held_at, last_held_at)
       VALUES (@documentId, @side, @ownerKind, @ownerId, @folder, @documentName, @reason, @dueAt,
         @at, @at)
       ON CONFLICT (document_id, side) DO UPDATE SET folder = excluded.folder,
         document_name = excluded.document_name, last_held_at = excluded.last_held_at`,
    );
    this.#holdWaiting = db.prepare<[string, number, DeleteSide]>(
      `UPDATE held_deletes SET due_at = NULL, reason = ?, last_held_at = ?
       WHERE side = ? AND decision IS NULL AND due_at IS NOT NULL`,
    );
    this.#undecided = db.prepare<[string, DeleteSide], { due_at: number | null }>(
      'SELECT due_at FROM held_deletes WHERE document_id = ? AND side = ? AND decision IS NULL',
    );
    this.#inHold = db.prepare<[], SideCounts>(
      `SELECT count(*) FILTER (WHERE side = 'local') AS local,
         count(*) FILTER (WHERE side = 'remote') AS remote
       FROM held_deletes WHERE decision IS NULL AND due_at IS NOT NULL`,
    );
    this.#endings = db.prepare<[number], OwnerColumns & { due: number }>(
      `SELECT owner_kind, owner_id, min(due_at) AS due FROM held_deletes
       WHERE decision IS NULL AND due_at > ? GROUP BY owner_kind, owner_id`,
    );
    this.#endingOf = db.prepare<Record<string, unknown>, { due: number | null }>(
      `SELECT min(due_at) AS due FROM held_deletes WHERE owner_kind = @ownerKind
         AND owner_id = @ownerId AND decision IS NULL AND due_at > @after`,
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
       FROM held_deletes WHERE decision IS NULL AND due_at IS NULL
       WINDOW entity AS (PARTITION BY owner_kind, owner_id)
       ORDER BY since, owner_kind, owner_id, folder LIMIT ?`,
    );
    this.#tally = db.prepare<[], HeldTally>(
      `SELECT count(*) FILTER (WHERE decision IS NULL AND due_at IS NULL) AS waiting,
         count(DISTINCT CASE WHEN decision IS NULL AND due_at IS NULL
           THEN owner_kind || ' ' || owner_id END) AS entities,
         max(first_held_at) FILTER (WHERE decision IS NULL AND due_at IS NULL) AS newest,
         count(*) FILTER (WHERE decision IS NOT NULL) AS decided,
         count(*) FILTER (WHERE decision IS NULL AND due_at IS NOT NULL) AS inHold,
         max(due_at) FILTER (WHERE decision IS NULL) AS inHoldUntil
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
    this.#write(held, (h) => this.#hold.run(paramsOf(h, at)));
  }

  /** Records the deletes waiting their hold time now, in one commit. */
  wait(waiting: readonly WaitingDeleteFacts[], at: number): void {
    this.#write(waiting, (w) => this.#wait.run({ ...paramsOf(w, at), dueAt: w.dueAt }));
  }

  #write<T>(rows: readonly T[], run: (row: T) => unknown): void {
    if (rows.length === 0) return;
    this.#db.transaction(() => {
      for (const row of rows) run(row);
    })();
  }

  /**
   * A rail held deletes on `side`: every delete of that side still in its hold, anywhere in the
   * store, is held for a person too. Returns how many.
   */
  holdWaiting(side: DeleteSide, reason: string, at: number): number {
    return this.#holdWaiting.run(reason, at, side).changes;
  }

  /**
   * What the state holds for this delete while nobody decided on it: when its hold ends, null
   * when a rail holds it; undefined when nothing is held.
   */
  undecided(documentId: string, side: DeleteSide): { readonly dueAt: number | null } | undefined {
    const row = this.#undecided.get(documentId, side);
    return row ? { dueAt: row.due_at } : undefined;
  }

  /** How many deletes are in their hold time, per side. */
  inHold(): SideCounts {
    return this.#inHold.get() ?? { local: 0, remote: 0 };
  }

  /** Per entity, the first of its holds to end after `after`. */
  endings(after: number): { readonly owner: OwnerRef; readonly dueAt: number }[] {
    return this.#endings.all(after).map((row) => ({ owner: ownerOf(row), dueAt: row.due }));
  }

  /** When the first of the entity's holds ends after `after`; null when none does. */
  endingOf(owner: OwnerRef, after: number): number | null {
    return this.#endingOf.get({ ...ownerParams(owner), after })?.due ?? null;
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
   * how many its entity has in all. Not the deletes waiting their hold time: no person is
   * asked about those.
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
    return (
      this.#tally.get() ?? {
        waiting: 0,
        entities: 0,
        newest: null,
        decided: 0,
        inHold: 0,
        inHoldUntil: null,
      }
    );
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

/** A held delete's columns, as both writes name them. */
function paramsOf(h: HeldDeleteFacts, at: number) {
  return {
    documentId: h.documentId,
    side: h.side,
    ownerKind: h.owner.kind,
    ownerId: h.owner.id,
    folder: h.folder,
    documentName: h.documentName,
    reason: h.reason,
    at,
  };
}

function toHeld(row: HeldRow): HeldDelete {
  return {
    owner: ownerOf(row),
    documentId: row.document_id,
    side: row.side,
    folder: row.folder,
    documentName: row.document_name,
    reason: row.reason,
    dueAt: row.due_at,
    firstHeldAt: row.first_held_at,
    lastHeldAt: row.last_held_at,
    decision: row.decision,
    decidedAt: row.decided_at,
  };
}
