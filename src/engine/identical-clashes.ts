/**
 * Rows 42 and 43 plan a conflict when a new local file and a new service attachment share a
 * name: the planner cannot see the service's bytes. But "identical changes on both sides are no
 * conflict" (daemon.md), and the commonest way to get there is not a user at all: a crash after
 * a download was placed and before its base committed (docs/state.md, "a pull"), or a folder
 * adopted by row 5, leaves exactly such a pair (under a numbered name when row 44 placed it). So before the conflict is carried out, the
 * attachment is downloaded to a temp file and its sha256 compared with the local file's; when
 * they agree, the file simply becomes the agreed attachment (no copy, no upload, no download
 * into the folder). Costs one download per name clash, which is rare.
 *
 * A file an earlier try placed and could not record (a crash before its commit, a flush that
 * failed after the rename) is in the folder as a new file, which the plan would upload, while the
 * pull places the attachment a second time: the same bytes twice in the folder and three times
 * in the service. Row 43's conflict copy is such a file (and when the service's side has turned
 * newer since, row 42 pulls the attachment under its own name beside it), and so is a ` (2)` a
 * restored folder gave one of two attachments of one name. A new file with one of the names
 * docsync gives beside the pulled file (file-names.ts, `isCopyNameOf`) and the attachment's bytes
 * is that file: the pull takes it (under row 42 the folder's file still goes to a copy of its
 * own), and a conflict the pull carries is recorded then.
 *
 * Row 42 renames the folder's file to its conflict copy and records the conflict after the
 * rename. A try cut between the two (a crash, a flush that failed after the rename) leaves the
 * copy in the folder, the name free and nothing in the conflict log: the next plan uploads the
 * copy as a new file (row 40) and pulls the attachment to the free name (row 41), and the
 * person's file would carry a conflict's name that no conflict explains. A new file with a
 * conflict name of a row 41 pull's file, other bytes than the attachment's, and no conflict of
 * the document naming it is that copy: its conflict is recorded as row 42 would have.
 */
import path from 'node:path';
import { isConflictCopyOf, isCopyNameOf } from '../domain/file-names.js';
import type { DocumentPlan, SyncAction } from '../domain/sync-actions.js';
import type { LocalFile } from '../domain/types.js';
import { attachmentSha256 } from './attachment-digest.js';
import type { EngineDeps } from './engine-deps.js';

export interface IdenticalClashes {
  /**
   * The local file that already holds this pull's bytes: commit it instead of downloading. The
   * clashing file itself (no conflict after all), or a copy left by an earlier try of row 43.
   */
  agreed(action: SyncAction): LocalFile | undefined;
  /** The conflict copy (row 42) or upload (row 43) of a file that is no conflict after all. */
  skips(action: SyncAction): boolean;
  /**
   * Row 42's copy an earlier try of the conflict made and could not record, beside this pull
   * (row 41) of the service's file: the copy action whose conflict is to be recorded now.
   */
  unrecorded(action: SyncAction): Extract<SyncAction, { kind: 'keep-conflict-copy' }> | undefined;
}

export async function identicalClashes(
  deps: EngineDeps,
  plan: DocumentPlan,
  filesOf: (folder: string) => readonly LocalFile[],
): Promise<IdenticalClashes> {
  const { same, other } = await compared(deps, plan, filesOf);
  const names = new Set([...same.values()].map((f) => f.name));
  const unrecorded = new Map<string, Extract<SyncAction, { kind: 'keep-conflict-copy' }>>();
  for (const action of plan.actions) {
    if (action.kind !== 'pull-attachment' || action.row !== 41 || !action.documentId) continue;
    const copy = other
      .get(action.attachment.id)
      ?.find((f) => isConflictCopyOf(f.name, action.file) && !recorded(deps, action, f.name));
    if (copy) unrecorded.set(action.attachment.id, leftCopy(action, copy.name));
  }
  return {
    unrecorded: (action) =>
      action.kind === 'pull-attachment' ? unrecorded.get(action.attachment.id) : undefined,
    agreed: (action) =>
      action.kind === 'pull-attachment' ? same.get(action.attachment.id) : undefined,
    // The clashing file is new (not in the base): a copy or an upload of that name is the
    // conflict's, and no other action of the document names it.
    skips: (action) =>
      (action.kind === 'keep-conflict-copy' && names.has(action.file)) ||
      (action.kind === 'push-attachment' && names.has(action.file.name)),
  };
}

/**
 * Attachment id → the local file that already holds its bytes (`same`), and the files an earlier
 * try could have placed that hold other bytes (`other`).
 */
async function compared(
  deps: EngineDeps,
  plan: DocumentPlan,
  filesOf: (folder: string) => readonly LocalFile[],
): Promise<{ same: Map<string, LocalFile>; other: Map<string, LocalFile[]> }> {
  const same = new Map<string, LocalFile>();
  const other = new Map<string, LocalFile[]>();
  for (const action of plan.actions) {
    if (action.kind !== 'pull-attachment') continue;
    const clashing = filesOf(action.folder).find((f) => f.name === action.clashesWith);
    const left = leftPlaced(plan, action);
    const candidates = [...(clashing ? [clashing] : []), ...left];
    if (candidates.length === 0 || !action.documentId) continue;
    const remote = await attachmentSha256(
      deps,
      action.owner,
      action.documentId,
      action.attachment.id,
    );
    const local = candidates.find((f) => f.sha256 === remote);
    if (local) same.set(action.attachment.id, local);
    else other.set(action.attachment.id, left);
  }
  return { same, other };
}

/** Whether a conflict of the pull's document already names `copy` as its copy. */
function recorded(
  deps: EngineDeps,
  pull: Extract<SyncAction, { kind: 'pull-attachment' }>,
  copy: string,
): boolean {
  const name = copy.toLowerCase();
  return deps.state.conflicts
    .copiesOf(pull.documentId ?? '')
    .some((p) => path.posix.basename(p).toLowerCase() === name);
}

/** Row 42's copy action, as the plan of the interrupted try made it. */
function leftCopy(
  pull: Extract<SyncAction, { kind: 'pull-attachment' }>,
  copyName: string,
): Extract<SyncAction, { kind: 'keep-conflict-copy' }> {
  const detail = `${pull.file} added on both sides: the service's is newer (or as new) and takes the name; the folder's is kept as ${copyName} and uploaded next (the copy made before, its record now)`;
  return {
    kind: 'keep-conflict-copy',
    row: 42,
    owner: pull.owner,
    documentId: pull.documentId,
    documentName: pull.documentName,
    folder: pull.folder,
    file: pull.file,
    copyName,
    conflict: {
      winner: 'remote',
      detail,
      keptAs: copyName,
      subject: { kind: 'file', file: pull.file },
    },
  };
}

/** New files (row 40) an earlier try of this pull could have placed, by their names. */
function leftPlaced(
  plan: DocumentPlan,
  pull: Extract<SyncAction, { kind: 'pull-attachment' }>,
): LocalFile[] {
  const names = [pull.attachment.name, ...(pull.clashesWith ? [pull.clashesWith] : [])];
  return plan.actions.flatMap((a) =>
    a.kind === 'push-attachment' &&
    a.row === 40 &&
    a.folder === pull.folder &&
    names.some((name) => isCopyNameOf(a.file.name, name))
      ? [a.file]
      : [],
  );
}
