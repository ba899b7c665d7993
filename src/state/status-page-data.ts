/**
 * What the status page shows, read in one read transaction so its numbers agree: the problems
 * first (the deletes the rails hold, open conflicts, items in error, failed pushes, folders not
 * synced),
 * one page of entities, and the newest activity. Unlike `StatusReport` (`docsync status`), it
 * never reads every entity or every problem: each list is a screenful and its total.
 */
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { ActivityRecord } from './activity-repo.js';
import type { ConflictRecord } from './conflict-repo.js';
import type { EntityListing, EntityPage, EntityQuery, EntityRow } from './entity-listing.js';
import type { UnmatchedFolder } from './entity-repo.js';
import type { HeldTally, WaitingDelete } from './held-delete-repo.js';
import type { Database } from './open-database.js';
import type { Problem } from './problem-repo.js';
import type { RecordError } from './record-errors-repo.js';
import type { SkippedRecord } from './skipped-repo.js';
import type { StateStore } from './state-store.js';
import {
  type CycleSummary,
  type LocalWorkStatus,
  localWorkStatus,
  pushStatus,
  type StatusReport,
  summariseCycle,
} from './status-report.js';

/** Rows of each problem list the page shows; the rest is counted. */
export const PROBLEMS_SHOWN = 50;
/** Lines of activity per page of the feed. */
export const ACTIVITY_SHOWN = 50;

const STALEST: EntityQuery = {
  search: '',
  kind: null,
  show: 'all',
  sort: 'lag',
  page: 1,
  pageSize: 1,
};

export interface StatusPageQuery {
  readonly entities: EntityQuery;
  /** Page the feed back from this activity id. */
  readonly activityBefore?: number | undefined;
}

export interface StatusPageData {
  readonly initialSyncDone: boolean;
  readonly lastCycle: CycleSummary | null;
  readonly lastSuccessfulCycle: CycleSummary | null;
  readonly pendingWebhookEvents: number;
  /** Names of the entities the lists below mention, by owner key. */
  readonly names: ReadonlyMap<string, string>;
  /**
   * The deletes the rails hold (`held_deletes`): those waiting for a decision, an entity's
   * together, and the counts, decided ones included, as `docsync status` counts them.
   */
  readonly held: HeldTally & { readonly waitingRows: readonly WaitingDelete[] };
  /** Open conflicts: a resolved one stays in the table, marked, and is not shown. */
  readonly conflicts: { readonly total: number; readonly recent: readonly ConflictRecord[] };
  readonly itemsInError: { readonly total: number; readonly items: readonly Problem[] };
  readonly pushes: StatusReport['pushes'];
  /** What entity folders hold for a sync not run yet, as `docsync status` says it. */
  readonly localWork: LocalWorkStatus;
  readonly recordsInError: readonly RecordError[];
  readonly unmatchedFolders: readonly UnmatchedFolder[];
  readonly notSynced: readonly SkippedRecord[];
  readonly entities: EntityPage;
  /** The entity synced longest ago (or never); null when there are none. */
  readonly stalest: EntityRow | null;
  readonly activity: readonly ActivityRecord[];
}

export function readStatusPage(
  store: StateStore,
  db: Database,
  listing: EntityListing,
  query: StatusPageQuery,
): StatusPageData {
  return db
    .transaction((): StatusPageData => {
      const waitingRows = store.heldDeletes.waiting(PROBLEMS_SHOWN);
      const conflicts = store.conflicts.list(PROBLEMS_SHOWN, { open: true });
      const problems = store.problems.list(PROBLEMS_SHOWN);
      const pushes = pushStatus(store);
      const localWork = localWorkStatus(store);
      const owners = [
        ...localWork.items.map((w) => w.owner),
        ...waitingRows.map((h) => h.owner),
        ...conflicts.map((c) => c.owner),
        ...problems.map((p) => p.owner),
        ...pushes.failedItems.map((f) => f.owner),
      ];
      return {
        initialSyncDone: store.settings.initialSyncDone(),
        lastCycle: summariseCycle(store.cycles.last()),
        lastSuccessfulCycle: summariseCycle(store.cycles.lastSuccessful()),
        pendingWebhookEvents: store.webhookEvents.countPending(),
        names: namesOf(store, owners),
        held: { ...store.heldDeletes.tally(), waitingRows },
        conflicts: { total: store.conflicts.count(), recent: conflicts },
        itemsInError: { total: store.problems.count(), items: problems },
        pushes,
        localWork,
        recordsInError: store.recordErrors.list(),
        unmatchedFolders: store.entities.listUnmatchedFolders(),
        notSynced: store.skipped.list(),
        entities: listing.page(query.entities),
        stalest: listing.page(STALEST).rows[0] ?? null,
        activity: store.activity.recent(ACTIVITY_SHOWN, query.activityBefore),
      };
    })
    .deferred();
}

function namesOf(store: StateStore, owners: readonly OwnerRef[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const owner of owners) {
    const key = ownerKey(owner);
    if (names.has(key)) continue;
    const record = store.entities.get(owner);
    if (record) names.set(key, record.entity.name);
  }
  return names;
}
