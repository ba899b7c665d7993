/**
 * The engine's one way to change the agreed state (docs/state.md, "The agreed state"): an
 * action's result, a push's completion, a push settled after a crash, the timestamps learnt
 * after pushes and the cursor they belong to all go through `commitAgreed`, into the state's
 * one transaction. Being the only commit of the base, it is also the one place to stand at
 * "before a commit": the simulation's `before-commit` failpoint (failpoints.ts) is here.
 */
import type { BaseDocument } from '../domain/types.js';
import type { NewConflict } from '../state/conflict-repo.js';
import type { AgreedChange } from '../state/state-store.js';
import type { EngineDeps } from './engine-deps.js';
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

/**
 * Commits `change`. Without a failpoint hook (the daemon) it commits at once and returns
 * nothing, so a commit costs no promise; with one (the simulation) it first stops at
 * `before-commit`, and the returned promise resolves once committed: a caller awaits it.
 * `site` says what is committed, for the simulation's trace.
 */
export function commitAgreed(
  deps: Pick<EngineDeps, 'state' | 'now' | 'failpoint'>,
  change: AgreedChange,
  site: FailpointSite,
): Promise<void> | undefined {
  const { failpoint } = deps;
  if (!failpoint || isEmpty(change)) {
    deps.state.commitAgreed(change, deps.now());
    return undefined;
  }
  return failpoint('before-commit', site).then(() => deps.state.commitAgreed(change, deps.now()));
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
