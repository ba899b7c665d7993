/**
 * What the status page shows: the problems first (the deletes the rails hold, open conflicts,
 * items in error, failed pushes, folders not synced), one page of entities, the stalest entity,
 * and the newest activity. Unlike `StatusReport` (`docsync status`), it never sends every
 * entity or every problem: each list is a screenful and its total.
 *
 * It is read in parts, each in one read transaction: the header's facts with the problem lists
 * (so the header's counts and the lists agree), the entity page, the stalest entity, the
 * activity. The status server reads them one at a time and lets the event loop run between
 * them (web/page-build.ts).
 */
import { ownerKey } from '../domain/owner-key.js';
import type { OwnerRef } from '../domain/types.js';
import type { ActivityRecord } from './activity-repo.js';
import type { ConflictRecord } from './conflict-repo.js';
import type { EntityPage, EntityQuery, StalestEntity } from './entity-listing.js';
import type { UnmatchedFolder } from './entity-repo.js';
import { type HealthFacts, readHealthFacts } from './health-facts.js';
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
  syncsWaitingStatus,
} from './status-report.js';

/** Rows of each problem list the page shows; the rest is counted. */
export const PROBLEMS_SHOWN = 50;
/** Lines of activity per page of the feed. */
export const ACTIVITY_SHOWN = 50;

export interface StatusPageQuery {
  readonly entities: EntityQuery;
  /** Page the feed back from this activity id. */
  readonly activityBefore?: number | undefined;
}

/** The page's header and its problem lists, read together. */
export interface PageProblems {
  /** What `/healthz` reads too: the header's verdict and counts (state/health-facts.ts). */
  readonly health: HealthFacts;
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
  /** Syncs asked for and not done, as `docsync status` says them. */
  readonly syncsWaiting: StatusReport['syncsWaiting'];
  readonly recordsInError: readonly RecordError[];
  readonly unmatchedFolders: readonly UnmatchedFolder[];
  readonly notSynced: readonly SkippedRecord[];
}

export interface StatusPageData extends PageProblems {
  readonly entities: EntityPage;
  /** The entity synced longest ago (or never); null when there are none. */
  readonly stalest: StalestEntity | null;
  readonly activity: readonly ActivityRecord[];
}

/** Every part at once, in one read transaction. */
/** The header's facts and the problem lists, in one read transaction. */
export function readPageProblems(store: StateStore, db: Database): PageProblems {
  return db
    .transaction((): PageProblems => {
      const health = readHealthFacts(store, db);
      const waitingRows = store.heldDeletes.waiting(PROBLEMS_SHOWN);
      const conflicts = store.conflicts.list(PROBLEMS_SHOWN, { open: true });
      const problems = store.problems.list(PROBLEMS_SHOWN);
      const pushes = pushStatus(store);
      const localWork = localWorkStatus(store);
      const syncsWaiting = syncsWaitingStatus(store);
      const owners = [
        ...localWork.items.map((w) => w.owner),
        ...syncsWaiting.failing.map((w) => w.owner),
        ...waitingRows.map((h) => h.owner),
        ...conflicts.map((c) => c.owner),
        ...problems.map((p) => p.owner),
        ...pushes.failedItems.map((f) => f.owner),
      ];
      return {
        health,
        initialSyncDone: store.settings.initialSyncDone(),
        lastCycle: health.lastCycle,
        lastSuccessfulCycle: health.lastSuccessfulCycle,
        pendingWebhookEvents: store.webhookEvents.countPending(),
        names: namesOf(store, owners),
        held: { ...store.heldDeletes.tally(), waitingRows },
        conflicts: { total: health.waiting.conflicts, recent: conflicts },
        itemsInError: { total: health.waiting['items-in-error'], items: problems },
        pushes,
        localWork,
        syncsWaiting,
        recordsInError: store.recordErrors.list(),
        unmatchedFolders: store.entities.listUnmatchedFolders(),
        notSynced: store.skipped.list(),
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
