/**
 * What a person can do from the status page, as the status server sees it: sync an entity now,
 * approve the deletes a safety rail holds, resolve a conflict. The status server only checks the
 * request (POST, CSRF token) and reads its fields; the daemon hands in what carries them out.
 */
import type { ConflictChoice } from '../domain/plan-resolution.js';
import type { OwnerRef } from '../domain/types.js';

/** What became of an action; the page shows the message, the status code follows the kind. */
export type ActionOutcome =
  | {
      readonly kind: 'done';
      readonly message: string;
      /** The entities to sync at once, so the decision takes effect without waiting for a poll. */
      readonly syncAfter?: readonly OwnerRef[];
    }
  /** Nothing to act on: no such entity, conflict or held delete. */
  | { readonly kind: 'not-found'; readonly message: string }
  /** The request makes no sense now (e.g. the conflict copy is gone); the message says why. */
  | { readonly kind: 'refused'; readonly message: string }
  /** Carrying it out failed (the folder refused a change); the message says what failed. */
  | { readonly kind: 'failed'; readonly message: string };

/**
 * What the page showed beside its Approve button: how many deletes waited for a decision, and
 * when the newest of them was first held (ms). An approval lets through exactly those.
 */
export interface HeldSeen {
  readonly count: number;
  readonly newest: number;
}

/**
 * The operator's decisions (`docsync deletes approve`, `docsync conflicts resolve`), the same
 * operations as the CLI's, so the page and the command line never disagree on what they do.
 */
export interface OperatorActions {
  /**
   * Lets through the deletes a safety rail holds and nobody has decided on yet: for one entity,
   * or for every entity when `owner` is null (the page's "Approve all"); `refused` when they
   * are not what the page showed (`seen`).
   */
  approveHeldDeletes(request: {
    readonly owner: OwnerRef | null;
    readonly seen: HeldSeen;
  }): Promise<ActionOutcome>;
  /**
   * Settles a recorded conflict (the `conflicts` table's id): keep the local version (mine), the
   * service's (theirs), or both files.
   */
  resolveConflict(request: {
    readonly conflictId: number;
    readonly resolution: ConflictChoice;
  }): Promise<ActionOutcome>;
}

export interface PageActions {
  /** Queues a sync of the entity ahead of polling; answers once it is queued, not run. */
  syncEntity(owner: OwnerRef): ActionOutcome;
  readonly operator: OperatorActions;
}
