/**
 * Where each kind of action sends its change, and what it moves: the one classification that
 * the log line and the status page's feed (describe-done.ts, activity.ts), the plan's summary
 * line (describe-plan.ts) and a run's counts (engine/cycle-tally.ts) derive from, so they never
 * disagree on what counts as pulled, pushed or deleted. A new action kind does not compile until
 * it is classified here.
 */
import { assertNever } from './assert-never.js';
import type { SyncAction } from './sync-actions.js';

/**
 * - `pulled`: from the service into the folder;
 * - `pushed`: from the folder into the service;
 * - `deleted-in-service`: removed from the folder, so deleted in the service (its copy is kept
 *   in `.docsync/trash/` first);
 * - `trashed-locally`: deleted in the service, so the folder's copy goes to `.docsync/trash/`;
 * - `deleted-locally`: the same, removed for good (`onRemoteDelete: "delete"`);
 * - `conflict`: both sides changed a file; the losing version is kept beside it as a copy.
 *
 * The feed stores these words (the activity table checks them: a new one needs a migration).
 */
export type ActionDirection =
  | 'pulled'
  | 'pushed'
  | 'deleted-in-service'
  | 'trashed-locally'
  | 'deleted-locally'
  | 'conflict';

/** What an action moves, as the plan's summary counts it ("pull 2 new documents, 1 file"). */
export type Moved = 'new document' | 'document' | 'file' | 'status' | 'details';

export interface Movement {
  readonly direction: ActionDirection;
  readonly moved: Moved;
}

const movement = (direction: ActionDirection, moved: Moved): Movement => ({ direction, moved });

/** Where `action` sends its change; null for bookkeeping, which changes only docsync's record. */
export function movementOf(action: SyncAction): Movement | null {
  switch (action.kind) {
    case 'pull-new-document':
      return movement('pulled', 'new document');
    case 'pull-attachment':
    case 'restore-system-attachment':
      return movement('pulled', 'file');
    case 'pull-status':
      return movement('pulled', 'status');
    case 'pull-details':
      return movement('pulled', 'details');
    case 'push-new-document':
      return movement('pushed', 'new document');
    case 'push-attachment':
    case 'push-replaced-attachment':
      return movement('pushed', 'file');
    case 'push-status':
      return movement('pushed', 'status');
    case 'restore-document':
      return movement(action.side === 'local' ? 'pulled' : 'pushed', 'document');
    case 'push-delete-document':
      return movement('deleted-in-service', 'document');
    case 'push-delete-attachment':
      return movement('deleted-in-service', 'file');
    case 'trash-local-document':
      return movement(action.mode === 'trash' ? 'trashed-locally' : 'deleted-locally', 'document');
    case 'trash-local-attachment':
      return movement('trashed-locally', 'file');
    case 'keep-conflict-copy':
      return movement('conflict', 'file');
    case 'adopt-local-folder':
    case 'move-base-folder':
    case 'write-document-meta':
    case 'forget-document':
    case 'update-base':
    case 'record-problem':
      return null;
    default:
      return assertNever(action);
  }
}

export function directionOf(action: SyncAction): ActionDirection | null {
  return movementOf(action)?.direction ?? null;
}
