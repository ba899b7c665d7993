/**
 * Recognises what a user did in the folder since the base (daemon.md, the local action table).
 * Each user action is reported once; the planner (plan-sync.ts) decides what it means.
 */
import { newDocumentFromFolder } from './file-names.js';
import { keptEditOf } from './local-folder-names.js';
import { indexLocal } from './local-index.js';
import { isIsoDate } from './timestamps.js';
import type {
  BaseAttachment,
  BaseDocument,
  LocalDocumentSnapshot,
  LocalEntitySnapshot,
  LocalFile,
  StatusType,
} from './types.js';

export type LocalChange =
  | {
      readonly kind: 'new-folder';
      readonly folder: string;
      readonly name: string;
      readonly documentDate: string;
      readonly files: readonly LocalFile[];
    }
  | { readonly kind: 'file-added'; readonly documentId: string; readonly file: LocalFile }
  | {
      readonly kind: 'file-replaced' | 'system-file-edited';
      readonly documentId: string;
      readonly attachment: BaseAttachment;
      readonly file: LocalFile;
    }
  | {
      readonly kind: 'file-deleted' | 'system-file-deleted';
      readonly documentId: string;
      readonly attachment: BaseAttachment;
    }
  | {
      readonly kind: 'status-edited';
      readonly documentId: string;
      readonly statusTypeId: string;
      readonly statusName: string;
      readonly effectiveDate: string;
      /** mtime of `.document.json`, null when unknown. */
      readonly changedAtMs: number | null;
    }
  | { readonly kind: 'status-unknown'; readonly documentId: string; readonly statusName: string }
  | { readonly kind: 'folder-deleted'; readonly documentId: string; readonly folder: string }
  | {
      readonly kind: 'folder-moved';
      readonly documentId: string;
      readonly from: string;
      readonly to: string;
    }
  | FolderNote<'meta-unreadable'>
  | FolderNote<'meta-missing'>
  | FolderNote<'meta-stale'>
  | FolderNote<'orphan-folder'>
  | FolderNote<'duplicate-folder'>
  | FolderNote<'deletion-held'>;

/** A folder the planner cannot treat as an ordinary document folder. */
export interface FolderNote<K extends string> {
  readonly kind: K;
  readonly documentId: string | null;
  readonly folder: string;
  readonly detail?: string;
}

export type LocalChangeKind = LocalChange['kind'];

/** The status type a `.document.json` names, letter case ignored. */
export function statusTypeNamed(
  name: string,
  statusTypes: readonly StatusType[],
): StatusType | undefined {
  const wanted = name.trim().toUpperCase();
  return statusTypes.find((t) => t.name.trim().toUpperCase() === wanted);
}

/** Attachment files compared with the base by file name inside the document's folder. */
export function fileChanges(doc: BaseDocument, files: readonly LocalFile[]): LocalChange[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  const known = new Set(doc.attachments.map((a) => a.file));
  const changes: LocalChange[] = [];
  for (const attachment of doc.attachments) {
    const file = byName.get(attachment.file);
    const system = attachment.kind === 'system';
    if (file === undefined) {
      changes.push({
        kind: system ? 'system-file-deleted' : 'file-deleted',
        documentId: doc.id,
        attachment,
      });
    } else if (file.sha256 !== attachment.sha256) {
      changes.push({
        kind: system ? 'system-file-edited' : 'file-replaced',
        documentId: doc.id,
        attachment,
        file,
      });
    }
  }
  const systemFiles = doc.attachments.filter((a) => a.kind === 'system').map((a) => a.file);
  for (const file of files) {
    // docsync's kept edit of a system form stays local (rows 35, 37); a user's file is synced.
    if (known.has(file.name) || keptEditOf(file.name, systemFiles) !== null) continue;
    changes.push({ kind: 'file-added', documentId: doc.id, file });
  }
  return changes;
}

/** An edited `"status"`: effective today unless `statusDate` was edited too (daemon.md). */
export function statusChange(
  doc: BaseDocument,
  snap: LocalDocumentSnapshot,
  statusTypes: readonly StatusType[],
  today: string,
): LocalChange | null {
  const meta = snap.meta;
  if (meta === null) return null;
  const named = (meta.status ?? '').trim();
  const current = statusTypes.find((t) => t.id === doc.statusTypeId);
  if (named === '' && doc.statusTypeId === null) return null;
  if (current && named.toUpperCase() === current.name.trim().toUpperCase()) {
    // The agreed status, but not as agreed: retyped in other letters, a date edited alone, or
    // a crash between a pushed status and the file's rewrite. No assignment; show the base.
    const asAgreed = meta.status === current.name && meta.statusDate === doc.statusDate;
    return asAgreed ? null : { kind: 'meta-stale', documentId: doc.id, folder: snap.folder };
  }
  const type = statusTypeNamed(named, statusTypes);
  if (type === undefined) return { kind: 'status-unknown', documentId: doc.id, statusName: named };
  if (type.id === doc.statusTypeId) return null;
  const dateEdited = meta.statusDate !== doc.statusDate && isIsoDate(meta.statusDate ?? '');
  return {
    kind: 'status-edited',
    documentId: doc.id,
    statusTypeId: type.id,
    statusName: type.name,
    effectiveDate: dateEdited && meta.statusDate ? meta.statusDate : today,
    changedAtMs: snap.metaMtimeMs ?? null,
  };
}

function presentChanges(
  doc: BaseDocument,
  snap: LocalDocumentSnapshot,
  statusTypes: readonly StatusType[],
  today: string,
): LocalChange[] {
  const changes: LocalChange[] = [];
  if (snap.folder !== doc.folder) {
    changes.push({ kind: 'folder-moved', documentId: doc.id, from: doc.folder, to: snap.folder });
  }
  changes.push(...fileChanges(doc, snap.files));
  const status = statusChange(doc, snap, statusTypes, today);
  if (status) changes.push(status);
  return changes;
}

/**
 * Every user action in one entity folder since the base. `today` (yyyy-mm-dd, local) dates new
 * documents and status edits; it is an input so this stays pure. `unreadableElsewhere`: some
 * `.document.json` elsewhere in the store could not be read, so a missing folder may be that one.
 */
export function detectLocalChanges(
  base: ReadonlyMap<string, BaseDocument>,
  snapshot: LocalEntitySnapshot,
  statusTypes: readonly StatusType[],
  today: string,
  unreadableElsewhere = false,
): LocalChange[] {
  const index = indexLocal(base, snapshot);
  const changes: LocalChange[] = [];
  for (const doc of base.values()) {
    const snap = index.byId.get(doc.id);
    const missing = index.metaMissing.get(doc.id);
    const broken = index.unreadable.get(doc.id);
    if (snap) changes.push(...presentChanges(doc, snap, statusTypes, today));
    else if (broken) {
      changes.push({
        kind: 'meta-unreadable',
        documentId: doc.id,
        folder: broken.folder,
        detail: broken.metaError,
      });
    } else if (missing) {
      changes.push({ kind: 'meta-missing', documentId: doc.id, folder: missing.folder });
      changes.push(
        ...presentChanges(doc, missing, [], today).filter((c) => c.kind !== 'status-unknown'),
      );
    } else if (index.unattributed.length > 0 || unreadableElsewhere) {
      // Never read a broken `.document.json` as "document deleted" (row 18).
      changes.push({ kind: 'deletion-held', documentId: doc.id, folder: doc.folder });
    } else {
      changes.push({ kind: 'folder-deleted', documentId: doc.id, folder: doc.folder });
    }
  }
  for (const [id, snap] of index.byId) {
    if (!base.has(id)) changes.push({ kind: 'orphan-folder', documentId: id, folder: snap.folder });
  }
  for (const snap of index.duplicates) {
    changes.push({
      kind: 'duplicate-folder',
      documentId: snap.meta?.id ?? null,
      folder: snap.folder,
    });
  }
  for (const snap of index.unattributed) {
    changes.push({
      kind: 'meta-unreadable',
      documentId: null,
      folder: snap.folder,
      detail: snap.metaError,
    });
  }
  for (const snap of index.newFolders) {
    // An empty folder is a document being made, not yet one (row 4).
    if (snap.files.length === 0) continue;
    const { name, documentDate } = newDocumentFromFolder(snap.folder, today);
    changes.push({
      kind: 'new-folder',
      folder: snap.folder,
      name,
      documentDate,
      files: snap.files,
    });
  }
  return changes;
}
