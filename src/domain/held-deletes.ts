/**
 * Deletes a safety rail holds, and what a person decided about them (`docsync deletes`). A
 * tripped delete rail used to drop its deletes from the cycle and say "run with
 * --force-deletes", which cannot be done while the daemon holds the instance lock. Now each held
 * delete is kept in the state, where a person can approve it (it goes through once, past the
 * rails, as `--force-deletes` would let it) or discard it (it is not done, and the rail stops
 * holding it: the document is made whole again on the side that lost it, rows 53 and 54).
 *
 * Pure: which deletes a cycle holds, and which kept records a cycle settles.
 */
import type { SyncAction } from './sync-actions.js';
import type { OwnerRef } from './types.js';

/**
 * Where the delete would happen: `local`, the document folder goes to the trash (the service
 * deleted the document, row 11); `remote`, the document is deleted in the service (its folder
 * was removed from the store, row 8).
 */
export type DeleteSide = 'local' | 'remote';
export type HeldDecision = 'approve' | 'discard';

export interface HeldDeleteFacts {
  readonly owner: OwnerRef;
  readonly documentId: string;
  readonly side: DeleteSide;
  /** The document folder, relative to the root (gone, for a `remote` delete). */
  readonly folder: string;
  readonly documentName: string;
  /** The rails' messages, one sentence each. */
  readonly reason: string;
}

export interface HeldDelete extends HeldDeleteFacts {
  /**
   * Under the daemon, a folder removed from the store waits its hold time before its delete
   * counts (delete-hold.ts): when that ends. Null: a rail holds the delete for a person.
   */
  readonly dueAt: number | null;
  readonly firstHeldAt: number;
  readonly lastHeldAt: number;
  readonly decision: HeldDecision | null;
  readonly decidedAt: number | null;
}

/** A delete waiting its hold time, until `dueAt`. */
export interface WaitingDeleteFacts extends HeldDeleteFacts {
  readonly dueAt: number;
}

/** The delete side of a document delete; null for any other action. */
export function deleteSideOf(action: SyncAction): DeleteSide | null {
  if (action.kind === 'trash-local-document') return 'local';
  if (action.kind === 'push-delete-document') return 'remote';
  return null;
}

/** One key per held delete: a document and the side its delete would happen on. */
export const heldKey = (side: DeleteSide, documentId: string): string => `${side}:${documentId}`;

/** The key of a document delete action; null for any other action. */
export function heldKeyOf(action: SyncAction): string | null {
  const side = deleteSideOf(action);
  return side && action.documentId ? heldKey(side, action.documentId) : null;
}

/** The decisions taken, by `heldKey`, as a cycle reads them before planning. */
export interface HeldDecisions {
  readonly approved: ReadonlySet<string>;
  readonly discarded: ReadonlySet<string>;
}

export function decisionsOf(rows: readonly HeldDelete[]): HeldDecisions {
  const keys = (decision: HeldDecision) =>
    new Set(rows.filter((r) => r.decision === decision).map((r) => heldKey(r.side, r.documentId)));
  return { approved: keys('approve'), discarded: keys('discard') };
}

/** What one entity's sync found about its documents' deletes, for `settleHeldDeletes`. */
export interface EntityDeleteFacts {
  /** Keys of the document deletes the plan held (before any rail judged them). */
  readonly planned: ReadonlySet<string>;
  /** Documents whose restore (a discarded delete being undone, rows 53, 54) did not get through. */
  readonly restoring: ReadonlySet<string>;
  /** Whether the base still has the document after the sync. */
  readonly inBase: (documentId: string) => boolean;
  /**
   * Whether this sync could have planned the delete: a `remote` one always (the folder is
   * scanned whole); a `local` one only when the service's listing was whole or the document
   * was asked about (an incremental listing does not show what the service deleted).
   */
  readonly judged: (side: DeleteSide, documentId: string) => boolean;
}

/**
 * The kept records of one entity that its sync settled: a delete carried out (the document left
 * the base), or one no longer planned once the sync could see it (the folder came back, the
 * service has the document again, a discarded delete was undone). A record whose delete is still
 * planned, or that this sync could not judge, stays.
 */
export function settledHeldDeletes(
  kept: readonly HeldDelete[],
  facts: EntityDeleteFacts,
): HeldDelete[] {
  return kept.filter((row) => {
    const key = heldKey(row.side, row.documentId);
    if (!facts.inBase(row.documentId)) return true;
    if (!facts.judged(row.side, row.documentId)) return false;
    return !facts.planned.has(key) && !facts.restoring.has(row.documentId);
  });
}
