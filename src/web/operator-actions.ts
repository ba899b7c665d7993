/**
 * The status page's "Approve" and "Keep …" buttons, carried out by the operator's own modules
 * (operator/held-deletes.ts, operator/conflicts.ts), the ones `docsync deletes approve` and
 * `docsync conflicts resolve` call: the page and the command line change the state and the
 * folder the same way. The daemon hands in its own state and folder (`OperatorDeps`), so the
 * folder watcher does not hear a resolution's renames; each answer names the entity to sync at
 * once instead (`syncAfter`). The operator's refusals become the page's: an id that names
 * nothing is `not-found`, anything else it refuses (already resolved, a file gone) `refused`,
 * with its sentence.
 */
import { OperatorError } from '../domain/errors.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { resolveConflict } from '../operator/conflicts.js';
import { approveHeldDeletes } from '../operator/held-deletes.js';
import type { OperatorDeps } from '../operator/operator-deps.js';
import type { ActionOutcome, OperatorActions } from './page-actions.js';

/** The operator's codes for "there is no such thing (any more)"; every other one is a refusal. */
const NOT_FOUND = new Set(['NOTHING_HELD', 'NOT_HELD', 'CONFLICT_NOT_FOUND']);

export function operatorActions(deps: OperatorDeps): OperatorActions {
  return {
    approveHeldDeletes: async ({ owner }) => answering(() => approve(deps, owner)),
    resolveConflict: async ({ conflictId, resolution }) =>
      answering(async () => {
        const resolved = await resolveConflict(deps, conflictId, resolution);
        return {
          kind: 'done',
          message: `Conflict ${resolved.id} resolved (${resolved.choice}): ${resolved.next}; ${nameOf(deps, resolved.owner)} syncs now.`,
          syncAfter: resolved.owner,
        };
      }),
  };
}

/**
 * Approves the deletes still waiting for a decision, of one entity or of all: never one a
 * person discarded (from `docsync deletes discard`), which the page does not show as waiting.
 */
function approve(deps: OperatorDeps, owner: OwnerRef | null): ActionOutcome {
  const waiting = deps.state.heldDeletes
    .list()
    .filter(
      (h) => h.decision === null && (owner === null || ownerKey(h.owner) === ownerKey(owner)),
    );
  if (waiting.length === 0) {
    const whose = owner === null ? '' : ` for ${nameOf(deps, owner)}`;
    return {
      kind: 'not-found',
      message: `No delete is waiting for a decision${whose} any more; reload the page to see what is held now.`,
    };
  }
  const decided = approveHeldDeletes(
    deps,
    waiting.map((h) => h.documentId),
  );
  const [only, ...others] = decided.owners;
  const kept = 'what they remove is kept in .docsync/trash/ first';
  if (only && others.length === 0) {
    return {
      kind: 'done',
      message: `Approved ${decided.held.length} held deletes of ${nameOf(deps, only)}: its sync starts now and carries them out; ${kept}.`,
      syncAfter: only,
    };
  }
  // Several entities: the daemon's reading of decisions (daemon/decision-watch.ts) asks for
  // each one's sync within seconds, as it does for `docsync deletes approve --all`.
  return {
    kind: 'done',
    message: `Approved ${decided.held.length} held deletes of ${decided.owners.length} companies and trusts: each one's sync carries them out within seconds; ${kept}.`,
  };
}

async function answering(act: () => Promise<ActionOutcome> | ActionOutcome) {
  try {
    return await act();
  } catch (error) {
    if (!(error instanceof OperatorError)) throw error;
    const kind = NOT_FOUND.has(error.code) ? 'not-found' : 'refused';
    return { kind, message: error.message } satisfies ActionOutcome;
  }
}

function nameOf(deps: OperatorDeps, owner: OwnerRef): string {
  return deps.state.entities.get(owner)?.entity.name ?? `${owner.kind} ${owner.id}`;
}
