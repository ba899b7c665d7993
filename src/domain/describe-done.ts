/**
 * What an action did, once it succeeded, in words: the log line an operator reads ("pulled
 * minutes.pdf"), the status page's feed (activity.ts) and what it counts for in a run's summary
 * (pulled, pushed, deleted). Where the change went is action-direction.ts's; this says it. It
 * reads the document's base after the action, so the file names and sizes are those of the
 * files as placed or sent, not as planned (a name taken, a file the service refused).
 *
 * Each action has two wordings, for two readers: the log's `sentence` stands alone after the
 * document's name ("pulled status Lodged"), while the feed shows the direction, the file and a
 * short `detail` in columns of their own, so its detail leaves out what the columns say
 * ("status Lodged"). `--dry-run`'s sentences (describe-plan.ts) are a third: what will happen,
 * with ids and rows, for a person checking a plan before anything runs.
 */
import { type ActionDirection, directionOf } from './action-direction.js';
import { assertNever } from './assert-never.js';
import type { SyncAction } from './sync-actions.js';
import type { BaseAttachment, BaseDocument } from './types.js';

/** A run's count a change goes to: into the folder, into the service, or away (either side). */
export type Direction = 'pulled' | 'pushed' | 'deleted';

export interface DoneAction {
  /** Past tense, after the document's name: "pulled minutes.pdf". */
  readonly sentence: string;
  /** Where the change went (action-direction.ts); null for bookkeeping. */
  readonly change: ActionDirection | null;
  /** The run's count it goes to; null for a conflict copy and bookkeeping, which move nothing. */
  readonly direction: Direction | null;
  /** Files, statuses or details moved (a new document counts its files, at least one). */
  readonly count: number;
  /** Bytes of the files moved. */
  readonly bytes: number;
  /** The file the sentence is about, when it is about one (a log field). */
  readonly file?: string;
  /** The files the feed shows a line for; none: one line for the document as a whole. */
  readonly files: readonly string[];
  /** The feed's note beside the direction and the file: "new document", "status Lodged". */
  readonly detail: string | null;
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
  const words = wordsOf(action, after);
  if (!words) return null;
  const change = directionOf(action);
  const direction = countedAs(change);
  const { files } = words;
  return {
    sentence: words.sentence,
    change,
    direction,
    count: direction ? words.count : 0,
    bytes: direction ? words.bytes : 0,
    ...(files.length === 1 ? { file: files[0]! } : {}),
    files,
    detail: words.detail,
  };
}

/** What a change counts for in a run's summary. */
function countedAs(change: ActionDirection | null): Direction | null {
  switch (change) {
    case 'pulled':
    case 'pushed':
      return change;
    case 'deleted-in-service':
    case 'trashed-locally':
    case 'deleted-locally':
      return 'deleted';
    case 'conflict':
    case null:
      return null;
    default:
      return assertNever(change);
  }
}

/** A done action's words, and what it moved. */
interface Words {
  readonly sentence: string;
  readonly files: readonly string[];
  readonly detail: string | null;
  readonly count: number;
  readonly bytes: number;
}

function wordsOf(action: SyncAction, after: BaseDocument | null): Words | null {
  switch (action.kind) {
    case 'pull-new-document':
      return wholeDocument('pulled', placed(after, fileIds(action.files)), NEW);
    case 'restore-document':
      if (action.side === 'local')
        return wholeDocument('pulled', placed(after, fileIds(action.files)), {
          files: 'again (changed in the service, deleted locally)',
          none: 'the document again, with no files (changed in the service, deleted locally)',
          detail: 'again: changed in the service after it was deleted here',
        });
      return action.putBack
        ? wholeDocument('pushed', after?.attachments ?? [], putBack(after))
        : wholeDocument('pushed', after?.attachments ?? [], {
            files: 'again (changed locally, deleted in the service)',
            none: 'the document again, with no files (changed locally, deleted in the service)',
            detail: 'again: changed here after the service deleted it',
          });
    case 'push-new-document':
      return wholeDocument('pushed', after?.attachments ?? [], NEW);
    case 'pull-attachment': {
      const file = placed(after, [action.attachment.id])[0];
      const name = file?.file ?? action.file;
      return aboutFile(`pulled ${name}`, name, file?.size ?? 0);
    }
    case 'restore-system-attachment': {
      const size = placed(after, [action.attachmentId])[0]?.size ?? 0;
      const kept = action.keepEditAs;
      return aboutFile(
        `pulled the service's ${action.file} again${kept ? `, keeping the edit as ${kept}` : ''}`,
        action.file,
        size,
        `the service's copy again${kept ? `; the edit kept as ${kept}` : ''}`,
      );
    }
    case 'push-attachment':
      return aboutFile(`pushed ${action.file.name}`, action.file.name, action.file.size);
    case 'push-replaced-attachment':
      return aboutFile(
        `pushed the new content of ${action.file.name}`,
        action.file.name,
        action.file.size,
        'new content',
      );
    case 'pull-status':
      return action.status
        ? aboutDocument(`pulled status ${action.status.type}`, `status ${action.status.type}`)
        : aboutDocument('pulled: the status was removed', 'no status');
    case 'push-status':
      return aboutDocument(
        `pushed status ${action.statusName}, effective ${action.effectiveDate}`,
        `status ${action.statusName}, from ${action.effectiveDate}`,
      );
    case 'pull-details':
      return aboutDocument(
        `pulled name "${action.name}" and date ${action.documentDate}`,
        `name and date: ${action.documentDate} ${action.name}`,
      );
    case 'push-delete-attachment':
      return aboutFile(
        `deleted ${action.file} in the service (deleted locally)`,
        action.file,
        0,
        SERVICE_COPY_KEPT,
      );
    case 'push-delete-document':
      return aboutDocument(
        'deleted the document in the service (its folder was removed)',
        SERVICE_COPY_KEPT,
      );
    case 'trash-local-attachment':
      return aboutFile(
        `moved ${action.file} to .docsync/trash (deleted in the service)`,
        action.file,
        0,
        'deleted in the service',
      );
    case 'trash-local-document':
      return aboutDocument(
        action.mode === 'trash'
          ? `moved the folder to .docsync/trash (deleted in the service)`
          : 'deleted the folder (deleted in the service)',
        'deleted in the service',
      );
    case 'keep-conflict-copy':
      return aboutFile(
        `kept ${action.file} as ${action.copyName} (changed on both sides)`,
        action.file,
        0,
        `changed on both sides; kept as ${action.copyName}`,
      );
    case 'adopt-local-folder':
      return aboutDocument(`adopted the folder ${action.folder}`, null);
    case 'move-base-folder':
      return aboutDocument(`noted the folder moved to ${action.to}`, null);
    case 'write-document-meta':
    case 'forget-document':
    case 'update-base':
    case 'record-problem':
      return null;
    default:
      return assertNever(action);
  }
}

/** Before a delete in the service, its copy of what goes is put in the trash. */
const SERVICE_COPY_KEPT = 'its copy is in .docsync/trash';

const fileIds = (files: readonly { attachment: { id: string } }[]) =>
  files.map((f) => f.attachment.id);

/** The base's attachments with these ids: what was really placed (or sent). */
function placed(after: BaseDocument | null, ids: readonly string[]): BaseAttachment[] {
  const wanted = new Set(ids);
  return (after?.attachments ?? []).filter((a) => wanted.has(a.id));
}

/**
 * What follows the file names of a whole document in the log, or stands for them when it has
 * none; and the feed's detail.
 */
interface DocumentNote {
  readonly files: string;
  readonly none: string;
  readonly detail: string;
}

const NEW: DocumentNote = {
  files: '(new document)',
  none: 'the new document, with no files',
  detail: 'new document',
};

/** Row 19: a folder put back after docsync's delete went out, created again from it. */
function putBack(after: BaseDocument | null): DocumentNote {
  const why = `its folder was put back after docsync deleted it in the service${after ? `; new id ${after.id}` : ''}`;
  return {
    files: `as a new document (${why})`,
    none: `a new document, with no files (${why})`,
    detail: 'created again: its folder was put back after its delete',
  };
}

/** A whole document's files: "pulled a.pdf, b.pdf (new document)". */
function wholeDocument(
  verb: 'pulled' | 'pushed',
  files: readonly BaseAttachment[],
  note: DocumentNote,
): Words {
  const names = files.map((f) => f.file);
  return {
    sentence:
      names.length > 0 ? `${verb} ${names.join(', ')} ${note.files}` : `${verb} ${note.none}`,
    files: names,
    detail: note.detail,
    count: Math.max(1, files.length),
    bytes: files.reduce((sum, f) => sum + f.size, 0),
  };
}

/** A change to one file. */
function aboutFile(
  sentence: string,
  file: string,
  bytes: number,
  detail: string | null = null,
): Words {
  return { sentence, files: [file], detail, count: 1, bytes };
}

/** A change to the document as a whole (a status, its details, the document itself). */
function aboutDocument(sentence: string, detail: string | null): Words {
  return { sentence, files: [], detail, count: 1, bytes: 0 };
}
