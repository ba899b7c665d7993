/**
 * The conflict log (docs/state.md, `conflicts`): every conflict an action settled, whichever
 * side won, with where the losing version went, for `docsync status` and the status page.
 */
import type { SyncAction } from '../domain/sync-actions.js';
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
