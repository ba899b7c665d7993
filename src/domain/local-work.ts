/**
 * What an entity folder holds that a sync would act on, counted: the daemon's start
 * compares every entity folder with the agreed state (daemon/local-work-check.ts), sends each
 * entity with local work to the watcher's lane at once, and `docsync status` and the status
 * page show the counts until that entity's sync ends. Pure: it reads the changes
 * `detectLocalChanges` found, as the planner does.
 *
 * The rules, numbered like the decision table (test/unit/local-work.test.ts has a case each):
 * 1. A new document folder with files: one document, and each of its files to upload.
 * 2. A new document folder the first sync held back (it waits for `--adopt-local`): nothing.
 * 3. A file added, replaced or edited (a system form too): its document, one file.
 * 4. A file removed (a system form too): its document, one file.
 * 5. An edited status: its document, no file.
 * 6. A removed document folder: its document, no file; unless its delete is held already (by a
 *    rail, or in its hold time), which waits for a person or for its time, not for a sync.
 * 7. A document folder renamed, or its `.document.json` missing or not as agreed: its document,
 *    no file (the sync records the new folder or writes the file again).
 * 8. What waits for a person, not a sync (an unknown status name, a folder that copies another
 *    document, a `.document.json` that cannot be read, a delete not judged while one cannot be
 *    read): nothing; the sync that found it listed it, and the next one lists it again.
 * A document counts once however many of its files changed.
 */
import { assertNever } from './assert-never.js';
import type { LocalChange } from './local-changes.js';

export interface LocalWork {
  /** Documents with something to sync. */
  readonly documents: number;
  /** Files to upload, or to remove in the service. */
  readonly files: number;
}

export interface LocalWorkContext {
  /** Document folders the first sync held back: they wait for `--adopt-local`. */
  readonly heldFolders: ReadonlySet<string>;
  /** Documents whose delete is held (`held_deletes`): they wait for a person or a time. */
  readonly heldDocuments: ReadonlySet<string>;
}

/** The work in `changes`; null when there is none (rules 2, 6's exception and 8). */
export function localWorkOf(
  changes: readonly LocalChange[],
  context: LocalWorkContext,
): LocalWork | null {
  const documents = new Set<string>();
  let files = 0;
  for (const change of changes) {
    const counted = countOf(change, context);
    if (counted === null) continue;
    documents.add(counted.document);
    files += counted.files;
  }
  return documents.size === 0 ? null : { documents: documents.size, files };
}

/** One change's document (an id, or a new folder's path) and files; null: nothing to sync. */
function countOf(
  change: LocalChange,
  context: LocalWorkContext,
): { readonly document: string; readonly files: number } | null {
  switch (change.kind) {
    case 'new-folder': // rules 1, 2
      return context.heldFolders.has(change.folder)
        ? null
        : { document: `new:${change.folder}`, files: change.files.length };
    case 'file-added': // rule 3
    case 'file-replaced':
    case 'system-file-edited':
    case 'file-deleted': // rule 4
    case 'system-file-deleted':
      return { document: change.documentId, files: 1 };
    case 'status-edited': // rule 5
      return { document: change.documentId, files: 0 };
    case 'folder-deleted': // rule 6
      return context.heldDocuments.has(change.documentId)
        ? null
        : { document: change.documentId, files: 0 };
    case 'folder-moved': // rule 7
      return { document: change.documentId, files: 0 };
    case 'meta-missing':
    case 'meta-stale':
      return change.documentId === null ? null : { document: change.documentId, files: 0 };
    case 'status-unknown': // rule 8
    case 'orphan-folder':
    case 'duplicate-folder':
    case 'meta-unreadable':
    case 'deletion-held':
      return null;
    default:
      return assertNever(change);
  }
}
