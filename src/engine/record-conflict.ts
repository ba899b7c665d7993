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
  return {
    owner,
    documentId: base.id,
    attachmentId: null,
    copyPath: base.folder,
    winner: 'local',
    detail: kept.detail,
    subject: { kind: 'status', lost: kept.lost },
    occurredAt: now,
  };
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

/** The conflict log's record of a pull's conflict, for the commit that agrees on `folder`. */
export function pulledConflictRecord(
  owner: OwnerRef,
  documentId: string,
  folder: string,
  kept: PulledConflict,
  now: number,
): NewConflict {
  return { owner, documentId, attachmentId: null, copyPath: folder, ...kept, occurredAt: now };
}
