/**
 * The status page's "Approve" and "Keep …" buttons, carried out by the operator's own modules
 * (operator/held-deletes.ts, operator/conflicts.ts), the ones `docsync deletes approve` and
 * `docsync conflicts resolve` call: the page and the command line change the state and the
 * folder the same way. The daemon hands in its own state and folder (`OperatorDeps`), so the
 * folder watcher does not hear a resolution's renames; each answer names the entity to sync at
 * once instead (`syncAfter`). The operator's refusals become the page's: what names nothing (any
 * more) is `not-found`, anything else it refuses (already resolved, a file gone) `refused`, with
 * its sentence in the page's words (`OperatorError.onPage`: buttons, not commands); a step that
 * failed (the folder refused a move) is `failed`, with what failed.
 */
import { OperatorError } from '../domain/errors.js';
import type { HeldDelete } from '../domain/held-deletes.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import { conflictOwner, resolveConflict } from '../operator/conflicts.js';
import { decideEachEntity, whatApprovingKeeps } from '../operator/held-deletes.js';
import { type ExclusiveRunner, type OperatorDeps, rightAway } from '../operator/operator-deps.js';
import { isStateFailure } from '../state/state-failure.js';
import type { ActionOutcome, HeldSeen, OperatorActions } from './page-actions.js';

export function operatorActions(
  deps: OperatorDeps,
  exclusive: ExclusiveRunner = rightAway(deps),
): OperatorActions {
  return {
    approveHeldDeletes: async ({ owner, seen }) =>
      answering(() => approve(deps, owner, seen, exclusive)),
    resolveConflict: async ({ conflictId, resolution }) =>
      answering(async () => {
        const resolved = await exclusive(conflictOwner(deps, conflictId), (lease) =>
          resolveConflict(deps, lease, conflictId, resolution),
        );
        return {
          kind: 'done',
          message: `Conflict ${resolved.id} resolved (${resolved.choice}): ${resolved.next}; ${nameOf(deps, resolved.owner)} syncs now.`,
          syncAfter: [resolved.owner],
        };
      }),
  };
}

/**
 * Approves the deletes the page showed as waiting for a decision, of one entity or of all, and
 * only those: when what waits is not what the page showed (`seen`: more were held since, rows
 * past the 50 drawn changed, someone decided meanwhile), nothing is approved and the page is to
 * be reloaded. Never one a person discarded (`docsync deletes discard`), which does not wait.
 */
async function approve(
  deps: OperatorDeps,
  owner: OwnerRef | null,
  seen: HeldSeen,
  exclusive: ExclusiveRunner,
): Promise<ActionOutcome> {
  const waiting = deps.state.heldDeletes.list().filter(
    (h) =>
      // Not a delete in its hold time: the page does not ask about those.
      h.decision === null &&
      h.dueAt === null &&
      (owner === null || ownerKey(h.owner) === ownerKey(owner)),
  );
  const name = owner === null ? null : nameOf(deps, owner);
  if (waiting.length === 0) {
    return {
      kind: 'not-found',
      message: `No delete is waiting for a decision${name ? ` for ${name}` : ''} any more; reload the page to see what is held now.`,
    };
  }
  if (waiting.length !== seen.count || newestOf(waiting) !== seen.newest) {
    return {
      kind: 'refused',
      message: `The held deletes${name ? ` of ${name}` : ''} changed since the page was drawn (${seen.count} then, ${waiting.length} waiting now); nothing was approved: reload the page and decide on what is held now.`,
    };
  }
  const { held, owners } = await decideEachEntity(deps, waiting, 'approve', exclusive);
  const [only, ...others] = owners;
  const kept = whatApprovingKeeps(
    held.map((h) => h.side),
    deps.onRemoteDelete,
  );
  if (only && others.length === 0) {
    return {
      kind: 'done',
      message: `Approved ${held.length} held deletes of ${nameOf(deps, only)}: its sync starts now and carries them out; ${kept}.`,
      syncAfter: owners,
    };
  }
  return {
    kind: 'done',
    message: `Approved ${held.length} held deletes of ${owners.length} companies and trusts: each one's sync starts now and carries them out; ${kept}.`,
    syncAfter: owners,
  };
}

/** When the newest of these was first held: with their count, what the page showed. */
function newestOf(held: readonly Pick<HeldDelete, 'firstHeldAt'>[]): number {
  return held.reduce((newest, h) => Math.max(newest, h.firstHeldAt), 0);
}

async function answering(act: () => Promise<ActionOutcome> | ActionOutcome) {
  try {
    return await act();
  } catch (error) {
    if (error instanceof OperatorError) {
      const kind = error.notFound ? 'not-found' : 'refused';
      return { kind, message: error.onPage } satisfies ActionOutcome;
    }
    // A state failure stops the daemon. Any other (the disk refused a move) is the page's answer
    // in words, as the command line's is (daemon/decision-watch.ts): a bare 500 is no JSON, and
    // the page's script would say the daemon did not answer.
    if (isStateFailure(error)) throw error;
    const message = `Carrying it out failed: ${(error as Error).message}. Look at the folder before trying again.`;
    return { kind: 'failed', message } satisfies ActionOutcome;
  }
}

function nameOf(deps: OperatorDeps, owner: OwnerRef): string {
  return deps.state.entities.get(owner)?.entity.name ?? `${owner.kind} ${owner.id}`;
}
