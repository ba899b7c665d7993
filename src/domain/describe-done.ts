/**
 * What an action did, once it succeeded, in words: the log line an operator reads ("pulled
 * minutes.pdf") and what it counts for in a run's summary (pulled, pushed, deleted). It reads
 * the document's base after the action, so the file names and sizes are those of the files as
 * placed or sent, not as planned (a name taken, a file the service refused).
 */
import { assertNever } from './assert-never.js';
import type { SyncAction } from './sync-actions.js';
import type { BaseAttachment, BaseDocument } from './types.js';

/** Where a change went: into the folder, into the service, or away (on either side). */
export type Direction = 'pulled' | 'pushed' | 'deleted';

export interface DoneAction {
  /** Past tense, after the document's name: "pulled minutes.pdf". */
  readonly sentence: string;
  /** Null for bookkeeping, which moves nothing. */
  readonly direction: Direction | null;
  /** Files, statuses or details moved (a new document counts its files, at least one). */
  readonly count: number;
  /** Bytes of the files moved. */
  readonly bytes: number;
  /** The file the sentence is about, when it is about one (a log field). */
  readonly file?: string;
}

/** "2024-06-30 Minutes": how a person finds the document (its folder starts the same way). */
export function documentLabel(
  action: SyncAction,
  before: BaseDocument | null,
  after: BaseDocument | null,
): string {
  const date =
    after?.documentDate ??
    before?.documentDate ??
    ('document' in action ? action.document.documentDate : undefined) ??
    ('documentDate' in action ? action.documentDate : undefined);
  return date ? `${date} ${action.documentName}` : action.documentName;
}

/** The action's effect in words and numbers; null for one that only keeps docsync's books. */
export function describeDone(action: SyncAction, after: BaseDocument | null): DoneAction | null {
  switch (action.kind) {
    case 'pull-new-document':
      return filesMoved(
        'pulled',
        placed(
          after,
          action.files.map((f) => f.attachment.id),
        ),
        NEW,
      );
    case 'restore-document':
      return action.side === 'local'
        ? filesMoved(
            'pulled',
            placed(
              after,
              action.files.map((f) => f.attachment.id),
            ),
            {
              files: 'again (changed in the service, deleted locally)',
              none: 'the document again, with no files (changed in the service, deleted locally)',
            },
          )
        : filesMoved('pushed', after?.attachments ?? [], {
            files: 'again (changed locally, deleted in the service)',
            none: 'the document again, with no files (changed locally, deleted in the service)',
          });
    case 'push-new-document':
      return filesMoved('pushed', after?.attachments ?? [], NEW);
    case 'pull-attachment': {
      const file = placed(after, [action.attachment.id])[0];
      return one('pulled', file?.file ?? action.file, file?.size ?? 0);
    }
    case 'restore-system-attachment': {
      const file = placed(after, [action.attachmentId])[0];
      const kept = action.keepEditAs ? `, keeping the edit as ${action.keepEditAs}` : '';
      return {
        ...one('pulled', action.file, file?.size ?? 0),
        sentence: `pulled the service's ${action.file} again${kept}`,
      };
    }
    case 'push-attachment':
      return one('pushed', action.file.name, action.file.size);
    case 'push-replaced-attachment':
      return {
        ...one('pushed', action.file.name, action.file.size),
        sentence: `pushed the new content of ${action.file.name}`,
      };
    case 'pull-status':
      return change(
        'pulled',
        action.status ? `pulled status ${action.status.type}` : 'pulled: the status was removed',
      );
    case 'push-status':
      return change(
        'pushed',
        `pushed status ${action.statusName}, effective ${action.effectiveDate}`,
      );
    case 'pull-details':
      return change('pulled', `pulled name "${action.name}" and date ${action.documentDate}`);
    case 'push-delete-attachment':
      return {
        ...one('deleted', action.file, 0),
        sentence: `deleted ${action.file} in the service (deleted locally)`,
      };
    case 'push-delete-document':
      return change('deleted', 'deleted the document in the service (its folder was removed)');
    case 'trash-local-attachment':
      return {
        ...one('deleted', action.file, 0),
        sentence: `moved ${action.file} to .docsync/trash (deleted in the service)`,
      };
    case 'trash-local-document':
      return change(
        'deleted',
        action.mode === 'trash'
          ? `moved the folder to .docsync/trash (deleted in the service)`
          : 'deleted the folder (deleted in the service)',
      );
    case 'keep-conflict-copy':
      return {
        sentence: `kept ${action.file} as ${action.copyName} (changed on both sides)`,
        direction: null,
        count: 0,
        bytes: 0,
        file: action.file,
      };
    case 'adopt-local-folder':
      return bookkeeping(`adopted the folder ${action.folder}`);
    case 'move-base-folder':
      return bookkeeping(`noted the folder moved to ${action.to}`);
    case 'write-document-meta':
    case 'forget-document':
    case 'update-base':
    case 'record-problem':
      return null;
    default:
      return assertNever(action);
  }
}

/** The base's attachments with these ids: what was really placed (or sent). */
function placed(after: BaseDocument | null, ids: readonly string[]): BaseAttachment[] {
  const wanted = new Set(ids);
  return (after?.attachments ?? []).filter((a) => wanted.has(a.id));
}

/** What follows the file names of a whole document, or stands for them when it has none. */
interface DocumentNote {
  readonly files: string;
  readonly none: string;
}

const NEW: DocumentNote = { files: '(new document)', none: 'the new document, with no files' };

/** A whole document's files: "pulled a.pdf, b.pdf (new document)". */
function filesMoved(
  direction: 'pulled' | 'pushed',
  files: readonly BaseAttachment[],
  note: DocumentNote,
): DoneAction {
  const names = files.map((f) => f.file);
  return {
    sentence:
      names.length > 0
        ? `${direction} ${names.join(', ')} ${note.files}`
        : `${direction} ${note.none}`,
    direction,
    count: Math.max(1, files.length),
    bytes: files.reduce((sum, f) => sum + f.size, 0),
    ...(names.length === 1 ? { file: names[0]! } : {}),
  };
}

function one(direction: Direction, file: string, bytes: number): DoneAction {
  return { sentence: `${direction} ${file}`, direction, count: 1, bytes, file };
}

function change(direction: Direction, sentence: string): DoneAction {
  return { sentence, direction, count: 1, bytes: 0 };
}

function bookkeeping(sentence: string): DoneAction {
  return { sentence, direction: null, count: 0, bytes: 0 };
}
