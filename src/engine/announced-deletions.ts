/**
 * Deletions `deleteDocument` webhooks announced, as an entity's sync uses them (state/
 * announced-deletion-repo.ts). Every sync of the entity asks the service about each one, not
 * only the sync the webhook asked for, so a deletion whose sync failed is applied by the next
 * one that succeeds; the sync that settles one removes it.
 */
import type { OwnerRef } from '../domain/types.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityJob } from './plan-entity.js';

/** The documents to ask about: those still announced for `owner`, and the request's own. */
export function announcedFor(
  deps: EngineDeps,
  owner: OwnerRef,
  requested: ReadonlySet<string> | undefined,
): { readonly kept: readonly string[]; readonly ids: ReadonlySet<string> | undefined } {
  const kept = deps.state.announcedDeletions.forOwner(owner);
  if (kept.length === 0) return { kept, ids: requested };
  return { kept, ids: new Set([...kept, ...(requested ?? [])]) };
}

/**
 * After the entity's sync: an announced deletion is settled when the document is no longer in
 * the agreed state (deleted here, or never synced) or the service answered that it still has it.
 * One the service could not be asked about, or whose delete a rail holds, stays for the next.
 */
export function settleAnnounced(deps: EngineDeps, job: EntityJob, kept: readonly string[]): void {
  if (kept.length === 0) return;
  const settled = kept.filter((id) => {
    const base = deps.state.base.get(id);
    return base === null || job.remoteDocs.has(id);
  });
  if (settled.length > 0) deps.state.announcedDeletions.remove(job.owner, settled);
}
