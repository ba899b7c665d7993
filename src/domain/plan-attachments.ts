/**
 * Attachments of a document both sides still have (docs/sync-decision-table.md, rows 30–44).
 * The service never changes an attachment's content (new content is a new attachment), so a
 * conflict on one file only arises when both sides put something under the same name.
 */
import { claimName, conflictName, localEditName, taggedName } from './file-names.js';
import type { LocalChange } from './local-changes.js';
import type { Draft, PlanContext } from './plan-context.js';
import { remoteChangedAtMs } from './plan-status.js';
import type { RemoteChange } from './remote-changes.js';
import type { BaseAttachment, LocalFile, RemoteAttachment, RemoteDocument } from './types.js';

/** Local content the service does not have yet, by the name it sits under. */
interface LocalOnly {
  readonly file: LocalFile;
  /** 40: a new file; 33: a replaced file whose attachment the service removed; 43: a file that
   * won a name conflict. */
  readonly row: 33 | 40 | 43;
}

interface Phases {
  readonly local: Draft[];
  readonly pulls: Draft[];
  readonly pushes: Draft[];
  readonly pending: Map<string, LocalOnly>;
  readonly taken: Set<string>;
}

function planBaseAttachment(
  folder: string,
  a: BaseAttachment,
  change: LocalChange | undefined,
  removed: boolean,
  p: Phases,
): void {
  const kind = change?.kind;
  const file = change && 'file' in change ? change.file : undefined;
  if (kind === undefined) {
    if (!removed) return;
    p.taken.delete(a.file.toLowerCase());
    p.local.push({
      kind: 'trash-local-attachment',
      row: 30,
      folder,
      attachmentId: a.id,
      file: a.file,
    });
  } else if (kind === 'file-deleted' || kind === 'system-file-deleted') {
    if (removed)
      p.local.push({ kind: 'update-base', row: 34, patch: { dropAttachmentIds: [a.id] } });
    else if (kind === 'file-deleted') {
      p.pushes.push({
        kind: 'push-delete-attachment',
        row: 32,
        folder,
        attachmentId: a.id,
        file: a.file,
      });
    } else {
      p.pulls.push({
        kind: 'restore-system-attachment',
        row: 36,
        folder,
        attachmentId: a.id,
        file: a.file,
        keepEditAs: null,
      });
    }
  } else if (kind === 'file-replaced' && file) {
    // row 33: modify beats delete, the new content comes back as its own attachment.
    if (removed) p.pending.set(a.file.toLowerCase(), { file, row: 33 });
    else
      p.pushes.push({
        kind: 'push-replaced-attachment',
        row: 31,
        folder,
        file,
        replacesAttachmentId: a.id,
      });
  } else if (kind === 'system-file-edited') {
    const keepEditAs = claimName(localEditName(a.file), p.taken);
    if (removed)
      p.local.push({
        kind: 'keep-conflict-copy',
        row: 37,
        folder,
        file: a.file,
        copyName: keepEditAs,
        conflict: {
          winner: 'remote',
          detail: `${a.file} edited in the folder and removed in the service; the edit is kept as ${keepEditAs}`,
          keptAs: keepEditAs,
          subject: { kind: 'local-edit', file: a.file },
        },
      });
    else
      p.pulls.push({
        kind: 'restore-system-attachment',
        row: 35,
        folder,
        attachmentId: a.id,
        file: a.file,
        keepEditAs,
      });
  }
}

function planRemoteAdded(
  ctx: PlanContext,
  folder: string,
  attachment: RemoteAttachment,
  remoteMs: number,
  p: Phases,
): void {
  const wanted = ctx.localFileName(attachment.name);
  const occupant = p.pending.get(wanted.toLowerCase());
  if (occupant === undefined) {
    // row 41 when the name is free; row 44 when a kept attachment holds it: ` (2)`.
    const row = p.taken.has(wanted.toLowerCase()) ? 44 : 41;
    const placed = placedBefore(wanted, p);
    const file = claimName(wanted, p.taken);
    const clash = placed ? { clashesWith: placed.file.name } : {};
    p.pulls.push({ kind: 'pull-attachment', row, folder, attachment, file, ...clash });
    return;
  }
  const copyName = claimName(conflictName(wanted, ctx.stamp), p.taken);
  if (occupant.file.mtimeMs > remoteMs) {
    // row 43: the local file is newer and keeps the name; the service's goes to the copy.
    const detail = `${wanted} added on both sides: the folder's is newer and keeps the name; the service's is kept as ${copyName}`;
    p.pulls.push({
      kind: 'pull-attachment',
      row: 43,
      folder,
      attachment,
      file: copyName,
      clashesWith: occupant.file.name,
      conflict: {
        winner: 'local',
        detail,
        keptAs: copyName,
        subject: { kind: 'file', file: occupant.file.name },
      },
    });
    p.pending.set(wanted.toLowerCase(), { file: occupant.file, row: 43 });
    return;
  }
  // row 42: the service's attachment is newer (or as new); the local file becomes the copy,
  // uploaded as its own attachment next cycle.
  p.pending.delete(wanted.toLowerCase());
  const detail = `${wanted} added on both sides: the service's is newer (or as new) and takes the name; the folder's is kept as ${copyName} and uploaded next`;
  p.local.push({
    kind: 'keep-conflict-copy',
    row: 42,
    folder,
    file: occupant.file.name,
    copyName,
    conflict: {
      winner: 'remote',
      detail,
      keptAs: copyName,
      subject: { kind: 'file', file: wanted },
    },
  });
  p.pulls.push({
    kind: 'pull-attachment',
    row: 42,
    folder,
    attachment,
    file: wanted,
    clashesWith: occupant.file.name,
  });
}

/**
 * Row 44 places the attachment under a numbered name. A crash after it was placed and before its
 * commit leaves a new local file there that its name alone does not tie to the attachment, so it
 * would be uploaded as new: the same bytes twice in the service. By the next plan the name may
 * have come free (the service removed the attachment that held it: row 41 now). Like rows 42
 * and 43, a new file at a numbered name is the pull's clash, and the executor compares their
 * bytes (engine/identical-clashes.ts): the same, it is the attachment; else both go on as planned.
 */
function placedBefore(wanted: string, p: Phases): LocalOnly | undefined {
  for (let n = 2; ; n += 1) {
    const name = taggedName(wanted, String(n)).toLowerCase();
    if (!p.taken.has(name)) return undefined;
    const local = p.pending.get(name);
    if (local?.row === 40) return local;
  }
}

export function planAttachments(
  ctx: PlanContext,
  folder: string,
  attachments: readonly BaseAttachment[],
  files: readonly LocalFile[],
  local: readonly LocalChange[],
  remote: readonly RemoteChange[],
  remoteDoc: RemoteDocument | undefined,
): Draft[] {
  const p: Phases = {
    local: [],
    pulls: [],
    pushes: [],
    pending: new Map(),
    taken: new Set(files.map((f) => f.name.toLowerCase())),
  };
  const byAttachment = new Map<string, LocalChange>();
  for (const c of local) {
    if ('attachment' in c) byAttachment.set(c.attachment.id, c);
    if (c.kind === 'file-added')
      p.pending.set(c.file.name.toLowerCase(), { file: c.file, row: 40 });
  }
  const removed = new Set<string>();
  const added: RemoteAttachment[] = [];
  for (const c of remote) {
    if (c.kind === 'remote-attachment-removed') removed.add(c.attachment.id);
    if (c.kind === 'remote-attachment-added') added.push(c.attachment);
  }
  for (const a of attachments)
    planBaseAttachment(folder, a, byAttachment.get(a.id), removed.has(a.id), p);
  const remoteMs = remoteDoc ? remoteChangedAtMs(ctx, remoteDoc) : ctx.nowMs;
  for (const attachment of added) planRemoteAdded(ctx, folder, attachment, remoteMs, p);
  for (const { file, row } of p.pending.values()) {
    if (row !== 33) p.pushes.push({ kind: 'push-attachment', row, folder, file });
    else {
      const detail = `${file.name} replaced in the folder and removed in the service: modify beats delete, the new content is uploaded as a new attachment`;
      p.pushes.push({
        kind: 'push-attachment',
        row,
        folder,
        file,
        conflict: { winner: 'local', detail, subject: { kind: 'attachment', file: file.name } },
      });
    }
  }
  // Renames and trashing first, so pulled files find their names free.
  return [...p.local, ...p.pulls, ...p.pushes];
}
