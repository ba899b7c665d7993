/**
 * What a finished action changed, as the status page's activity feed shows it ("Acme Pty Ltd /
 * 2024-06-30 Minutes: pulled minutes.pdf"): the direction, the document and the file. Pure: the
 * executor asks it after each action that succeeded and records what it returns. Bookkeeping
 * (the base, `.document.json` rewritten from it) is not activity: nothing a person sees moved.
 */
import { assertNever } from './assert-never.js';
import type { SyncAction } from './sync-actions.js';
import type { BaseDocument } from './types.js';

/** Where a change went. The words the page shows are in `describeChange`. */
export const ACTIVITY_CHANGES = [
  'pulled',
  'pushed',
  'deleted-in-service',
  'trashed-locally',
  'deleted-locally',
  'conflict',
] as const;
export type ActivityChange = (typeof ACTIVITY_CHANGES)[number];

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

/** The feed's lines for `action`, which succeeded and left `after` as the document's base. */
export function activityOf(action: SyncAction, after: BaseDocument | null): ActivityItem[] {
  const item = (change: ActivityChange, file: string | null, detail: string | null = null) => ({
    documentId: after?.id ?? action.documentId,
    documentName: action.documentName,
    change,
    file,
    detail,
  });
  /** One line per file of a whole document (as placed or sent), or one for the document. */
  const perFile = (change: 'pulled' | 'pushed', ids: readonly string[] | null, detail: string) => {
    const files = (after?.attachments ?? []).filter((a) => ids === null || ids.includes(a.id));
    return files.length === 0
      ? [item(change, null, detail)]
      : files.map((f) => item(change, f.file, detail));
  };
  switch (action.kind) {
    case 'pull-new-document':
      return perFile(
        'pulled',
        action.files.map((f) => f.attachment.id),
        'new document',
      );
    case 'push-new-document':
      return perFile('pushed', null, 'new document');
    case 'restore-document':
      return action.side === 'local'
        ? perFile(
            'pulled',
            action.files.map((f) => f.attachment.id),
            'again: changed in the service after it was deleted here',
          )
        : perFile('pushed', null, 'again: changed here after the service deleted it');
    case 'pull-attachment': {
      const placed = after?.attachments.find((a) => a.id === action.attachment.id);
      return [item('pulled', placed?.file ?? action.file)];
    }
    case 'restore-system-attachment':
      return [
        item(
          'pulled',
          action.file,
          action.keepEditAs
            ? `the service's copy again; the edit kept as ${action.keepEditAs}`
            : "the service's copy again",
        ),
      ];
    case 'push-attachment':
      return [item('pushed', action.file.name)];
    case 'push-replaced-attachment':
      return [item('pushed', action.file.name, 'new content')];
    case 'pull-status':
      return [item('pulled', null, action.status ? `status ${action.status.type}` : 'no status')];
    case 'push-status':
      return [item('pushed', null, `status ${action.statusName}, from ${action.effectiveDate}`)];
    case 'pull-details':
      return [item('pulled', null, `name and date: ${action.documentDate} ${action.name}`)];
    case 'push-delete-attachment':
      return [item('deleted-in-service', action.file, 'its copy is in .docsync/trash')];
    case 'push-delete-document':
      return [item('deleted-in-service', null, 'its copy is in .docsync/trash')];
    case 'trash-local-attachment':
      return [item('trashed-locally', action.file, 'deleted in the service')];
    case 'trash-local-document':
      return action.mode === 'trash'
        ? [item('trashed-locally', null, 'deleted in the service')]
        : [item('deleted-locally', null, 'deleted in the service')];
    case 'keep-conflict-copy':
      return [item('conflict', action.file, `changed on both sides; kept as ${action.copyName}`)];
    case 'adopt-local-folder':
    case 'move-base-folder':
    case 'write-document-meta':
    case 'forget-document':
    case 'update-base':
    case 'record-problem':
      return [];
    default:
      return assertNever(action);
  }
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
