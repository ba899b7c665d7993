/**
 * Ends the hold time of removed folders' deletes (domain/delete-hold.ts) on time. A delete in
 * its hold is left out of its entity's sync; when the hold ends, that entity is synced again,
 * and the sync judges the delete with every other one not done in the store. Deletes whose holds
 * end together are asked for together, so their syncs run side by side and judge them as one.
 *
 * One timer, set for the first hold to end after those already asked for: the state (one
 * statement) is read again after each sync, which is when holds begin. A delete that was asked
 * for and did not go (a failed request) is not asked for again: its entity's next sync judges it.
 */
import type { Clock } from '../domain/clock.js';
import type { OwnerRef } from '../domain/types.js';
import type { StateStore } from '../state/state-store.js';

export interface DeleteHoldTimerOptions {
  readonly state: Pick<StateStore, 'heldDeletes'>;
  /** The clock the engine stamps the holds' ends with. */
  readonly clock: Clock;
  /** Asks for a sync of the entity. */
  readonly sync: (owner: OwnerRef) => void;
  readonly onError: (error: unknown) => void;
}

export class DeleteHoldTimer {
  #cancel: (() => void) | undefined;
  #timerAt: number | null = null;
  /** Holds ending up to here were asked for; those already over at the start, by its catch-up. */
  #askedUntil: number;
  #closed = false;

  constructor(private readonly options: DeleteHoldTimerOptions) {
    this.#askedUntil = options.clock.now();
  }

  /** Reads when the next hold ends and sets the timer for it (after each sync). */
  arm(): void {
    if (this.#closed) return;
    const next = this.options.state.heldDeletes.nextDue(this.#askedUntil);
    if (next === null || (this.#timerAt !== null && this.#timerAt <= next)) return;
    this.#cancel?.();
    this.#timerAt = next;
    const { clock } = this.options;
    // The daemon's close cancels it; it never holds the process open by itself.
    this.#cancel = clock.after(Math.max(0, next - clock.now()), () => this.#fire(), false);
  }

  close(): void {
    this.#closed = true;
    this.#cancel?.();
  }

  #fire(): void {
    this.#timerAt = null;
    try {
      const now = this.options.clock.now();
      const owners = this.options.state.heldDeletes.dueOwners(this.#askedUntil, now);
      this.#askedUntil = now;
      for (const owner of owners) this.options.sync(owner);
      this.arm();
    } catch (error) {
      this.options.onError(error);
    }
  }
}
