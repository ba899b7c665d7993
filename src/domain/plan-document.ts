/**
 * One document known to the base or the service (docs/sync-decision-table.md, rows 1 and 5–18):
 * decides what happens to the document as a whole, and hands a document both sides still have
 * to the status and attachment rows.
 */
import { statusFields } from './apply-action-result.js';
import { claimName } from './file-names.js';
import { type DeleteSide, heldKey } from './held-deletes.js';
import { fileChanges, type LocalChange, statusTypeNamed } from './local-changes.js';
import { keptEditOf } from './local-folder-names.js';
import { planAttachments } from './plan-attachments.js';
import type { Draft, PlanContext } from './plan-context.js';
import { planDetails, planStatus } from './plan-status.js';
import { type DeletionSource, documentChanges, type RemoteChange } from './remote-changes.js';
import type { PlannedFile } from './sync-actions.js';
import type { BaseDocument, LocalDocumentSnapshot, RemoteDocument } from './types.js';

/** Everything known about one document id. */
export interface DocumentSides {
  readonly id: string;
  readonly base: BaseDocument | undefined;
  /** The readable folder, or the folder of a base document whose `.document.json` is gone. */
  readonly folder: LocalDocumentSnapshot | undefined;
  readonly local: readonly LocalChange[];
  readonly remote: readonly RemoteChange[];
  readonly remoteDoc: RemoteDocument | undefined;
  readonly deleted: DeletionSource | null;
  /** A folder elsewhere in the store holding this document, when its own folder is gone. */
  readonly movedTo?: string | undefined;
}

/** Local file names for every attachment of a document being downloaded whole. */
export function plannedFiles(ctx: PlanContext, doc: RemoteDocument): PlannedFile[] {
  const taken = new Set<string>();
  return doc.attachments.map((attachment) => ({
    attachment,
    file: claimName(ctx.localFileName(attachment.name), taken),
  }));
}

/** Local changes that make a document worth restoring (rows 11, 12): new content, a status. */
const MODIFYING: ReadonlySet<LocalChange['kind']> = new Set([
  'file-added',
  'file-replaced',
  'system-file-edited',
  'status-edited',
]);

function hasContentChange(changes: readonly RemoteChange[]): boolean {
  return changes.some((c) => c.kind !== 'remote-touched' && c.kind !== 'remote-deleted');
}

/** Rows 13–15 and 20–44: a document both sides have. */
export function planPresent(ctx: PlanContext, s: DocumentSides, doc: BaseDocument): Draft[] {
  const snap = s.folder as LocalDocumentSnapshot;
  const drafts: Draft[] = [];
  for (const c of s.local) {
    if (c.kind === 'folder-moved')
      drafts.push({ kind: 'move-base-folder', row: 15, from: c.from, to: c.to });
    if (c.kind === 'meta-missing')
      drafts.push({ kind: 'write-document-meta', row: 14, folder: c.folder });
    if (c.kind === 'meta-stale')
      drafts.push({ kind: 'write-document-meta', row: 28, folder: c.folder });
  }
  drafts.push(...planStatus(ctx, snap.folder, s.local, s.remote, s.remoteDoc));
  drafts.push(
    ...planAttachments(
      ctx,
      snap.folder,
      doc.attachments,
      snap.files,
      s.local,
      s.remote,
      s.remoteDoc,
    ),
  );
  drafts.push(...planDetails(doc, snap.folder, s.remote, s.remoteDoc));
  return drafts;
}

/** Rows 8–12, 51, 53 and 54: one side deleted the document. Modify beats delete. */
export function planDeleted(ctx: PlanContext, s: DocumentSides, doc: BaseDocument): Draft[] | null {
  const localGone = s.local.some((c) => c.kind === 'folder-deleted');
  if (localGone && s.movedTo !== undefined) return [movedAway(ctx, s.movedTo)];
  if (localGone && s.deleted !== null) return [{ kind: 'forget-document', row: 10 }];
  if (localGone && s.remoteDoc && hasContentChange(s.remote)) {
    const files = plannedFiles(ctx, s.remoteDoc);
    const detail = `the folder was deleted while the service changed the document: modify beats delete, it is downloaded again`;
    return [
      {
        kind: 'restore-document',
        row: 9,
        side: 'local',
        document: s.remoteDoc,
        files,
        conflict: { winner: 'remote', detail, subject: { kind: 'document' } },
      },
    ];
  }
  if (localGone) {
    return (
      planDiscarded(ctx, s, doc, undefined) ?? [
        { kind: 'push-delete-document', row: 8, folder: doc.folder },
      ]
    );
  }
  if (s.deleted === null || s.folder === undefined) return null;
  if (!s.local.some((c) => MODIFYING.has(c.kind)) && !keepsEdit(s.folder, doc)) {
    const mode = ctx.policy.onRemoteDelete;
    return (
      planDiscarded(ctx, s, doc, s.folder) ?? [
        { kind: 'trash-local-document', row: 11, folder: s.folder.folder, mode, source: s.deleted },
      ]
    );
  }
  return [
    {
      ...restoreFromFolder(s.folder, s, doc),
      row: 12,
      conflict: {
        winner: 'local',
        detail:
          'the service deleted the document while the folder changed: modify beats delete, it is created again from the folder (a new id)',
        subject: { kind: 'document' },
      },
    },
  ];
}

/**
 * Row 51: neither deleted nor gone, whatever the service did meanwhile: a folder that left its
 * entity folder is held, with its base, so moving it back resumes the sync as if nothing had
 * happened.
 */
function movedAway(ctx: PlanContext, movedTo: string): Draft {
  const home = ctx.entityFolder ?? 'its entity folder';
  const inside = ctx.entityFolder !== null && movedTo.startsWith(`${ctx.entityFolder}/`);
  const why = inside
    ? 'a subfolder, where docsync does not sync it: document folders sit directly in their entity folder'
    : `outside its ${ctx.owner.kind}'s folder: a document cannot move to another company or trust in the service`;
  const message = `moved to ${movedTo}, ${why}; move it back into ${home}; nothing was deleted`;
  return {
    kind: 'record-problem',
    row: 51,
    folder: movedTo,
    problem: 'document-folder-moved',
    message,
  };
}

/**
 * Rows 53 and 54: a person discarded the held delete (`docsync deletes discard`), so the side
 * that lost the document gets it back: a decision, not a conflict. `folder` is the unchanged
 * folder of a document the service deleted (row 54), undefined when the folder was removed (row
 * 53). Null when nobody discarded the delete, which then goes ahead.
 */
function planDiscarded(
  ctx: PlanContext,
  s: DocumentSides,
  doc: BaseDocument,
  folder: LocalDocumentSnapshot | undefined,
): Draft[] | null {
  if (!discarded(ctx, folder ? 'local' : 'remote', doc.id)) return null;
  if (folder) return [{ ...restoreFromFolder(folder, s, doc), row: 54 }];
  // Without the service's details (a failed read) nothing is done this cycle, and certainly no
  // delete.
  if (!s.remoteDoc) return [];
  const files = plannedFiles(ctx, s.remoteDoc);
  return [{ kind: 'restore-document', row: 53, side: 'local', document: s.remoteDoc, files }];
}

/**
 * Whether the folder holds a person's kept edit of a system form (`(local edit)`, row 35): once
 * kept it is no longer a change to the form, yet it is the person's work all the same, so the
 * service's delete must not send it to the trash with the folder (row 12, not row 11).
 */
function keepsEdit(folder: LocalDocumentSnapshot, doc: BaseDocument): boolean {
  const forms = systemFilesOf(doc);
  return forms.length > 0 && folder.files.some((f) => keptEditOf(f.name, forms) !== null);
}

/** The document created again in the service from its folder (rows 12 and 54). */
function restoreFromFolder(folder: LocalDocumentSnapshot, s: DocumentSides, doc: BaseDocument) {
  const edit = s.local.find((c) => c.kind === 'status-edited');
  return {
    kind: 'restore-document',
    side: 'remote',
    folder: folder.folder,
    name: doc.name,
    documentDate: doc.documentDate,
    statusTypeId: edit?.statusTypeId ?? doc.statusTypeId,
    // A "(local edit)" copy of a system form is the user's alone, never pushed (row 35).
    files: folder.files.filter((f) => keptEditOf(f.name, systemFilesOf(doc)) === null),
  } as const;
}

/**
 * Row 19: a folder naming a document docsync deleted in the service, put back after the delete
 * had gone out (docs/deletes.md). It is the person's document come back: created again from the
 * folder as it stands (a new id; its files; the status and the name its `.document.json`
 * shows), and nothing in the folder is removed. A kept `(local edit)` of a system form stays the
 * person's alone, as in row 12.
 */
export function planPutBack(ctx: PlanContext, folder: LocalDocumentSnapshot): Draft[] {
  const meta = folder.meta;
  if (meta === null) return [];
  const forms = meta.attachments.filter((a) => a.kind === 'system').map((a) => a.file);
  const status = meta.status ? statusTypeNamed(meta.status, ctx.statusTypes) : undefined;
  return [
    {
      kind: 'restore-document',
      row: 19,
      side: 'remote',
      putBack: true,
      folder: folder.folder,
      name: meta.name,
      documentDate: meta.documentDate,
      statusTypeId: status?.id ?? null,
      files: folder.files.filter((f) => keptEditOf(f.name, forms) === null),
    },
  ];
}

/** Whether a person discarded this document's held delete on `side` (`docsync deletes`). */
function discarded(ctx: PlanContext, side: DeleteSide, documentId: string): boolean {
  return ctx.policy.discardedDeletes?.has(heldKey(side, documentId)) ?? false;
}

/** A service timestamp before any real one: "the service's version is not agreed yet". */
const NOT_YET_AGREED = '1970-01-01T00:00:00';

/**
 * Row 5: a folder whose `.document.json` names a document the base does not know, while the
 * service has it (a lost state database, a store restored from backup). The base is rebuilt
 * from what provably matches (same attachment id, same content as recorded); the rest is
 * planned by the ordinary rows, and the service's status wins because no base says otherwise.
 */
export function planAdopt(
  ctx: PlanContext,
  snap: LocalDocumentSnapshot,
  remote: RemoteDocument,
): Draft[] {
  const files = new Map(snap.files.map((f) => [f.name, f]));
  const remoteIds = new Set(remote.attachments.map((a) => a.id));
  const attachments = (snap.meta?.attachments ?? []).flatMap((m) => {
    const f = files.get(m.file);
    if (!f || f.sha256 !== m.sha256 || !remoteIds.has(m.id)) return [];
    return [
      { id: m.id, kind: m.kind, file: m.file, sha256: f.sha256, size: f.size, mtimeMs: f.mtimeMs },
    ];
  });
  const base: BaseDocument = {
    id: remote.id,
    owner: remote.owner,
    name: remote.name,
    documentDate: remote.documentDate,
    ...statusFields(remote.status),
    // Not the service's timestamp yet: this base is committed first, and a base that already
    // had it would make the next listing skip the document, so a crash before the pulls below
    // finished would leave its files missing for good. Row 27, last, records it.
    lastUpdatedTimestamp: NOT_YET_AGREED,
    folder: snap.folder,
    attachments,
  };
  const sides: DocumentSides = {
    id: remote.id,
    base,
    folder: snap,
    local: fileChanges(base, snap.files),
    remote: documentChanges(base, remote),
    remoteDoc: remote,
    deleted: null,
  };
  let drafts = planAttachments(
    ctx,
    snap.folder,
    attachments,
    snap.files,
    sides.local,
    sides.remote,
    remote,
  );
  // First sync: what only the folder has waits for the next cycle, or --adopt-local.
  if (ctx.policy.pullOnly && !ctx.policy.adoptLocal)
    drafts = drafts.filter((d) => !d.kind.startsWith('push-'));
  return [
    { kind: 'adopt-local-folder', row: 5, folder: snap.folder, base, ...statusLost(snap, remote) },
    ...drafts,
    { kind: 'update-base', row: 27, patch: { lastUpdatedTimestamp: remote.lastUpdatedTimestamp } },
  ];
}

/**
 * Row 5's status: the service's wins, and a different one in the adopted `.document.json` (a
 * person's edit never pushed: typed into a folder docsync made just before a crash, or kept
 * from an earlier install) is recorded as the losing side of a conflict, never dropped silently.
 */
function statusLost(snap: LocalDocumentSnapshot, remote: RemoteDocument) {
  const typed = snap.meta?.status ?? null;
  const service = remote.status?.type ?? null;
  if (typed === null || typed.trim().toUpperCase() === (service ?? '').trim().toUpperCase())
    return {};
  const detail = `the adopted folder showed the status "${typed}"; the service's "${service ?? 'none'}" was kept`;
  return {
    conflict: {
      winner: 'remote' as const,
      detail,
      subject: { kind: 'status' as const, lost: typed },
    },
  };
}

/** The document's system attachments, by file name: their kept edits stay local. */
function systemFilesOf(doc: BaseDocument): string[] {
  return doc.attachments.filter((a) => a.kind === 'system').map((a) => a.file);
}
