/**
 * What a finished action changed, as the status page's activity feed shows it ("Acme Pty Ltd /
 * 2024-06-30 Minutes: pulled minutes.pdf"): the direction, the document and the file. Pure: the
 * executor asks it after each action that succeeded and records what it returns. Its words are
 * describe-done.ts's, beside the log line's; bookkeeping (the base, `.document.json` rewritten
 * from it, a folder adopted) is not activity: nothing a person sees moved.
 */
import type { ActionDirection } from './action-direction.js';
import { assertNever } from './assert-never.js';
import { describeDone } from './describe-done.js';
import type { SyncAction } from './sync-actions.js';
import type { BaseDocument } from './types.js';

/** Where a change went (action-direction.ts). The words the page shows are `describeChange`'s. */
export type ActivityChange = ActionDirection;

/** One line of the feed, before it is stored with its entity and time. */
export interface ActivityItem {
  readonly documentId: string | null;
  readonly documentName: string;
  readonly change: ActivityChange;
  /** The file the change is about; null for a change to the document as a whole. */
  readonly file: string | null;
  /** What else a person needs: "new document", "status Lodged", "kept as …". */
  readonly detail: string | null;
}

/**
 * The feed's lines for `action`, which succeeded and left `after` as the document's base: one
 * per file of a whole document (as placed or sent), or one for the document.
 */
export function activityOf(action: SyncAction, after: BaseDocument | null): ActivityItem[] {
  const done = describeDone(action, after);
  const change = done?.change;
  if (!done || !change) return [];
  const item = (file: string | null): ActivityItem => ({
    documentId: after?.id ?? action.documentId,
    documentName: action.documentName,
    change,
    file,
    detail: done.detail,
  });
  return done.files.length === 0 ? [item(null)] : done.files.map(item);
}

/** The direction in words, for the page. */
export function describeChange(change: ActivityChange): string {
  switch (change) {
    case 'pulled':
      return 'pulled';
    case 'pushed':
      return 'pushed';
    case 'deleted-in-service':
      return 'deleted in the service';
    case 'trashed-locally':
      return 'moved to the trash';
    case 'deleted-locally':
      return 'deleted locally';
    case 'conflict':
      return 'conflict';
    default:
      return assertNever(change);
  }
}
