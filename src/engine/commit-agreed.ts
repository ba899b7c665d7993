/**
 * The engine's one way to change the agreed state (docs/state.md, "The agreed state"): an
 * action's result, a push's completion, a push settled after a crash, the timestamps learnt
 * after pushes and the cursor they belong to all go through `commitAgreed`, into the state's
 * one transaction; an entity gone from the service goes through `forgetEntity`. Being the only
 * commit of the base, it is also the one place to stand at "before a commit": the simulation's
 * `before-commit` failpoint (failpoints.ts) is here.
 *
 * Both take the entity's lease (entity-locks.ts), so code that did not lock the entity cannot
 * compile a change to its agreed state; and both refuse one that is not the entity's current
 * lease (counted as a violation), before anything is written. Refused, the change is simply not
 * made, as after a crash just before it, which the next cycle already recovers from; made
 * without the lock, it could overwrite what the entity's holder agreed.
 */
import type { BaseDocument, OwnerRef } from '../domain/types.js';
import type { NewConflict } from '../state/conflict-repo.js';
import type { AgreedChange } from '../state/state-store.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityLease } from './entity-locks.js';
import type { FailpointSite } from './failpoints.js';

export type { AgreedChange } from '../state/state-store.js';

/** What a push's success changes: the outbox row's outcome, and the document's base. */
export interface PushCompletion {
  /** What the service answered, kept on the outbox row. */
  readonly result?: unknown;
  /** A create's new document id, handed to the pushes waiting on it. */
  readonly documentId?: string;
  /** The document's new agreed state. */
  readonly base?: BaseDocument;
  /** A deleted document, or the old id of a restored one: its base row goes. */
  readonly removeBaseId?: string;
  /** A document delete the service accepted, recorded with it (row 19). */
  readonly deletedInService?: AgreedChange['deletedInService'];
  /** The conflict the push settled (rows 12, 23, 33), recorded with it. */
  readonly conflict?: NewConflict;
}

type CommitDeps = Pick<EngineDeps, 'state' | 'now' | 'failpoint' | 'locks'>;

/** What is committed, for the simulation's trace: of one entity, whose lease must be held. */
export type CommitSite = FailpointSite & { readonly owner: OwnerRef };

/**
 * Commits `change` of `site.owner`, under `lease`, the entity's current lease (else
 * EntityNotHeldError, nothing written). Without a failpoint hook (the daemon) it commits at once
 * and returns nothing, so a commit costs no promise; with one (the simulation) it first stops at
 * `before-commit`, and the returned promise resolves once committed: a caller awaits it. The
 * lease is checked as the state is written, after the stop.
 */
export function commitAgreed(
  deps: CommitDeps,
  lease: EntityLease,
  change: AgreedChange,
  site: CommitSite,
): Promise<void> | undefined {
  const { failpoint } = deps;
  const commit = () => {
    deps.locks.assertHeld(site.owner, lease, `commit ${site.what ?? 'agreed state'}`);
    deps.state.commitAgreed(change, deps.now());
  };
  if (!failpoint || isEmpty(change)) {
    commit();
    return undefined;
  }
  return failpoint('before-commit', site).then(commit);
}

/** The entity is gone from the service: it and everything kept for it go, under its lease. */
export function forgetEntity(
  deps: Pick<EngineDeps, 'state' | 'locks'>,
  lease: EntityLease,
  owner: OwnerRef,
): void {
  deps.locks.assertHeld(owner, lease, 'forget');
  deps.state.forgetEntity(owner);
}

/** Nothing agreed and no cursor moved (a quiet entity): the state commits nothing either. */
function isEmpty(change: AgreedChange): boolean {
  return !change.push && !change.cursor && !change.put?.length && !change.remove?.length;
}

/** The agreed change of a document: its new base, or null for none (its row goes). */
export function documentAgreed(documentId: string | null, next: BaseDocument | null): AgreedChange {
  if (next) return { put: [next] };
  return documentId ? { remove: [documentId] } : {};
}

/** Push `id` is done, with what its success changes. */
export function pushCompleted(id: number, completion: PushCompletion): AgreedChange {
  const { result, documentId, base, removeBaseId, deletedInService, conflict } = completion;
  return {
    push: {
      id,
      ...(result !== undefined ? { result } : {}),
      ...(documentId !== undefined ? { documentId } : {}),
    },
    ...(base ? { put: [base] } : {}),
    ...(removeBaseId !== undefined ? { remove: [removeBaseId] } : {}),
    ...(deletedInService ? { deletedInService } : {}),
    ...(conflict ? { conflict } : {}),
  };
}
