/**
 * What the operator's actions work on (`docsync conflicts`, `trash`, `deletes`, and the status
 * page's actions): the state database, the folder, the service's web address for links, what
 * `onRemoteDelete` makes of a folder the service deleted, a clock, and the entity locks. The CLI
 * builds it from the configuration (commands/operator-app.ts); the daemon can hand in its own,
 * since every action is a short synchronous state write plus a few renames.
 *
 * Each action that changes an entity's folder or state takes that entity's lease
 * (engine/entity-locks.ts), which only `locks` hands out, and refuses one that is not the
 * entity's current lease in `locks`: code that did not lock cannot call it, and a lease from
 * another table (or released, or another entity's) is refused before anything changes.
 *
 * The actions change the folder and the state only, never the service: the next sync takes
 * each change to the service through the ordinary rows of docs/sync-decision-table.md, with the
 * trash and the safety rails as for any other change. An action's result names the entity it
 * touched (`owner`), so a caller inside the daemon can ask for a sync of it at once (the
 * daemon's watcher does not hear docsync's own writes; from another process it does).
 */
import type { OwnerRef } from '../domain/types.js';
import type { EntityLease, EntityLocks } from '../engine/entity-locks.js';
import type { LocalStore } from '../local/local-store.js';
import type { StateStore } from '../state/state-store.js';

export interface OperatorDeps {
  readonly state: Pick<StateStore, 'conflicts' | 'heldDeletes' | 'base' | 'entities' | 'work'>;
  /** The folder; `root` is its absolute path (the trash is read and restored from there). */
  readonly local: LocalStore & { readonly root: string };
  /** `service.webUrl`, for deep links into the service. */
  readonly webUrl: string;
  /** `onRemoteDelete`: what an approved delete of a folder the service deleted does to it. */
  readonly onRemoteDelete: 'trash' | 'delete';
  readonly now: () => number;
  /** The entity locks of the process: the daemon's own table, or the command's when alone. */
  readonly locks: EntityLocks;
}

/**
 * Runs a job on one entity's folder with the entity to itself, handing it the entity's lease.
 * Inside the daemon it is the entity's lock (Daemon.withEntity): the job runs between that
 * entity's syncs, so a resolution's renames never meet a sync's. A command that holds the
 * state's lock (no daemon runs) has the whole store to itself and runs the job right away.
 */
export type ExclusiveRunner = <T>(
  owner: OwnerRef,
  job: (lease: EntityLease) => Promise<T>,
) => Promise<T>;

/**
 * For a caller that has the store to itself (it holds the instance lock): the lease from the
 * table of its own process (`deps.locks`), where nothing else waits, so the job runs at once.
 */
export function rightAway(deps: Pick<OperatorDeps, 'locks'>): ExclusiveRunner {
  return (owner, job) => deps.locks.run(owner, 'command line', job);
}

/**
 * The entity's sync is work now: a change a person made is taken to the service (or a decision
 * carried out) by it. Recorded as the change's last step, so a daemon asks for it, and one that
 * starts after a crash or after a command alone asks for it first.
 */
export function syncWanted(deps: OperatorDeps, owner: OwnerRef): void {
  deps.state.work.observe(owner, { reason: 'manual', lane: 'webhook', at: deps.now() });
}
