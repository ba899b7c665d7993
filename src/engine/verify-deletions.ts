/**
 * A deletion in the service is confirmed by the service before the folder goes to the trash: a
 * `deleteDocument` webhook can be late, replayed or wrong, and a document can drop out of an
 * offset-paged listing when another is deleted while it is read. One details request per
 * candidate settles it: 404 is a deletion; an answer means the document lives (its details are
 * then planned like any other change); anything else proves nothing, so nothing is deleted.
 */
import { hasFraction, withListTimestamp } from '../domain/timestamps.js';
import type { OwnerRef, RemoteDocument } from '../domain/types.js';
import type { EngineDeps } from './engine-deps.js';
import { isGone } from './push.js';

export interface DeletionClaims {
  /** Base documents the full listing did not show; null when there was no full listing. */
  readonly unlisted: readonly string[] | null;
  /** Base documents a `deleteDocument` webhook named. */
  readonly announced: ReadonlySet<string>;
  /** The listing's change times: a document's when its details carry none. */
  readonly listed?: ReadonlyMap<string, string | null>;
}

export interface VerifiedDeletions {
  /** Confirmed by a 404, whatever claimed them. */
  readonly deleted: ReadonlySet<string>;
  /** Claimed deleted, but the service still has them: fresh details, to plan as changed. */
  readonly alive: readonly RemoteDocument[];
  /** A candidate the service could not be asked about: the listing proves no deletion. */
  readonly unsure: boolean;
}

export async function verifyDeletions(
  deps: EngineDeps,
  owner: OwnerRef,
  claims: DeletionClaims,
): Promise<VerifiedDeletions> {
  const candidates = new Set([...(claims.unlisted ?? []), ...claims.announced]);
  const deleted = new Set<string>();
  const alive: RemoteDocument[] = [];
  let unsure = false;
  await Promise.all(
    [...candidates].map(async (id) => {
      try {
        const listedAt = claims.listed?.get(id) ?? undefined;
        alive.push(await deps.remote.document(owner, id, { listedAt }));
      } catch (error) {
        if (isGone(error)) deleted.add(id);
        else unsure = true;
      }
    }),
  );
  return { deleted, alive: await withListedTimes(deps, owner, alive, claims.listed), unsure };
}

/**
 * Whether an empty full listing is shown wrong: the documents it left out are read one at a time
 * until one is there (or cannot be asked about), so a listing the service got wrong costs one
 * request, and only a firm that really has nothing left costs one per document. An empty
 * listing's trash is held by its own rail (check-safety.ts), but not what else a deletion plans:
 * a document made again from its folder (row 12), a row forgotten (row 10).
 */
export async function emptyListingDisproved(
  deps: EngineDeps,
  owner: OwnerRef,
  unlisted: readonly string[],
): Promise<boolean> {
  for (const id of unlisted) {
    try {
      await deps.remote.document(owner, id);
      return true;
    } catch (error) {
      if (!isGone(error)) return true;
    }
  }
  return false;
}

/**
 * The details of a document found alive carry whole seconds (api.md); the base keeps the list's
 * microseconds, or the next full round finds the base a fraction of a second off and records it
 * then, a change no poll round could make (the list shows the document only once it changes
 * again). This sync's listing gives the fraction when it showed the document; one a webhook
 * named, or an incremental listing left out, is looked up in one listing of the owner, read
 * until each is seen. A listing that fails fails the sync, as the sync's own listing would: it
 * is tried again, rather than the seconds kept for good.
 */
async function withListedTimes(
  deps: EngineDeps,
  owner: OwnerRef,
  alive: readonly RemoteDocument[],
  listed: ReadonlyMap<string, string | null> | undefined,
): Promise<RemoteDocument[]> {
  const times = new Map<string, string>();
  for (const doc of alive) {
    const listedAt = listed?.get(doc.id);
    if (listedAt) times.set(doc.id, listedAt);
  }
  const unseen = new Set(
    alive.filter((d) => !times.has(d.id) && !hasFraction(d.lastUpdatedTimestamp)).map((d) => d.id),
  );
  if (unseen.size > 0) {
    for await (const entry of deps.remote.documentVersions(owner)) {
      if ('malformed' in entry || entry.lastUpdatedTimestamp === null) continue;
      if (!unseen.delete(entry.id)) continue;
      times.set(entry.id, entry.lastUpdatedTimestamp);
      if (unseen.size === 0) break;
    }
  }
  return alive.map((doc) => withListTimestamp(doc, times.get(doc.id)));
}
