/**
 * The inputs of `planSync` and what every planning step shares: the policy, "now" already
 * turned into the local date and conflict stamp, and the document an action is about.
 */
import type { RemoteInput } from './remote-changes.js';
import type { SyncAction } from './sync-actions.js';
import { conflictStampOf, localDateOf } from './timestamps.js';
import type {
  BaseDocument,
  LocalEntitySnapshot,
  LocatedDocuments,
  OwnerRef,
  StatusType,
} from './types.js';

export interface PlanInput {
  readonly owner: OwnerRef;
  readonly base: ReadonlyMap<string, BaseDocument>;
  readonly local: LocalEntitySnapshot;
  readonly remote: RemoteInput;
  readonly statusTypes: readonly StatusType[];
  /**
   * The service's list of status types was never read (engine/catalogue.ts): `statusTypes` are
   * only those the documents carry, so a status typed in a folder is not pushed (row 55).
   */
  readonly statusPushesWait?: boolean;
  /** Where the entity folder was last seen; row 50 names it when it has gone missing. */
  readonly knownFolder?: string | null;
  /**
   * New documents a pull placed in the entity folder and did not commit (engine/settle-pulls.ts):
   * the folder holds documents as surely as with a base, so its absence is row 50 too.
   */
  readonly pullsInDoubt?: number;
  /**
   * Base documents missing from the entity folder, looked for in the rest of the store (rows 18,
   * 51). Absent: nothing is missing, or nobody looked; a missing folder then reads as deleted.
   */
  readonly elsewhere?: LocatedDocuments;
  /**
   * Documents docsync deleted in the service, among those folders of the entity name and the
   * base does not know: each such folder was put back after its delete went out (row 19).
   */
  readonly deletedInService?: ReadonlySet<string>;
}

export interface PlanPolicy {
  /** `onRemoteDelete` of the configuration. */
  readonly onRemoteDelete: 'trash' | 'delete';
  /** The first sync of a store: nothing local is uploaded unless `adoptLocal`. */
  readonly pullOnly: boolean;
  /**
   * Folders the first sync held back (row 3): they stay held in later cycles too, until a run
   * with `adoptLocal` (daemon.md: never uploaded without --adopt-local).
   */
  readonly heldFolders?: ReadonlySet<string>;
  /** `--adopt-local`: upload local folders that match nothing, even on the first sync. */
  readonly adoptLocal: boolean;
  /** Service clock minus local clock (`clockOffsetMs` in timestamps.ts). */
  readonly clockOffsetMs: number;
  /** The local zone as minutes east of UTC, for "today" and conflict stamps; default 0. */
  readonly utcOffsetMinutes?: number;
  /**
   * Held deletes a person discarded (`docsync deletes discard`), by `heldKey`: the document is
   * made whole on the side that lost it instead (rows 53, 54).
   */
  readonly discardedDeletes?: ReadonlySet<string>;
  /** The legal local file name for a remote attachment name; default: unchanged. */
  readonly localFileName?: (remoteName: string) => string;
}

export interface PlanContext {
  readonly owner: OwnerRef;
  /** The entity folder, relative to the root (null when it is missing). */
  readonly entityFolder: string | null;
  readonly policy: PlanPolicy;
  readonly nowMs: number;
  /** yyyy-mm-dd in the local zone. */
  readonly today: string;
  /** yyyy-mm-dd hhmm in the local zone, for conflict copy names. */
  readonly stamp: string;
  readonly statusTypes: readonly StatusType[];
  /** PlanInput.statusPushesWait. */
  readonly statusPushesWait: boolean;
  readonly localFileName: (remoteName: string) => string;
  /** PlanInput.deletedInService. */
  readonly deletedInService: ReadonlySet<string>;
}

export function planContext(input: PlanInput, policy: PlanPolicy, now: Date | number): PlanContext {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  const offset = policy.utcOffsetMinutes ?? 0;
  return {
    owner: input.owner,
    entityFolder: input.local.folder,
    policy,
    nowMs,
    today: localDateOf(nowMs, offset),
    stamp: conflictStampOf(nowMs, offset),
    statusTypes: input.statusTypes,
    statusPushesWait: input.statusPushesWait ?? false,
    localFileName: policy.localFileName ?? ((name) => name),
    deletedInService: input.deletedInService ?? new Set(),
  };
}

type Common = 'owner' | 'documentId' | 'documentName';
/** An action without the fields every action of one document shares. */
export type Draft = SyncAction extends infer A
  ? A extends SyncAction
    ? Omit<A, Common>
    : never
  : never;

/** Stamps the shared fields on the drafts of one document. */
export function forDocument(
  ctx: PlanContext,
  documentId: string | null,
  documentName: string,
  drafts: readonly Draft[],
): SyncAction[] {
  return drafts.map((d) => ({ ...d, owner: ctx.owner, documentId, documentName }) as SyncAction);
}
