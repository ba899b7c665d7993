/**
 * Decisions on held deletes come from `docsync deletes`, another process writing the state
 * beside the daemon (it holds the instance lock; WAL lets the command write), and from the
 * status page (its "Approve all" leaves the entities' syncs to this watch). Every few seconds the
 * daemon reads them, one statement on a table that is empty but for held deletes, and asks for a
 * sync of each decided entity, where the engine acts on the decision (it reads the decisions
 * before planning). A decision is asked for once; taken again (a later time), again.
 */
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { Logger } from '../log/create-logger.js';
import type { StateStore } from '../state/state-store.js';

/** How often the state is read for decisions: a person is waiting on them. */
const DECISION_POLL_MS = 2000;

export interface DecisionWatchOptions {
  readonly state: Pick<StateStore, 'heldDeletes'>;
  readonly logger: Logger;
  /** Asks for a sync of the entity. */
  readonly sync: (owner: OwnerRef) => void;
  readonly onError: (error: unknown) => void;
}

/** Starts watching; the returned function stops it. */
export function watchDecisions(options: DecisionWatchOptions): () => void {
  let seen = new Set<string>();
  const timer = setInterval(() => {
    try {
      const now = new Set<string>();
      for (const row of options.state.heldDeletes.decided()) {
        const key = `${row.side}:${row.documentId}:${row.decidedAt}`;
        now.add(key);
        if (seen.has(key)) continue;
        const what = row.decision === 'approve' ? 'approved' : 'discarded';
        options.logger.info(
          { owner: ownerKey(row.owner), document: row.documentId, decision: row.decision },
          `held delete of ${row.folder} ${what}; syncing its ${row.owner.kind}`,
        );
        options.sync(row.owner);
      }
      seen = now;
    } catch (error) {
      options.onError(error);
    }
  }, DECISION_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
