/**
 * The daemon's start compares every entity folder with the agreed state, without a
 * request to the service: the folder scanned with the base as hints (so no unchanged file is
 * read), and the changes `detectLocalChanges` finds there counted as local work
 * (domain/local-work.ts). Files a stop left in the middle of a push are found this way, at once,
 * not when the start's poll round reaches their entity ten minutes later; and the count is kept
 * in the state (`entity_work`) for `docsync status` and the page until the entity's sync ends.
 *
 * What a look does not decide: the sync it asks for plans from the same scan and the service's
 * side, so a look that counts too little or too much costs a count, never a change.
 */

import { detectLocalChanges } from '../domain/local-changes.js';
import { type LocalWork, localWorkOf } from '../domain/local-work.js';
import { localDateOf } from '../domain/timestamps.js';
import type { OwnerRef } from '../domain/types.js';
import { heldFolders } from '../engine/held-folders.js';
import type { LocalStore } from '../local/local-store.js';
import type { StateStore } from '../state/state-store.js';

export interface LocalWorkCheckDeps {
  readonly local: Pick<LocalStore, 'scanEntity'>;
  readonly state: Pick<StateStore, 'base' | 'statusTypes' | 'entities' | 'heldDeletes' | 'work'>;
  readonly now: () => number;
  readonly utcOffsetMinutes: number;
}

/** What one look found: the work (recorded), and files still being written (not counted yet). */
export interface LocalLook {
  readonly work: LocalWork | null;
  readonly unsettled: boolean;
}

/**
 * Looks at entity folders one at a time, with what every look needs read once (the status types,
 * the folders the first sync held back, the deletes held): a pass over 5,000 entities reads each
 * of those once, not 5,000 times.
 */
export class LocalWorkCheck {
  readonly #statusTypes;
  readonly #context;

  constructor(private readonly deps: LocalWorkCheckDeps) {
    this.#statusTypes = deps.state.statusTypes.list();
    this.#context = {
      heldFolders: heldFolders(deps.state),
      heldDocuments: new Set(deps.state.heldDeletes.list().map((h) => h.documentId)),
    };
  }

  /** Compares the entity's folder with its agreed state and records what waits (or that nothing does). */
  async look(owner: OwnerRef, folder: string): Promise<LocalLook> {
    const { deps } = this;
    const base = deps.state.base.listByOwner(owner);
    const snapshot = await deps.local.scanEntity(owner, [...base.values()], folder);
    const now = deps.now();
    // A folder gone holds its entity (decision row 50): the sync's to say, no work to count.
    const changes =
      snapshot.folder === null
        ? []
        : detectLocalChanges(
            base,
            snapshot,
            this.#statusTypes,
            localDateOf(now, deps.utcOffsetMinutes),
          );
    const work = localWorkOf(changes, this.#context);
    deps.state.work.noteLocal(owner, work, now);
    return { work, unsettled: snapshot.unsettled > 0 };
  }
}
