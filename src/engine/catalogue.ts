/**
 * What a cycle reads before it plans: the catalogue (companies, trusts, status types), kept in
 * the state and read from the service again when a cycle over every entity asks, and the
 * entities it syncs.
 */
import { learntStatusTypes } from '../domain/learnt-status-types.js';
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef, RemoteDocument, StatusType } from '../domain/types.js';
import { ApiError } from '../remote/api-error.js';
import type { EntityRecord } from '../state/entity-repo.js';
import type { EngineDeps } from './engine-deps.js';
import { previewEntities, refreshEntities } from './refresh-entities.js';

/**
 * Reads the companies, trusts and status types again, as a full cycle over every entity does:
 * the daemon's full poll round does it once, then lists its entities one by one.
 */
export async function refreshCatalogue(
  deps: EngineDeps,
  signal?: AbortSignal,
): Promise<EntityRecord[]> {
  await statusTypesOf(deps, true);
  return refreshEntities(deps, signal);
}

/** The status types a cycle plans with, and whether a status typed in a folder may be pushed. */
export interface StatusCatalogue {
  /** The service's list as last read, with the types learnt from documents beside it. */
  readonly types: readonly StatusType[];
  /**
   * Why status pushes wait (null: they go): the service's list was never read, so a name typed
   * in `.document.json` cannot be told from a type the service has and docsync never saw.
   */
  readonly pushesWait: string | null;
}

/**
 * The status types: the state's copy, read from the service again on `refresh` or when there
 * is none. A list that cannot be read (a 404, another shape: the route is [ours], api.md) stops
 * nothing: a list read before is used as it is; with none, statuses keep the names the
 * documents carry (learnt as they are read or made, `withLearntTypes`) and status pushes wait,
 * said in one line. Only a full cycle asks again, so a firm whose service has no such route is
 * not asked on every entity's sync.
 */
export async function statusTypesOf(deps: EngineDeps, refresh: boolean): Promise<StatusCatalogue> {
  const repo = deps.state.statusTypes;
  const cached = repo.list();
  const everRead = repo.fetchedAt() !== null;
  const unreadable = everRead ? null : repo.unreadable();
  if (!refresh && (everRead ? cached.length > 0 : unreadable !== null)) {
    return { types: cached, pushesWait: unreadable === null ? null : waitReason(unreadable) };
  }
  try {
    const fresh = await deps.remote.statusTypes();
    repo.replaceAll(fresh, deps.now());
    // The list read, and the types it lacks that agreed statuses still name (kept by the repo).
    return { types: repo.list(), pushesWait: null };
  } catch (error) {
    // Stopping, no login, no answer at all: not the list's fault, and the next request would
    // meet the same (after its own retries), so the cycle ends as it would have anyway.
    if (!answered(error)) throw error;
    if (everRead) {
      deps.logger.warn(
        { error: error.message },
        `the status types could not be read again (${error.message}); the list read on ${new Date(repo.fetchedAt()!).toISOString()} is used`,
      );
      return { types: cached, pushesWait: null };
    }
    repo.markUnreadable(error.message);
    const pushesWait = waitReason(error.message);
    deps.logger.warn({ error: error.message }, `status pushes wait: ${pushesWait}`);
    return { types: cached, pushesWait };
  }
}

/**
 * `known`, with the status types `docs` carry that it lacks, kept in the state so a status keeps
 * its name in `.document.json` while the service's list cannot be read. The documents are those
 * a sync reads, and those it makes: a create's answer carries the status the service gave the
 * new document, and a folder written without its name would read back as a blank status typed
 * there (row 25), never to be put right.
 */
export function withLearntTypes(
  deps: EngineDeps,
  known: readonly StatusType[],
  docs: Iterable<RemoteDocument>,
): readonly StatusType[] {
  const learnt = learntStatusTypes(
    known,
    [...docs].map((d) => d.status),
  );
  if (learnt.length === 0) return known;
  deps.state.statusTypes.learn(learnt);
  return [...known, ...learnt];
}

/** The service answered, but not with a list docsync reads: a 404, a 5xx, another shape. */
function answered(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    (error.code === 'HTTP_ERROR' || error.code === 'MALFORMED_RESPONSE')
  );
}

function waitReason(error: string): string {
  return `the service's status types could not be read (${error}); statuses are kept by the names the documents carry, and a status edited in a folder is pushed once they can be read (service.routes.statusTypes corrects the path)`;
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
    /** A stop: the catalogue's read ends between two entities. */
    readonly signal?: AbortSignal;
  },
  full: boolean,
): Promise<EntityRecord[]> {
  const refresh =
    (full && !options.owners) || options.refreshEntities || deps.state.entities.count() === 0;
  if (options.owners && !refresh) {
    // One entity's sync reads its own row: reading (and parsing) every entity's, as a sync
    // over all of them does, made a round of n entity syncs read n² rows.
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
      : await refreshEntities(deps, options.signal);
  if (!options.owners) return records.filter((r) => r.folder !== null);
  const wanted = new Set(options.owners.map(ownerKey));
  return records.filter((r) => r.folder !== null && wanted.has(ownerKey(r.entity)));
}
