/**
 * What a cycle reads before it plans: the catalogue (companies, trusts, status types), kept in
 * the state and read from the service again when a cycle over every entity asks, and the
 * entities it syncs.
 */
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef, StatusType } from '../domain/types.js';
import type { EntityRecord } from '../state/entity-repo.js';
import type { EngineDeps } from './engine-deps.js';
import { previewEntities, refreshEntities } from './refresh-entities.js';

/**
 * Reads the companies, trusts and status types again, as a full cycle over every entity does:
 * the daemon's full poll round does it once, then lists its entities one by one.
 */
export async function refreshCatalogue(deps: EngineDeps): Promise<EntityRecord[]> {
  await statusTypesOf(deps, true);
  return refreshEntities(deps);
}

/** The status types: the state's copy, read from the service again on `refresh` or when none. */
export async function statusTypesOf(deps: EngineDeps, refresh: boolean): Promise<StatusType[]> {
  const cached = deps.state.statusTypes.list();
  if (!refresh && cached.length > 0) return cached;
  const fresh = await deps.remote.statusTypes();
  deps.state.statusTypes.replaceAll(fresh, deps.now());
  return fresh;
}

/**
 * The entities a cycle syncs: `owners` (the watcher's, a webhook's), or every entity with a
 * folder. A full cycle over every entity reads the list from the service again.
 */
export async function entitiesFor(
  deps: EngineDeps,
  options: {
    readonly owners?: readonly OwnerRef[];
    readonly refreshEntities?: boolean;
    readonly dryRun?: boolean;
  },
  full: boolean,
): Promise<EntityRecord[]> {
  const refresh =
    (full && !options.owners) || options.refreshEntities || deps.state.entities.count() === 0;
  if (options.owners && !refresh) {
    // One entity's sync reads its own row: reading (and parsing) every entity's, as a sync
    // over all of them does, made a round of n entity syncs read n² rows (bench 10).
    return options.owners.flatMap((owner) => {
      const record = deps.state.entities.get(owner);
      return record?.folder ? [record] : [];
    });
  }
  // A dry run makes no folder and ties nothing: it sees the catalogue as a refresh would.
  const records = !refresh
    ? deps.state.entities.list()
    : options.dryRun
      ? await previewEntities(deps)
      : await refreshEntities(deps);
  if (!options.owners) return records.filter((r) => r.folder !== null);
  const wanted = new Set(options.owners.map(ownerKey));
  return records.filter((r) => r.folder !== null && wanted.has(ownerKey(r.entity)));
}
