/**
 * The plain object behind `docsync status --json` and the status page: what an operator needs to
 * know whether sync is healthy. Read in one read transaction, so the numbers agree with each
 * other even while the daemon writes. Times are ISO strings (UTC) because people and scripts
 * read this; ages are milliseconds.
 */

import { ownerKey } from '../domain/owner-key.js';
import type { OwnerKind, OwnerRef } from '../domain/types.js';
import type { CursorRecord } from './cursor-repo.js';
import type { Database } from './open-database.js';
import { schemaVersion } from './open-database.js';
import type { StateStore } from './state-store.js';

export interface CycleSummary {
  readonly trigger: string;
  readonly owner: OwnerRef | null;
  readonly fullReconcile: boolean;
  readonly startedAt: string;
  readonly finishedAt: string | null;
  readonly result: string | null;
  readonly counts: Readonly<Record<string, number>> | null;
  readonly error: string | null;
}

export interface EntityStatus {
  readonly owner: OwnerRef;
  readonly name: string | null;
  readonly folder: string | null;
  readonly cursor: string | null;
  readonly lastSuccessAt: string | null;
  /** How long since the entity last synced; null if never. */
  readonly lagMs: number | null;
  readonly lastFullReconcileAt: string | null;
  readonly lastError: string | null;
}

export interface StatusReport {
  readonly generatedAt: string;
  readonly schemaVersion: number;
  readonly initialSyncDone: boolean;
  readonly lastCycle: CycleSummary | null;
  readonly lastSuccessfulCycle: CycleSummary | null;
  readonly entities: readonly EntityStatus[];
  /**
   * What entity folders hold that the service does not have yet, found by the daemon's look at
   * every folder when it starts (daemon/local-work-check.ts), until each entity's sync ends:
   * files a stop left waiting are not pushes yet, so `pushes` says nothing of them.
   */
  readonly localWork: LocalWorkStatus;
  /**
   * The entities whose sync was asked for and has not succeeded yet (state/entity-work-repo.ts),
   * with those whose last sync failed: each is tried again when its wait ends.
   */
  readonly syncsWaiting: {
    readonly entities: number;
    /** Of them, those whose last sync failed; the first `FAILING_SHOWN` are in `failing`. */
    readonly failingEntities: number;
    readonly failing: readonly {
      readonly owner: OwnerRef;
      readonly reasons: readonly string[];
      readonly attempts: number;
      readonly lastError: string | null;
      readonly nextAttemptAt: string;
    }[];
  };
  readonly pushes: {
    readonly pending: number;
    readonly inDoubt: number;
    readonly failed: number;
    readonly failedItems: readonly {
      readonly id: number;
      readonly kind: string;
      readonly owner: OwnerRef;
      readonly documentId: string | null;
      readonly attempts: number;
      readonly lastError: string | null;
      readonly nextAttemptAt: string | null;
    }[];
  };
  readonly conflicts: {
    /** Open ones: nobody resolved them yet (`docsync conflicts`). */
    readonly total: number;
    /** The newest open ones. */
    readonly recent: readonly {
      readonly id: number;
      readonly owner: OwnerRef;
      readonly documentId: string;
      readonly copyPath: string;
      readonly winner: string;
      /** What each side did, with the decision-table row. */
      readonly detail: string | null;
      readonly occurredAt: string;
    }[];
  };
  readonly itemsInError: readonly {
    readonly owner: OwnerRef;
    readonly documentId: string | null;
    readonly path: string | null;
    readonly reason: string;
    readonly attempts: number;
    readonly firstSeenAt: string;
    readonly nextAttemptAt: string;
  }[];
  /**
   * Companies and trusts the service sent that docsync could not read whole: `error`, not
   * synced; `warning`, synced with something filled in (a trust named by its id).
   */
  readonly recordsInError: readonly {
    readonly kind: OwnerKind;
    readonly id: string | null;
    readonly level: 'error' | 'warning';
    readonly reason: string;
    readonly firstSeenAt: string;
  }[];
  readonly unmatchedFolders: readonly {
    readonly folder: string;
    readonly kind: OwnerKind;
    readonly reason: string;
  }[];
  /** Entries of the folder the last scans did not sync ("Not synced"), by path. */
  readonly notSynced: readonly {
    /** null for an entry beside the entity folders (a link at `Companies/Acme`). */
    readonly owner: OwnerRef | null;
    readonly path: string;
    readonly reason: string;
    readonly firstSeenAt: string;
  }[];
  readonly pendingWebhookEvents: number;
  /** Deletes a safety rail holds until a person decides (`docsync deletes`). */
  readonly heldDeletes: readonly {
    readonly owner: OwnerRef;
    readonly documentId: string;
    readonly documentName: string;
    /** `local`: the folder would go to the trash; `remote`: the document deleted in the service. */
    readonly side: 'local' | 'remote';
    readonly folder: string;
    readonly reason: string;
    readonly heldSince: string;
    /**
     * Under the daemon, a removed folder's delete waits its hold time before it counts: when
     * that ends. Null: a rail holds it until a person decides.
     */
    readonly waitingUntil: string | null;
    readonly decision: 'approve' | 'discard' | null;
  }[];
}

export interface LocalWorkStatus {
  readonly entities: number;
  readonly documents: number;
  readonly files: number;
  /** When the oldest of it was found; null when nothing waits. */
  readonly since: string | null;
  /** The entities with the most waiting (LOCAL_WORK_SHOWN at most). */
  readonly items: readonly {
    readonly owner: OwnerRef;
    readonly documents: number;
    readonly files: number;
    readonly foundAt: string;
  }[];
}

/** Entities of the local work listed by name; the rest are counted. */
export const LOCAL_WORK_SHOWN = 20;

/** Entities whose sync keeps failing, shown by name; the count says how many in all. */
const FAILING_SHOWN = 20;

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function buildStatusReport(store: StateStore, db: Database, now: number): StatusReport {
  return db.transaction(() => readReport(store, db, now)).deferred();
}

function readReport(store: StateStore, db: Database, now: number): StatusReport {
  return {
    generatedAt: iso(now),
    schemaVersion: schemaVersion(db),
    initialSyncDone: store.settings.initialSyncDone(),
    lastCycle: summariseCycle(store.cycles.last()),
    lastSuccessfulCycle: summariseCycle(store.cycles.lastSuccessful()),
    entities: entityStatuses(store, now),
    localWork: localWorkStatus(store),
    syncsWaiting: syncsWaitingStatus(store),
    pushes: pushStatus(store),
    conflicts: {
      total: store.conflicts.count(),
      recent: store.conflicts.list(20, { open: true }).map((c) => ({
        id: c.id,
        owner: c.owner,
        documentId: c.documentId,
        copyPath: c.copyPath,
        winner: c.winner,
        detail: c.detail,
        occurredAt: iso(c.occurredAt),
      })),
    },
    itemsInError: store.problems.list().map((p) => ({
      owner: p.owner,
      documentId: p.documentId,
      path: p.path,
      reason: p.reason,
      attempts: p.attempts,
      firstSeenAt: iso(p.firstSeenAt),
      nextAttemptAt: iso(p.nextAttemptAt),
    })),
    recordsInError: store.recordErrors.list().map(({ kind, id, level, reason, firstSeenAt }) => ({
      kind,
      id,
      level,
      reason,
      firstSeenAt: iso(firstSeenAt),
    })),
    unmatchedFolders: store.entities
      .listUnmatchedFolders()
      .map(({ folder, kind, reason }) => ({ folder, kind, reason })),
    notSynced: store.skipped
      .list()
      .map(({ owner, path, reason, firstSeenAt }) => ({
        owner,
        path,
        reason,
        firstSeenAt: iso(firstSeenAt),
      }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    pendingWebhookEvents: store.webhookEvents.countPending(),
    heldDeletes: store.heldDeletes.list().map((h) => ({
      owner: h.owner,
      documentId: h.documentId,
      documentName: h.documentName,
      side: h.side,
      folder: h.folder,
      reason: h.reason,
      heldSince: iso(h.firstHeldAt),
      waitingUntil: isoOrNull(h.dueAt),
      decision: h.decision,
    })),
  };
}

interface EntityCursor {
  readonly owner: OwnerRef;
  readonly name: string | null;
  readonly folder: string | null;
  readonly cursor: CursorRecord | null;
}

export function syncsWaitingStatus(store: StateStore): StatusReport['syncsWaiting'] {
  const tally = store.work.tally();
  return {
    entities: tally.entities,
    failingEntities: tally.failing,
    failing: store.work.failing(FAILING_SHOWN).map((w) => ({
      owner: w.owner,
      reasons: w.reasons,
      attempts: w.attempts,
      lastError: w.lastError,
      nextAttemptAt: iso(w.dueAt),
    })),
  };
}

export function localWorkStatus(store: StateStore): LocalWorkStatus {
  const { since, ...tally } = store.work.localTally();
  return {
    ...tally,
    since: isoOrNull(since),
    items: store.work
      .localWork(LOCAL_WORK_SHOWN)
      .map(({ foundAt, ...item }) => ({ ...item, foundAt: iso(foundAt) })),
  };
}

export function pushStatus(store: StateStore): StatusReport['pushes'] {
  const counts = store.outbox.counts();
  return {
    pending: counts.pending,
    inDoubt: counts.sent,
    failed: counts.failed,
    failedItems: store.outbox.failed().map((item) => ({
      id: item.id,
      kind: item.kind,
      owner: item.owner,
      documentId: item.documentId,
      attempts: item.attempts,
      lastError: item.lastError,
      nextAttemptAt: isoOrNull(item.nextAttemptAt),
    })),
  };
}

/** Every known entity with its cursor, plus cursors of entities no longer listed (if any). */
function entityStatuses(store: StateStore, now: number): EntityStatus[] {
  const cursors = new Map(store.cursors.list().map((c) => [ownerKey(c.owner), c]));
  const rows: EntityCursor[] = store.entities.list().map(({ entity, folder }) => {
    const owner: OwnerRef = { kind: entity.kind, id: entity.id };
    const cursor = cursors.get(ownerKey(owner)) ?? null;
    cursors.delete(ownerKey(owner));
    return { owner, name: entity.name, folder, cursor };
  });
  for (const cursor of cursors.values()) {
    rows.push({ owner: cursor.owner, name: null, folder: null, cursor });
  }
  return rows.map(({ owner, name, folder, cursor }) => ({
    owner,
    name,
    folder,
    cursor: cursor?.cursor ?? null,
    lastSuccessAt: isoOrNull(cursor?.lastSuccessAt ?? null),
    lagMs: cursor?.lastSuccessAt != null ? now - cursor.lastSuccessAt : null,
    lastFullReconcileAt: isoOrNull(cursor?.lastFullReconcileAt ?? null),
    lastError: cursor?.lastError ?? null,
  }));
}

export function summariseCycle(
  cycle: ReturnType<StateStore['cycles']['last']>,
): CycleSummary | null {
  if (!cycle) return null;
  return {
    trigger: cycle.trigger,
    owner: cycle.owner,
    fullReconcile: cycle.fullReconcile,
    startedAt: iso(cycle.startedAt),
    finishedAt: isoOrNull(cycle.finishedAt),
    result: cycle.result,
    counts: cycle.counts,
    error: cycle.error,
  };
}
