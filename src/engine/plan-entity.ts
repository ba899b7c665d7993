/**
 * Observe both sides of one entity and plan (style guide §1): the service's changes since the
 * cursor (or everything, on a full reconcile), details only of documents whose timestamp moved,
 * the folder scanned with the base as hints (so unchanged files are not read), then planSync.
 */

import { RunStoppedError } from '../domain/errors.js';
import { isRenameNote } from '../domain/folder-notes.js';
import { idKey } from '../domain/ids.js';
import { missingDocuments } from '../domain/local-index.js';
import { toLocalName } from '../domain/local-names.js';
import { ownerKey } from '../domain/owner-key.js';
import { entityHeld, planSync } from '../domain/plan-sync.js';
import { renamedFolders } from '../domain/renamed-folders.js';
import type { SyncPlan } from '../domain/sync-actions.js';
import {
  compareServiceTimestamps,
  updatedAfterFor,
  withListTimestamp,
} from '../domain/timestamps.js';
import type { LocalEntitySnapshot, OwnerRef, RemoteDocument, StatusType } from '../domain/types.js';
import { isProofDocument, recordedProofIds } from '../domain/write-proofs.js';
import type { MalformedEntry } from '../remote/remote-store.js';
import type { EntityRecord } from '../state/entity-repo.js';
import type { ProblemItem } from '../state/problem-repo.js';
import { withLearntTypes } from './catalogue.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityLease } from './entity-locks.js';
import { readStoredState, type StoredEntityState } from './read-ahead.js';
import { settlePulls } from './settle-pulls.js';
import { emptyListingDisproved, verifyDeletions } from './verify-deletions.js';

/**
 * What executing one entity's plan needs. A cycle holds every entity's job until all are
 * planned (the rails judge the whole cycle), so a job keeps no more than that: not the base,
 * and the folder's documents only when there is something to do. Holding both kept every base
 * row and every parsed `.document.json` of a quiet start cycle alive until all were planned,
 * a large share of the memory of a cycle over a big store (docs/benchmarks.md).
 */
export interface EntityJob {
  readonly record: EntityRecord;
  readonly owner: OwnerRef;
  /** The cursor the listing started from (only this entity's execution moves it). */
  readonly cursor: string | null;
  /** The scanned folder; `documents` is empty when the plan has no actions. */
  readonly snapshot: LocalEntitySnapshot;
  /**
   * Listed documents and their timestamps, for the cursor: the details' where the list gave
   * none, null where neither did.
   */
  readonly listed: ReadonlyMap<string, string | null>;
  readonly remoteDocs: ReadonlyMap<string, RemoteDocument>;
  readonly malformed: readonly MalformedEntry[];
  /** Listed documents whose details could not be read: not planned, the cursor waits for them. */
  readonly detailFailures: ReadonlyMap<string, string | null>;
  readonly fullListing: boolean;
  /**
   * Documents whose deletion in the service this sync could judge: `all` after a whole listing,
   * else those asked about one by one (a webhook's, a held delete's). Held deletes use it.
   */
  readonly deletionsJudged: 'all' | ReadonlySet<string>;
  /** The status types the plan used: the cycle's, with those its documents carried (learnt). */
  readonly statusTypes: readonly StatusType[];
  readonly plan: SyncPlan;
}

export interface PlanEntityOptions {
  /** The entity's lease, held by the cycle: the pulls a crash left in doubt commit under it. */
  readonly lease: EntityLease;
  readonly fullReconcile: boolean;
  readonly pullOnly: boolean;
  readonly adoptLocal: boolean;
  readonly statusTypes: readonly StatusType[];
  /** The service's status types were never read: statuses typed in folders wait (row 55). */
  readonly statusPushesWait?: boolean;
  /** Document folders the first sync held back (still held until --adopt-local). */
  readonly heldFolders?: ReadonlySet<string>;
  /**
   * Documents to ask the service about one by one: those a `deleteDocument` webhook named, and
   * held deletes a person decided on (so an incremental sync can act on the decision).
   */
  readonly deletedIds?: ReadonlySet<string>;
  /** Held deletes a person discarded, by `heldKey` (rows 53, 54). */
  readonly discardedDeletes?: ReadonlySet<string>;
  /** The entity's base and cursor, when read ahead with others' (read here when absent). */
  readonly stored?: StoredEntityState;
  /** `--dry-run`: a pull a crash left in doubt is planned as settled, and nothing committed. */
  readonly dryRun?: boolean;
}

const toOwner = (record: EntityRecord): OwnerRef => ({
  kind: record.entity.kind,
  id: record.entity.id,
});

export async function planEntity(
  deps: EngineDeps,
  record: EntityRecord,
  options: PlanEntityOptions,
): Promise<EntityJob> {
  const owner = toOwner(record);
  const stored = options.stored ?? readStoredState(deps, owner);
  const { cursor } = stored;
  // The folder first: a missing entity folder holds the whole entity (row 50), and then there is
  // nothing to ask the service.
  const snapshot = await deps.local.scanEntity(owner, [...stored.base.values()], record.folder);
  // A new document's folder a crash left without its base gets it before anything is judged.
  const lease = options.dryRun ? null : options.lease;
  const base = await settlePulls(deps, owner, stored.base, snapshot, lease);
  const pullsInDoubt = deps.state.pullsInDoubt.forOwner(owner).length;
  const listing = entityHeld({ local: snapshot, base, pullsInDoubt })
    ? NOTHING_LISTED
    : await listChanges(deps, owner, base, options.fullReconcile ? null : cursor);
  const { listed, malformed, fullListing } = listing;
  for (const entry of malformed) reportMalformed(deps, owner, entry);
  const announced = knownIds(base, options.deletedIds);
  const verified = await verifyDeletions(deps, owner, {
    // An empty listing is judged by its own rail, which holds the trash it implies.
    unlisted:
      fullListing && malformed.length === 0 && listed.size > 0
        ? [...base.keys()].filter((id) => !listed.has(id))
        : null,
    announced,
    listed,
  });
  const emptyAndWrong =
    fullListing &&
    malformed.length === 0 &&
    listed.size === 0 &&
    (await emptyListingDisproved(
      deps,
      owner,
      [...base.keys()].filter((id) => !announced.has(id)),
    ));
  // A listing with holes (malformed items, a deletion the service would not confirm, an empty
  // one the service shows wrong) cannot prove a deletion.
  const listingProves = fullListing && malformed.length === 0 && !verified.unsure && !emptyAndWrong;
  const alive = new Map(verified.alive.map((d) => [d.id, d]));
  const { remoteDocs, detailFailures } = await readDetails(
    deps,
    owner,
    listing.stale.filter((id) => !alive.has(id)),
    listed,
  );
  for (const doc of alive.values()) remoteDocs.set(doc.id, doc);
  leaveProofDocuments(deps, owner, base, remoteDocs);
  // A list that gave no change time: the details' is the one the cursor and the base keep.
  for (const [id, doc] of remoteDocs)
    if (listed.get(id) === null) listed.set(id, doc.lastUpdatedTimestamp);
  const missing = missingDocuments(base, snapshot);
  const elsewhere =
    missing.length > 0 && snapshot.folder !== null
      ? await deps.local.locateDocuments(new Set(missing))
      : undefined;
  const renamed = renamedFolders({
    owner,
    entityName: record.entity.name,
    knownFolder: record.folder,
    folder: snapshot.folder,
    base,
    documents: snapshot.documents,
    noted: notedRenames(deps, owner),
  });
  const statusTypes = withLearntTypes(deps, options.statusTypes, remoteDocs.values());
  const skipped = [...snapshot.skipped, ...renamed];
  for (const entry of deps.state.skipped.replaceForOwner(owner, skipped, deps.now()))
    deps.logger.warn({ owner, path: entry.path }, `not synced: ${entry.path}: ${entry.reason}`);
  const plan = planSync(
    {
      owner,
      base,
      local: snapshot,
      knownFolder: record.folder,
      pullsInDoubt,
      ...(elsewhere ? { elsewhere } : {}),
      deletedInService: deletedInService(deps, owner, base, snapshot),
      remote: {
        changed: [...remoteDocs.values()],
        listedIds: listingProves ? new Set([...listed.keys(), ...alive.keys()]) : null,
        deletedIds: verified.deleted,
        unreadIds: new Set(detailFailures.keys()),
      },
      statusTypes,
      ...(options.statusPushesWait ? { statusPushesWait: true } : {}),
    },
    {
      onRemoteDelete: deps.settings.onRemoteDelete,
      pullOnly: options.pullOnly,
      adoptLocal: options.adoptLocal,
      ...(options.heldFolders ? { heldFolders: options.heldFolders } : {}),
      ...(options.discardedDeletes ? { discardedDeletes: options.discardedDeletes } : {}),
      clockOffsetMs: deps.clockOffsetMs(),
      utcOffsetMinutes: deps.settings.utcOffsetMinutes,
      // Plan pulls under the name the store will really write, or the next scan would not
      // find a file planned as `a:b.pdf` and pull it again.
      localFileName: (name) => toLocalName(name, 'file'),
    },
    deps.now(),
  );
  return {
    record,
    owner,
    cursor,
    snapshot: plan.actions.length > 0 ? snapshot : { ...snapshot, documents: [] },
    listed,
    remoteDocs,
    malformed,
    detailFailures,
    fullListing,
    deletionsJudged: listingProves ? 'all' : new Set([...verified.deleted, ...alive.keys()]),
    statusTypes,
    plan,
  };
}

/**
 * A test document of `check --write` is never pulled (domain/write-proofs.ts): it is the proof's
 * to delete, or, left by one that was interrupted, the next `check --write` or run's. One the
 * folder already holds (pulled by an older docsync) stays an ordinary document.
 */
function leaveProofDocuments(
  deps: EngineDeps,
  owner: OwnerRef,
  base: ReadonlyMap<string, unknown>,
  remoteDocs: Map<string, RemoteDocument>,
): void {
  const recorded = recordedProofIds(deps.state.writeProofs.list());
  for (const doc of remoteDocs.values()) {
    if (base.has(doc.id) || !isProofDocument(doc, recorded)) continue;
    remoteDocs.delete(doc.id);
    deps.logger.info(
      { owner: ownerKey(owner), documentId: doc.id },
      `not pulled: document ${doc.id} "${doc.name}" is a test document of docsync check --write`,
    );
  }
}

/** Where a list item the service sent broken is recorded: its document, else its entity. */
export function malformedItem(owner: OwnerRef, entry: MalformedEntry): ProblemItem {
  return entry.id === null ? { owner, path: '' } : { owner, documentId: entry.id };
}

/**
 * A document the service listed in a shape docsync cannot read: an item in error (status, page,
 * log) while the service sends it so; the rest of the entity syncs, and no deletion is judged.
 */
function reportMalformed(deps: EngineDeps, owner: OwnerRef, entry: MalformedEntry): void {
  const which = entry.id === null ? 'a document without a readable id' : `document ${entry.id}`;
  const reason = `the service listed ${which}: ${entry.error.message}; not synced until the service sends it whole`;
  deps.state.problems.record(malformedItem(owner, entry), reason, deps.now(), { backoff: false });
  deps.logger.warn({ owner: ownerKey(owner), documentId: entry.id }, reason);
}

/**
 * The base's ids among `ids` (a webhook's, a person's decision): matched in any spelling
 * (domain/ids.ts), returned as the base holds them, which is how the service is asked.
 */
function knownIds(base: ReadonlyMap<string, unknown>, ids: ReadonlySet<string> | undefined) {
  if (!ids || ids.size === 0) return new Set<string>();
  const wanted = new Set([...ids].map(idKey));
  return new Set([...base.keys()].filter((id) => wanted.has(idKey(id))));
}

/**
 * Of the documents the entity's folders name and the base does not know, those docsync deleted
 * in the service: their folders were put back after the delete (row 19). No statement at all
 * while every folder is known, as in a quiet sync.
 */
function deletedInService(
  deps: EngineDeps,
  owner: OwnerRef,
  base: ReadonlyMap<string, unknown>,
  snapshot: LocalEntitySnapshot,
): ReadonlySet<string> {
  const unknown = snapshot.documents.flatMap((d) =>
    d.meta && !base.has(d.meta.id) ? [d.meta.id] : [],
  );
  return deps.state.deletedInService.among(owner, unknown);
}

/** Folders an earlier sync noted as renamed (renamed-folders.ts): noted while they stay so. */
function notedRenames(deps: EngineDeps, owner: OwnerRef): Set<string> {
  const kept = deps.state.skipped.listForOwner(owner);
  return new Set(kept.filter((e) => isRenameNote(e.reason)).map((e) => e.path));
}

interface Listing {
  /** Listed documents and their timestamps (null where the list gave none), for the cursor. */
  readonly listed: Map<string, string | null>;
  readonly malformed: readonly MalformedEntry[];
  /** Listed documents whose timestamp differs from the base: their details are read. */
  readonly stale: readonly string[];
  readonly fullListing: boolean;
}

const NOTHING_LISTED: Listing = { listed: new Map(), malformed: [], stale: [], fullListing: false };

/**
 * The service's documents changed since the cursor, or all of them when there is none. One
 * listed without a change time is read in full, as changed, every time: nothing else can say
 * whether it changed.
 */
async function listChanges(
  deps: EngineDeps,
  owner: OwnerRef,
  base: ReadonlyMap<string, { readonly lastUpdatedTimestamp: string }>,
  cursor: string | null,
): Promise<Listing> {
  const updatedAfter =
    cursor === null ? null : updatedAfterFor(cursor, deps.settings.overlapSeconds);
  const listed = new Map<string, string | null>();
  const malformed: MalformedEntry[] = [];
  const stale: string[] = [];
  for await (const entry of deps.remote.documentVersions(
    owner,
    updatedAfter ? { updatedAfter } : {},
  )) {
    if ('malformed' in entry) {
      malformed.push(entry);
      continue;
    }
    listed.set(entry.id, entry.lastUpdatedTimestamp);
    const known = base.get(entry.id);
    // Unchanged since the agreement: no details, no work (a quiet cycle is one list request).
    if (
      !known ||
      entry.lastUpdatedTimestamp === null ||
      compareServiceTimestamps(known.lastUpdatedTimestamp, entry.lastUpdatedTimestamp) !== 0
    ) {
      stale.push(entry.id);
    }
  }
  return { listed, malformed, stale, fullListing: updatedAfter === null };
}

async function readDetails(
  deps: EngineDeps,
  owner: OwnerRef,
  ids: readonly string[],
  listed: ReadonlyMap<string, string | null>,
) {
  const remoteDocs = new Map<string, RemoteDocument>();
  const detailFailures = new Map<string, string | null>();
  let stopped: RunStoppedError | null = null;
  await Promise.all(
    ids.map(async (id) => {
      try {
        const doc = await deps.remote.document(owner, id, {
          listedAt: listed.get(id) ?? undefined,
        });
        remoteDocs.set(id, withListTimestamp(doc, listed.get(id)));
      } catch (error) {
        // A stop is no fault of the document: the entity is left whole for the next run.
        if (error instanceof RunStoppedError) {
          stopped = error;
          return;
        }
        detailFailures.set(id, listed.get(id) ?? null);
        deps.state.problems.record(
          { owner, documentId: id },
          `reading the document failed: ${(error as Error).message}`,
          deps.now(),
        );
      }
    }),
  );
  if (stopped) throw stopped;
  return { remoteDocs, detailFailures };
}
