/**
 * What a sync plan asks the executor to do, as sentences (style guide §3). Every action carries
 * the `row` of docs/sync-decision-table.md that produced it, so a log line, a `--dry-run` plan
 * and a test all point at the same rule.
 */
import type {
  BaseDocument,
  LocalFile,
  OwnerRef,
  RemoteAttachment,
  RemoteDocument,
  RemoteStatus,
} from './types.js';

/**
 * Both sides changed the same thing and this action settles it: who won, and where the losing
 * version went. The executor records it in the conflict log when the action succeeds, whichever
 * side won, so `docsync status` lists every conflict.
 */
export interface Conflict {
  readonly winner: 'local' | 'remote';
  /** One line for the operator: what each side did and why this side won. */
  readonly detail: string;
  /** The losing version's file name in the document folder, when it was kept as a copy. */
  readonly keptAs?: string;
  /** What the two sides disagreed on: what `docsync conflicts resolve` acts on. */
  readonly subject: ConflictSubject;
}

/**
 * What a conflict was about, with what resolving it needs (domain/plan-resolution.ts):
 * - `file`: both sides put a file under one name (rows 42, 43); `keptAs` holds the loser's
 *   version beside `file`, the winner's;
 * - `local-edit`: a system form edited in the folder and removed in the service (row 37); the
 *   edit is `keptAs`, and `file` is gone;
 * - `attachment`: a file replaced in the folder and removed in the service (row 33); the new
 *   content went up as a new attachment under `file`;
 * - `status`: a status set on both sides (rows 23, 24); `lost` is the losing side's status name
 *   (null: the service had none);
 * - `document`: deleted on one side and changed on the other (rows 9, 12); it was restored.
 */
export type ConflictSubject =
  | { readonly kind: 'file'; readonly file: string }
  | { readonly kind: 'local-edit'; readonly file: string }
  | { readonly kind: 'attachment'; readonly file: string }
  | { readonly kind: 'status'; readonly lost: string | null }
  | { readonly kind: 'document' };

interface ActionCommon {
  /** Row of docs/sync-decision-table.md. */
  readonly row: number;
  /** Set when the action settles a conflict (rows 9, 12, 23, 24, 33, 37, 42, 43; 5 and 55 at times). */
  readonly conflict?: Conflict;
  readonly owner: OwnerRef;
  /** Null only for a folder that has no document yet (new or unmatched). */
  readonly documentId: string | null;
  /** The document's name, for humans (`--dry-run`, logs). */
  readonly documentName: string;
}

/** Where a pulled attachment goes: the local file name inside the document folder. */
export interface PlannedFile {
  readonly attachment: RemoteAttachment;
  readonly file: string;
}

export type ProblemCode =
  | 'unmatched-local-folder'
  | 'orphan-document-folder'
  | 'meta-unreadable'
  | 'deletion-held'
  | 'duplicate-document-folder'
  | 'unknown-status'
  | 'status-push-waits'
  | 'entity-folder-missing'
  | 'document-folder-moved'
  | 'document-of-another-entity';

/**
 * Problems only the person can correct, which say nothing of whether the service's documents
 * reached the folder: a status typed that the service has no type for (row 25) stays in the
 * file and in error until they retype it (row 29). Such an item must not hold back the end of
 * the first sync, which would otherwise never come (seed 2350): every other problem, and every
 * failure, still does.
 */
export const PERSONS_TO_CORRECT: ReadonlySet<ProblemCode> = new Set(['unknown-status']);

export type SyncAction =
  | (ActionCommon & {
      readonly kind: 'pull-new-document';
      readonly document: RemoteDocument;
      /** Null: the executor creates a folder per the naming rules. */
      readonly folder: string | null;
      readonly files: readonly PlannedFile[];
    })
  | (ActionCommon & {
      readonly kind: 'pull-attachment';
      readonly folder: string;
      readonly attachment: RemoteAttachment;
      readonly file: string;
      /**
       * A new local file of the attachment's name that the service does not have yet (rows 42,
       * 43), or at a numbered name (rows 41, 44: a pull placed before a crash). The executor compares their bytes first:
       * identical, they are no conflict at all, and the file is the attachment.
       */
      readonly clashesWith?: string;
    })
  | (ActionCommon & {
      readonly kind: 'pull-status';
      readonly folder: string;
      readonly status: RemoteStatus | null;
    })
  | (ActionCommon & {
      readonly kind: 'pull-details';
      readonly folder: string;
      readonly name: string;
      readonly documentDate: string;
    })
  | (ActionCommon & {
      readonly kind: 'push-new-document';
      readonly folder: string;
      readonly name: string;
      readonly documentDate: string;
      readonly files: readonly LocalFile[];
    })
  | (ActionCommon & {
      readonly kind: 'push-attachment';
      readonly folder: string;
      readonly file: LocalFile;
    })
  | (ActionCommon & {
      readonly kind: 'push-replaced-attachment';
      readonly folder: string;
      readonly file: LocalFile;
      /** Deleted after the new content is uploaded. */
      readonly replacesAttachmentId: string;
    })
  | (ActionCommon & {
      readonly kind: 'push-delete-attachment';
      readonly folder: string;
      readonly attachmentId: string;
      readonly file: string;
    })
  | (ActionCommon & {
      readonly kind: 'push-status';
      readonly folder: string;
      readonly statusTypeId: string;
      readonly statusName: string;
      readonly effectiveDate: string;
      /**
       * The service's status record the push replaces, as the plan saw it: the newer one a
       * newer local edit wins over (row 23); absent, the agreed one (row 20). Another one
       * there when the push goes out was set since the plan, and is not overwritten.
       */
      readonly replacesStatusId?: string | null;
    })
  | (ActionCommon & { readonly kind: 'push-delete-document'; readonly folder: string })
  | (ActionCommon & {
      readonly kind: 'trash-local-attachment';
      readonly folder: string;
      readonly attachmentId: string;
      readonly file: string;
    })
  | (ActionCommon & {
      readonly kind: 'trash-local-document';
      readonly folder: string;
      /** `onRemoteDelete`: move to `.docsync/trash/` or delete. */
      readonly mode: 'trash' | 'delete';
      /** How the deletion is known; the empty-listing rail only distrusts `full-listing`. */
      readonly source: 'full-listing' | 'delete-event';
    })
  | (ActionCommon & {
      readonly kind: 'keep-conflict-copy';
      readonly folder: string;
      /** Renamed locally to `copyName`; uploaded as its own attachment next cycle. */
      readonly file: string;
      readonly copyName: string;
    })
  | (ActionCommon & {
      readonly kind: 'restore-system-attachment';
      readonly folder: string;
      readonly attachmentId: string;
      readonly file: string;
      /** The user's edited content is first renamed to this; null when the file was deleted. */
      readonly keepEditAs: string | null;
    })
  | (ActionCommon & {
      readonly kind: 'move-base-folder';
      readonly from: string;
      readonly to: string;
    })
  | (ActionCommon & {
      readonly kind: 'restore-document';
      /** `local`: download the document again; `remote`: create it again from the folder. */
      readonly side: 'local';
      readonly document: RemoteDocument;
      readonly files: readonly PlannedFile[];
    })
  | (ActionCommon & {
      readonly kind: 'restore-document';
      readonly side: 'remote';
      /**
       * The folder was put back after docsync deleted its document in the service (row 19): no
       * conflict, the person's document come back. Absent: rows 12 and 54.
       */
      readonly putBack?: true;
      readonly folder: string;
      readonly name: string;
      readonly documentDate: string;
      readonly statusTypeId: string | null;
      readonly files: readonly LocalFile[];
    })
  | (ActionCommon & {
      readonly kind: 'adopt-local-folder';
      readonly folder: string;
      /** The base reconstructed from the folder and the service; the first thing committed. */
      readonly base: BaseDocument;
    })
  | (ActionCommon & { readonly kind: 'write-document-meta'; readonly folder: string })
  | (ActionCommon & { readonly kind: 'forget-document' })
  | (ActionCommon & {
      readonly kind: 'update-base';
      /** Fields of the base to overwrite; `dropAttachmentIds` leave the base. */
      readonly patch: BasePatch;
    })
  | (ActionCommon & {
      readonly kind: 'record-problem';
      readonly folder: string | null;
      readonly problem: ProblemCode;
      readonly message: string;
    });

export type SyncActionKind = SyncAction['kind'];

export interface BasePatch {
  readonly name?: string;
  readonly documentDate?: string;
  readonly lastUpdatedTimestamp?: string;
  readonly statusId?: string | null;
  readonly statusTypeId?: string | null;
  readonly statusDate?: string | null;
  readonly dropAttachmentIds?: readonly string[];
}

/** The actions of one document (or one new folder), in the order they must run. */
export interface DocumentPlan {
  /** Document id, or `folder:<path>` for a folder that has no document yet. */
  readonly key: string;
  readonly documentId: string | null;
  readonly actions: readonly SyncAction[];
}

export interface SyncPlan {
  readonly owner: OwnerRef;
  readonly documents: readonly DocumentPlan[];
  /** Every action of `documents`, flattened in order. */
  readonly actions: readonly SyncAction[];
  /** Counts per action kind, for the log line "company 123: 3 new, 1 status, 1 delete". */
  readonly summary: Readonly<Partial<Record<SyncActionKind, number>>>;
  /**
   * The whole entity is held (row 50: its folder is missing): nothing of it runs, and its
   * cursor and last sync stay where they are until the folder is back.
   */
  readonly held: boolean;
  /** What the safety rails need to know about the input. */
  readonly stats: {
    readonly baseDocuments: number;
    /** Size of the full listing, null when this cycle had none. */
    readonly listedDocuments: number | null;
  };
}

/** Counts per action kind. */
export function summariseActions(
  actions: readonly SyncAction[],
): Partial<Record<SyncActionKind, number>> {
  const summary: Partial<Record<SyncActionKind, number>> = {};
  for (const a of actions) summary[a.kind] = (summary[a.kind] ?? 0) + 1;
  return summary;
}
