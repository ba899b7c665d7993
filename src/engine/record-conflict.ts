/**
 * The conflict log (docs/state.md, `conflicts`): every conflict an action settled, whichever
 * side won, with where the losing version went, for `docsync status` and the status page.
 */
import type { SyncAction } from '../domain/sync-actions.js';
import type { BaseDocument, OwnerRef } from '../domain/types.js';
import type { NewConflict } from '../state/conflict-repo.js';
import type { PushPayload } from '../state/outbox-payloads.js';
import type { PulledConflict } from '../state/pull-in-doubt-repo.js';
import type { ActionContext } from './execute-action.js';

export interface ConflictOutcome {
  /** The document's folder after the action. */
  readonly folder: string;
  /** The document's id after the action (a restore gives it a new one). */
  readonly documentId: string;
  /** The copy's real name, when the store had to pick another than planned. */
  readonly keptAs?: string;
}

export function recordConflict(
  ctx: ActionContext,
  action: SyncAction,
  outcome: ConflictOutcome,
): void {
  const { conflict } = action;
  if (!conflict) return;
  const keptAs = outcome.keptAs ?? conflict.keptAs;
  ctx.deps.state.conflicts.record({
    owner: ctx.owner,
    documentId: outcome.documentId,
    attachmentId: action.kind === 'pull-attachment' ? action.attachment.id : null,
    copyPath: keptAs ? `${outcome.folder}/${keptAs}` : outcome.folder,
    winner: conflict.winner,
    detail: `row ${action.row}: ${conflict.detail}`,
    subject: conflict.subject,
    occurredAt: ctx.deps.now(),
  });
}

/**
 * A status push that wins a conflict (row 23) replaces the service user's status as it lands,
 * so its conflict is kept with the push (its outbox payload) and recorded in the commit that
 * completes it: on the service's answer, or when a push whose answer was lost is found carried
 * out (resolve-in-doubt.ts). Recorded after the action instead, a lost answer would leave the
 * service user's status overwritten with nothing to say so.
 */
export type StatusPushConflict = NonNullable<PushPayload<'assign-status'>['conflict']>;

/** What a `push-status` keeps of its conflict in the outbox; none without one. */
export function statusPushConflict(action: SyncAction): StatusPushConflict | undefined {
  const { conflict } = action;
  if (action.kind !== 'push-status' || conflict?.subject.kind !== 'status') return undefined;
  return { detail: `row ${action.row}: ${conflict.detail}`, lost: conflict.subject.lost };
}

/** The conflict log's record of a status push's conflict, for the commit that completes it. */
export function pushedStatusConflict(
  owner: OwnerRef,
  base: BaseDocument,
  kept: StatusPushConflict,
  now: number,
): NewConflict {
  const subject = { kind: 'status', lost: kept.lost } as const;
  const { detail } = kept;
  return keptConflictRecord(owner, base.id, base.folder, { winner: 'local', detail, subject }, now);
}

/**
 * A push that wins over a service user's delete (row 12: the document made again from its
 * folder; row 33: a file's new content uploaded over its removed attachment) brings back what
 * the service user removed, so, as a status push's, its conflict is kept with the push and
 * recorded in the commit that completes it. Recorded after the action instead, a lost answer or
 * a crash would leave the removal undone with nothing to say why.
 */
export type PushConflict = NonNullable<PushPayload<'upload-attachment'>['conflict']>;

/** What a push over a service user's delete keeps of its conflict; none without one. */
export function pushConflictOf(action: SyncAction): PushConflict | undefined {
  const { conflict } = action;
  const pushes =
    action.kind === 'push-attachment' ||
    (action.kind === 'restore-document' && action.side === 'remote');
  if (!pushes || !conflict || conflict.winner !== 'local') return undefined;
  const { subject } = conflict;
  if (subject.kind !== 'document' && subject.kind !== 'attachment') return undefined;
  return { detail: `row ${action.row}: ${conflict.detail}`, subject };
}

/** The conflict log's record of such a push's conflict, for the commit that completes it. */
export function pushedConflict(
  owner: OwnerRef,
  documentId: string,
  folder: string,
  kept: PushConflict,
  now: number,
): NewConflict {
  return keptConflictRecord(owner, documentId, folder, { winner: 'local', ...kept }, now);
}

/**
 * Whether an action's conflict goes in the commit that makes it true (a status push's, a push
 * over a service user's delete, a folder built again over a person's), not after the action.
 */
export function conflictInCommit(action: SyncAction): boolean {
  return (
    action.kind === 'push-status' ||
    pushConflictOf(action) !== undefined ||
    pulledConflict(action) !== null
  );
}

/**
 * A folder a person deleted, built again because the service changed the document (row 9): its
 * conflict says why the folder is back. It is kept with the pull's record before the folder
 * appears (`pulls_in_doubt`) and recorded in the commit that agrees on the folder, or in the
 * settlement of the pull after a crash (settle-pulls.ts). Recorded after the commit instead, a
 * crash in between would leave the person's delete undone with nothing to say so.
 */
export function pulledConflict(action: SyncAction): PulledConflict | null {
  const { conflict } = action;
  if (action.kind !== 'restore-document' || action.side !== 'local' || !conflict) return null;
  return {
    winner: conflict.winner,
    detail: `row ${action.row}: ${conflict.detail}`,
    subject: conflict.subject,
  };
}

/**
 * The conflict log's record of a conflict kept with a pull or a push, for the commit that agrees
 * on `folder`.
 */
export function keptConflictRecord(
  owner: OwnerRef,
  documentId: string,
  folder: string,
  kept: PulledConflict,
  now: number,
): NewConflict {
  return { owner, documentId, attachmentId: null, copyPath: folder, ...kept, occurredAt: now };
}
