/**
 * The hold time of a local deletion under the daemon. The daemon syncs an
 * entity as soon as the watcher reports it, so a burst of removed document folders reached the
 * rails in slices, one entity's sync at a time, and most of the slices passed. Now a document
 * folder gone from the store (row 8) counts only once it has stayed gone for
 * `safety.deleteHoldSeconds`: the burst is all seen by then, and the deletes that fall due are
 * judged together with every other delete still in its hold in the store (cycle-rails.ts). A
 * folder put back within the hold deletes nothing: the sync at the end of the hold no longer
 * plans it. Once a rail holds a delete for a person, it stays held until a person decides.
 *
 * What is a removal and what is not stays the planner's (rows 8, 18, 50, 51): a folder moved
 * elsewhere in the store, an entity folder gone or a share not mounted never plan a delete, so
 * they never wait here either. `--once` has no hold: it judges the whole store in one cycle.
 *
 * Pure: the rule a planned delete falls under, numbered; the engine reads and records the times.
 */
import type { DeleteSide } from './held-deletes.js';

export interface HoldInput {
  readonly side: DeleteSide;
  /**
   * What the state holds for this delete, with no decision yet: `dueAt` when it waits its hold
   * time, null when a rail holds it for a person; undefined when this sync is the first to plan
   * it.
   */
  readonly known: { readonly dueAt: number | null } | undefined;
}

export type HoldVerdict =
  | { readonly kind: 'due'; readonly rule: HoldRule }
  | { readonly kind: 'waits'; readonly rule: HoldRule; readonly until: number }
  | { readonly kind: 'held'; readonly rule: HoldRule };

/**
 * 1. A delete a rail held for a person, on either side, stays held: nothing but a person
 *    (`docsync deletes approve|discard`) lets it through; it leaves when its cause goes away
 *    (the folder is back, the service has the document again).
 * 2. A service deletion (`local` side: the folder would go to the trash) is due at once: the hold
 *    is for folders removed from the store, and what the service deleted is judged as before.
 * 3. A delete whose hold has passed is due.
 * 4. A delete still in its hold waits until its end.
 * 5. A delete planned for the first time waits the whole hold; with no hold (0 s) it is due.
 */
export type HoldRule = 1 | 2 | 3 | 4 | 5;

export function holdOf(input: HoldInput, now: number, holdMs: number): HoldVerdict {
  const { known } = input;
  if (known?.dueAt === null) return { kind: 'held', rule: 1 };
  if (input.side === 'local') return { kind: 'due', rule: 2 };
  if (known !== undefined) {
    if (known.dueAt <= now) return { kind: 'due', rule: 3 };
    return { kind: 'waits', rule: 4, until: known.dueAt };
  }
  return holdMs > 0 ? { kind: 'waits', rule: 5, until: now + holdMs } : { kind: 'due', rule: 5 };
}

/** Why a removed folder's delete waits, as `docsync deletes list` and the log say it. */
export function waitingReason(until: number, holdMs: number): string {
  return `the folder was removed from the store; its delete in the service waits until ${new Date(until).toISOString()} (safety.deleteHoldSeconds ${holdMs / 1000}), so that a mass delete is judged whole; putting the folder back cancels it`;
}
