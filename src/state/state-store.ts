/**
 * One object for the engine: the state database, every repository on it, and the few
 * operations that must span repositories in one transaction (docs/state.md):
 *
 * - `commitAgreed`: the one writer of the agreed state (the base), with the outbox completion
 *   and the cursor it belongs to, so a base row changes only together with the recorded
 *   success of the action that produced it (style guide §9);
 * - `forgetEntity`: an entity, its cursor, its base rows, its problems, its entries not
 *   synced, its held deletes, the deletions webhooks announced for it, its work waiting and its
 *   webhook events go together;
 * - `receiveWebhookEvent`, `linkWebhookEvent`, `settleSync`, `settleEverySync`: a webhook event
 *   is an observation on its entity's work row, and settles with it;
 * - `transaction`: anything else the engine needs to commit as one.
 *
 * `close()` is idempotent (style guide §8): the daemon's shutdown path may call it twice.
 */
import type { BaseDocument, OwnerRef } from '../domain/types.js';
import { ActivityRepo } from './activity-repo.js';
import { AnnouncedDeletionRepo } from './announced-deletion-repo.js';
import { BaseRepo } from './base-repo.js';
import { ConflictRepo, type NewConflict } from './conflict-repo.js';
import { CursorRepo } from './cursor-repo.js';
import { CycleRepo } from './cycle-repo.js';
import { type DeletedInService, DeletedInServiceRepo } from './deleted-in-service-repo.js';
import { durably } from './durably.js';
import {
  EntityListing,
  type EntityPage,
  type EntityQuery,
  type StalestEntity,
} from './entity-listing.js';
import { EntityRepo } from './entity-repo.js';
import { EntityWorkRepo, type WorkRow } from './entity-work-repo.js';
import { type HealthFacts, readHealthFacts } from './health-facts.js';
import { HeldDeleteRepo } from './held-delete-repo.js';
import { MetaFileRepo } from './meta-file-repo.js';
import { type Database, type OpenDatabaseOptions, openDatabase } from './open-database.js';
import { OperatorDecisionRepo } from './operator-decision-repo.js';
import { OutboxRepo } from './outbox-repo.js';
import { ProblemRepo } from './problem-repo.js';
import { PullInDoubtRepo } from './pull-in-doubt-repo.js';
import { RecordErrorRepo } from './record-errors-repo.js';
import { SettingsRepo } from './settings-repo.js';
import { SkippedRepo } from './skipped-repo.js';
import { explainStateFailure } from './state-failure.js';
import { type PageProblems, readPageProblems } from './status-page-data.js';
import { buildStatusReport, type StatusReport } from './status-report.js';
import { StatusTypeRepo } from './status-type-repo.js';
import { TokenStore } from './token-store.js';
import { type EventAttempt, type NewWebhookEvent, WebhookEventRepo } from './webhook-event-repo.js';
import { WriteProofRepo } from './write-proof-repo.js';

/**
 * One change of the agreed state, and what it belongs with: committed together by
 * `commitAgreed`, or not at all.
 */
export interface AgreedChange {
  /** Documents' new agreed states, each replacing its row whole. */
  readonly put?: readonly BaseDocument[];
  /**
   * Documents no longer agreed on: deleted on both sides, forgotten, replaced by a restore. A
   * record that docsync deleted one in the service goes with it: it was created again.
   */
  readonly remove?: readonly string[];
  /** A delete the service accepted (its id is in `remove` too): recorded, for row 19. */
  readonly deletedInService?: DeletedInService;
  /** The push whose success this is: marked done in the same commit. */
  readonly push?: {
    readonly id: number;
    /** What the service answered, kept on the outbox row. */
    readonly result?: unknown;
    /** A create's new document id, handed to the pushes waiting on it. */
    readonly documentId?: string;
  };
  /** The entity's cursor, moved (forward only) over the changes it covers. */
  readonly cursor?: { readonly owner: OwnerRef; readonly to: string };
  /**
   * A conflict the push settled (row 23): recorded with its completion, so a push done is never
   * left without the record of what it replaced.
   */
  readonly conflict?: NewConflict;
}

/** How a sync of an entity ended, for `settleSync` (a stopped one settles nothing). */
export type SyncEnding =
  | { readonly kind: 'synced'; readonly full: boolean }
  | {
      readonly kind: 'failed';
      readonly error: string;
      /** When the row is due again after that many failed attempts. */
      readonly dueAfter: (attempts: number) => number;
    };

/** What `settleSync` settled: the row left (after a failure), the events done or failed. */
export interface SettledSync {
  readonly row: WorkRow | null;
  /** The entity has no work left (its row went with this sync). */
  readonly cleared: boolean;
  readonly done: readonly string[];
  readonly failed: readonly EventAttempt[];
}

export class StateStore {
  readonly tokens: TokenStore;
  readonly settings: SettingsRepo;
  readonly entities: EntityRepo;
  readonly cursors: CursorRepo;
  readonly base: BaseRepo;
  readonly outbox: OutboxRepo;
  readonly problems: ProblemRepo;
  /** Records of the service docsync could not read whole (companies, trusts). */
  readonly recordErrors: RecordErrorRepo;
  readonly conflicts: ConflictRepo;
  readonly webhookEvents: WebhookEventRepo;
  readonly cycles: CycleRepo;
  readonly statusTypes: StatusTypeRepo;
  readonly metaFiles: MetaFileRepo;
  readonly skipped: SkippedRepo;
  readonly activity: ActivityRepo;
  readonly #listing: EntityListing;
  readonly heldDeletes: HeldDeleteRepo;
  readonly announcedDeletions: AnnouncedDeletionRepo;
  readonly operatorDecisions: OperatorDecisionRepo;
  /** Documents docsync deleted in the service (row 19). */
  readonly deletedInService: DeletedInServiceRepo;
  /** New documents whose folder a pull is building, until their commit (settle-pulls.ts). */
  readonly pullsInDoubt: PullInDoubtRepo;
  /**
   * The work asked for each entity until a sync of it succeeds, with what its folder holds for
   * that sync (`docsync status`).
   */
  readonly work: EntityWorkRepo;
  /** The test documents of `check --write` not yet deleted in the service. */
  readonly writeProofs: WriteProofRepo;

  /** Opens (creating and migrating) the database at `file`. */
  static open(file: string, options: OpenDatabaseOptions = {}): StateStore {
    const db = openDatabase(file, options);
    try {
      return new StateStore(db);
    } catch (error) {
      // Preparing the statements reads the schema, the first thing a damaged file may fail.
      db.close();
      throw explainStateFailure(error, file);
    }
  }

  /** Wraps an already opened, migrated database; `close()` closes it. */
  constructor(readonly db: Database) {
    this.tokens = new TokenStore(db);
    this.settings = new SettingsRepo(db);
    this.entities = new EntityRepo(db);
    this.cursors = new CursorRepo(db);
    this.base = new BaseRepo(db);
    this.outbox = new OutboxRepo(db);
    this.problems = new ProblemRepo(db);
    this.recordErrors = new RecordErrorRepo(this.settings);
    this.conflicts = new ConflictRepo(db);
    this.webhookEvents = new WebhookEventRepo(db);
    this.cycles = new CycleRepo(db);
    this.statusTypes = new StatusTypeRepo(db, this.settings);
    this.metaFiles = new MetaFileRepo(db);
    this.skipped = new SkippedRepo(db);
    this.activity = new ActivityRepo(db);
    this.#listing = new EntityListing(db);
    this.heldDeletes = new HeldDeleteRepo(db);
    this.announcedDeletions = new AnnouncedDeletionRepo(db);
    this.operatorDecisions = new OperatorDecisionRepo(db);
    this.deletedInService = new DeletedInServiceRepo(db);
    this.pullsInDoubt = new PullInDoubtRepo(db);
    this.work = new EntityWorkRepo(db);
    this.writeProofs = new WriteProofRepo(this.settings, (fn) => this.transaction(fn));
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction (the write lock is taken up front, so it never fails
   * half way with SQLITE_BUSY). Repository calls inside nest as savepoints. `fn` must be
   * synchronous: no request may be awaited while the transaction is open.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /**
   * The one writer of the agreed state: the base rows change here and nowhere else, in one
   * transaction with the outbox completion and the cursor they belong to. A push done without
   * its base, or a base claiming an agreement the outbox still calls in doubt, cannot be left
   * behind by a crash.
   */
  commitAgreed(change: AgreedChange, now: number = Date.now()): void {
    const { push, cursor } = change;
    // Nothing agreed and no cursor moved (a quiet entity): no write transaction at all.
    if (!push && !cursor && !change.put?.length && !change.remove?.length) return;
    this.transaction(() => {
      if (push) {
        const outcome = { result: push.result, documentId: push.documentId };
        this.outbox.markDone(push.id, outcome, now);
      }
      for (const doc of change.put ?? []) {
        this.base.put(doc);
        this.pullsInDoubt.forget(doc.id);
      }
      for (const id of change.remove ?? []) {
        this.base.remove(id);
        this.deletedInService.forget(id);
        this.pullsInDoubt.forget(id);
      }
      if (change.deletedInService) this.deletedInService.add(change.deletedInService, now);
      if (change.conflict) this.conflicts.record(change.conflict);
      if (cursor) this.cursors.advance(cursor.owner, cursor.to);
    });
  }

  /**
   * Records a webhook event, flushed to disk before its 200 (`durably`). A new event of an entity
   * docsync knows is, in the same transaction, an observation on the entity's work row, with the
   * deletion it announces: a crash after the answer loses neither. False for a redelivery.
   */
  receiveWebhookEvent(event: NewWebhookEvent): boolean {
    return durably(this.db, () => {
      const isNew = this.webhookEvents.add(event);
      if (isNew) this.#linkEvent(event, event.receivedAt);
      return isNew;
    });
  }

  /**
   * Links a recorded event to its entity's work as `receiveWebhookEvent` would, now that the
   * entity list was read again: the entity (an event linked already keeps its own), or null when
   * docsync still does not know it or the event is settled.
   */
  linkWebhookEvent(eventId: string, now: number): OwnerRef | null {
    return this.transaction(() => {
      const event = this.webhookEvents.get(eventId);
      if (event?.state !== 'received') return null;
      return event.owner ?? this.#linkEvent(event, now);
    });
  }

  #linkEvent(event: NewWebhookEvent, now: number): OwnerRef | null {
    const record = this.entities.findById(event.entityId);
    if (!record) return null;
    const owner: OwnerRef = { kind: record.entity.kind, id: record.entity.id };
    const seen = this.work.observe(owner, { reason: 'webhook', lane: 'webhook', at: now });
    this.webhookEvents.link(event.eventId, owner, seen);
    if (event.subType === 'deleteDocument')
      this.announcedDeletions.add(owner, event.documentIds, event.eventId, now);
    return owner;
  }

  /**
   * A sync of the entity that started at observation `seen` ended: its work row and the webhook
   * events observed up to then settle together. Succeeded: the row is done up to `seen` (a full
   * listing's only by a full sync), and the events are. Failed: the row counts an attempt and is
   * due when `dueAfter` says, and each event counts one, left `failed` after the last.
   */
  settleSync(owner: OwnerRef, seen: number, end: SyncEnding, now: number): SettledSync {
    return this.transaction(() => {
      if (end.kind === 'synced') {
        const cleared = this.work.settle(owner, seen, end.full);
        const done = this.webhookEvents.settleDone(owner, seen, now);
        return { row: null, cleared, done, failed: [] };
      }
      const row = this.work.failed(owner, end.error, end.dueAfter);
      const nextAttemptAt = row?.dueAt ?? now;
      const failure = { error: end.error, now, nextAttemptAt };
      const failed = this.webhookEvents.settleFailed(owner, seen, failure);
      return { row, cleared: false, done: [], failed };
    });
  }

  /** A sync of every entity that started at `seen` succeeded: every row and event up to then. */
  settleEverySync(seen: number, full: boolean, now: number): readonly string[] {
    return this.transaction(() => {
      this.work.settleAll(seen, full);
      return this.webhookEvents.settleAllDone(seen, now);
    });
  }

  /** The entity is gone from the service: drop it and everything kept for it, together. */
  forgetEntity(owner: OwnerRef, now: number = Date.now()): void {
    this.transaction(() => {
      this.entities.remove(owner);
      this.cursors.remove(owner);
      this.base.removeOwner(owner);
      this.problems.clearOwner(owner);
      this.skipped.clearOwner(owner);
      this.heldDeletes.clearOwner(owner);
      this.announcedDeletions.clearOwner(owner);
      this.deletedInService.clearOwner(owner);
      this.pullsInDoubt.clearOwner(owner);
      this.work.clear(owner);
      // What its events asked for is moot: the entity's folder is kept, nothing syncs it now.
      this.webhookEvents.settleMoot(owner, now);
    });
  }

  statusReport(now: number = Date.now()): StatusReport {
    return buildStatusReport(this, this.db, now);
  }

  /** What `/healthz`, `/metrics` and the page's header read: cheap at any firm size. */
  healthFacts(): HealthFacts {
    return readHealthFacts(this, this.db);
  }

  /** The status page's parts, read one at a time (web/page-build.ts): its header and problems, */
  pageProblems(): PageProblems {
    return readPageProblems(this, this.db);
  }

  /** one page of entities, */
  entityPage(query: EntityQuery): EntityPage {
    return this.#listing.page(query);
  }

  /** and the entity synced longest ago (the activity is `activity.recent`). */
  stalestEntity(): StalestEntity | null {
    return this.#listing.stalest();
  }

  get closed(): boolean {
    return !this.db.open;
  }

  /** Closes the database; later calls do nothing. Never throws: it runs on the way out. */
  close(): void {
    if (!this.db.open) return;
    try {
      // Cheap, and keeps the query planner's statistics fresh for the next start.
      this.db.pragma('optimize');
    } catch {
      // It writes, so on a full disk or a damaged file it fails; the statistics are a nicety,
      // and whatever stopped docsync has been reported by whoever hit it first.
    }
    this.db.close();
  }
}
