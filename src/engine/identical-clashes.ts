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
 */
import { isCopyNameOf } from '../domain/file-names.js';
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
}

export async function identicalClashes(
  deps: EngineDeps,
  plan: DocumentPlan,
  filesOf: (folder: string) => readonly LocalFile[],
): Promise<IdenticalClashes> {
  const same = await sameBytes(deps, plan, filesOf);
  const names = new Set([...same.values()].map((f) => f.name));
  return {
    agreed: (action) =>
      action.kind === 'pull-attachment' ? same.get(action.attachment.id) : undefined,
    // The clashing file is new (not in the base): a copy or an upload of that name is the
    // conflict's, and no other action of the document names it.
    skips: (action) =>
      (action.kind === 'keep-conflict-copy' && names.has(action.file)) ||
      (action.kind === 'push-attachment' && names.has(action.file.name)),
  };
}

/** Attachment id → the local file that already holds its bytes. */
async function sameBytes(
  deps: EngineDeps,
  plan: DocumentPlan,
  filesOf: (folder: string) => readonly LocalFile[],
): Promise<Map<string, LocalFile>> {
  const same = new Map<string, LocalFile>();
  for (const action of plan.actions) {
    if (action.kind !== 'pull-attachment') continue;
    const clashing = filesOf(action.folder).find((f) => f.name === action.clashesWith);
    const candidates = [...(clashing ? [clashing] : []), ...leftPlaced(plan, action)];
    if (candidates.length === 0 || !action.documentId) continue;
    const remote = await attachmentSha256(
      deps,
      action.owner,
      action.documentId,
      action.attachment.id,
    );
    const local = candidates.find((f) => f.sha256 === remote);
    if (local) same.set(action.attachment.id, local);
  }
  return same;
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
