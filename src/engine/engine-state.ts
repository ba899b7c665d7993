/**
 * What the engine needs of the state database, and no more: the view it is written against.
 * The SQLite StateStore (src/state/) is the one implementation and the composition root hands it
 * in; the engine never names the class, so a repository method it does not use can change
 * without touching it, and a test may stand in with anything of this shape.
 */
import type { OwnerRef } from '../domain/types.js';
import type { ActivityRepo } from '../state/activity-repo.js';
import type { AnnouncedDeletionRepo } from '../state/announced-deletion-repo.js';
import type { BaseRepo } from '../state/base-repo.js';
import type { ConflictRepo } from '../state/conflict-repo.js';
import type { CursorRepo } from '../state/cursor-repo.js';
import type { CycleRepo } from '../state/cycle-repo.js';
import type { DeletedInServiceRepo } from '../state/deleted-in-service-repo.js';
import type { EntityRepo } from '../state/entity-repo.js';
import type { HeldDeleteRepo } from '../state/held-delete-repo.js';
import type { MetaFileRepo } from '../state/meta-file-repo.js';
import type { OutboxRepo } from '../state/outbox-repo.js';
import type { ProblemRepo } from '../state/problem-repo.js';
import type { PullInDoubtRepo } from '../state/pull-in-doubt-repo.js';
import type { RecordErrorRepo } from '../state/record-errors-repo.js';
import type { SettingsRepo } from '../state/settings-repo.js';
import type { SkippedRepo } from '../state/skipped-repo.js';
import type { AgreedChange } from '../state/state-store.js';
import type { StatusTypeRepo } from '../state/status-type-repo.js';
import type { WriteProofRepo } from '../state/write-proof-repo.js';

export interface EngineState {
  /** Read only: the agreed state changes through `commitAgreed` alone. */
  readonly base: Pick<BaseRepo, 'get' | 'count' | 'countAll' | 'listByOwner' | 'listByOwners'>;
  /**
   * The cursor moves with the agreed state (`commitAgreed`); a sync's success or failure is
   * only noted beside it, for the status page.
   */
  readonly cursors: Pick<CursorRepo, 'get' | 'getMany' | 'markSynced' | 'markFailed'>;
  readonly entities: Pick<
    EntityRepo,
    | 'get'
    | 'count'
    | 'list'
    | 'folders'
    | 'owners'
    | 'upsert'
    | 'listUnmatchedFolders'
    | 'replaceUnmatchedFolders'
  >;
  readonly outbox: Pick<
    OutboxRepo,
    | 'record'
    | 'get'
    | 'markSent'
    | 'markStep'
    | 'markFailed'
    | 'dropUnsent'
    | 'inDoubt'
    | 'supersede'
  >;
  readonly problems: Pick<ProblemRepo, 'record' | 'clear' | 'clearKeys' | 'list'>;
  /** The companies and trusts the service sent that could not be read whole. */
  readonly recordErrors: Pick<RecordErrorRepo, 'replace' | 'list'>;
  readonly conflicts: Pick<ConflictRepo, 'record' | 'copiesOf'>;
  readonly cycles: Pick<CycleRepo, 'start' | 'finish'>;
  readonly settings: Pick<SettingsRepo, 'initialSyncDone' | 'markInitialSyncDone'>;
  readonly statusTypes: Pick<
    StatusTypeRepo,
    'list' | 'replaceAll' | 'learn' | 'fetchedAt' | 'unreadable' | 'markUnreadable'
  >;
  readonly skipped: Pick<
    SkippedRepo,
    'replaceForOwner' | 'replaceEntityFolders' | 'listForOwner' | 'note'
  >;
  readonly metaFiles: MetaFileRepo;
  /** The status page's feed of what the executor changed. */
  readonly activity: Pick<ActivityRepo, 'record'>;
  readonly heldDeletes: Pick<
    HeldDeleteRepo,
    'hold' | 'wait' | 'holdWaiting' | 'undecided' | 'inHold' | 'list' | 'remove'
  >;
  /** Deletions webhooks announced, until a sync of their entity settles them. */
  readonly announcedDeletions: Pick<AnnouncedDeletionRepo, 'forOwner' | 'remove'>;
  /** Read only: a delete is recorded by `commitAgreed`, with its base row's removal. */
  readonly deletedInService: Pick<DeletedInServiceRepo, 'among'>;
  /**
   * New documents whose folder a pull is building: recorded before it is made, gone in the
   * commit that agrees on the document (`commitAgreed`) or when the next sync settles it.
   */
  readonly pullsInDoubt: Pick<PullInDoubtRepo, 'add' | 'forget' | 'forOwner'>;
  /**
   * The test documents of `check --write`: a sync never pulls one, and removes those an
   * interrupted proof left (domain/write-proofs.ts).
   */
  readonly writeProofs: Pick<WriteProofRepo, 'list' | 'finish'>;
  /** Runs `fn` in one write transaction; it must not await. */
  transaction<T>(fn: () => T): T;
  /**
   * The one writer of the agreed state: base rows, with the push they complete and the cursor
   * they belong to, in one commit.
   */
  commitAgreed(change: AgreedChange, now?: number): void;
  /** The entity and everything kept for it go together. */
  forgetEntity(owner: OwnerRef): void;
}
