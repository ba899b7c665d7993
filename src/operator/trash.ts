/**
 * The trash, for the operator (`docsync trash`, the status page):
 *
 *   listTrash(deps)                    → TrashView[]      every item, newest day first
 *   trashItemOwner(deps, id)           → OwnerRef | null  whose lock restoring it takes
 *   restoreFromTrash(deps, lease, id)  → Restored         puts one item back where sync sees it
 *
 * An item is named by its path inside `.docsync/trash/` (`TrashView.id`). Putting back never
 * overwrites: a taken name gets ` (2)`. Where it goes, and what the next sync makes of it:
 *
 * - a file goes back into its document's folder (found by the document's id when the folder was
 *   renamed), and the next sync uploads it as an attachment (row 40);
 * - a document folder whose document docsync still syncs goes back where that document belongs;
 * - a document folder whose document is gone from the service (the service deleted it, or
 *   docsync deleted it there and saved this copy first) goes back into its company's or trust's
 *   folder as `yyyy-mm-dd <name>`, without its old `.document.json`: a folder with files that
 *   the next sync creates in the service as a new document (row 2), with a new id. The service
 *   keeps no deleted document, so its status history does not come back; its files, name and
 *   date do.
 *
 * Nothing here talks to the service. A folder that is no longer there to restore into, or an
 * id that names nothing in the trash, throws OperatorError and nothing moves. Restoring into an
 * entity's folder takes that entity's lease (operator-deps.ts), and refuses any other.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { OperatorError } from '../domain/errors.js';
import { documentIdInFolderName } from '../domain/file-names.js';
import { parseDocumentFolderName } from '../domain/local-folder-names.js';
import type { OwnerRef } from '../domain/types.js';
import type { EntityLease } from '../engine/entity-locks.js';
import { TRASH_DIR } from '../local/local-store.js';
import { resolveInside } from '../local/resolve-inside.js';
import {
  listTrash as listTrashItems,
  pruneEmptyTrashFolders,
  restoreDocumentFolder,
  restoreFile,
  type TrashItem,
} from '../local/trash-shelf.js';
import { type OperatorDeps, syncWanted } from './operator-deps.js';

export interface TrashView {
  /** Its path inside `.docsync/trash/`: what `restoreFromTrash` takes. */
  readonly id: string;
  readonly day: string;
  readonly kind: 'document-folder' | 'file';
  /** Where it was, relative to the root. */
  readonly originalPath: string;
  /** `service`: the service's copy, saved before docsync deleted it there; `folder`: removed from the folder. */
  readonly from: 'service' | 'folder';
  readonly documentId: string | null;
  readonly owner: OwnerRef | null;
  readonly files: number;
  readonly bytes: number;
}

export interface Restored {
  readonly id: string;
  /** Where it is now, relative to the root. */
  readonly restoredTo: string;
  /** What the next sync does with it. */
  readonly next: string;
  /** The entity whose folder it went into, when known: a caller inside the daemon syncs it. */
  readonly owner: OwnerRef | null;
}

export async function listTrash(deps: OperatorDeps): Promise<TrashView[]> {
  return (await listTrashItems(deps.local.root)).map(viewOf);
}

/**
 * Puts the item back, under the lease of the entity `trashItemOwner` names: `null` (no lock)
 * is for an item docsync cannot place in any company's or trust's folder, refused for any other.
 */
export async function restoreFromTrash(
  deps: OperatorDeps,
  lease: EntityLease | null,
  id: string,
): Promise<Restored> {
  const item = await itemOf(deps, id);
  if (!item)
    throw new OperatorError(
      'NOT_IN_TRASH',
      `Nothing in ${TRASH_DIR}/ is named ${JSON.stringify(id)}; \`docsync trash list\` shows what is there.`,
      { notFound: true },
    );
  const owner = ownerOf(deps, item);
  if (owner) deps.locks.assertHeld(owner, lease, `restore ${TRASH_DIR}/${item.id}`);
  const restored =
    item.kind === 'file' ? await restoreOneFile(deps, item) : await restoreFolder(deps, item);
  await pruneEmptyTrashFolders(deps.local.root, item.id);
  if (owner) syncWanted(deps, owner);
  return restored;
}

/**
 * The company or trust whose folder restoring the item writes into, when docsync can tell: its
 * own record, its document's, or the entity folder it was in. The daemon restores under that
 * entity's lock. Null for an id that names nothing (restoring it refuses) or an unknown place.
 */
export async function trashItemOwner(deps: OperatorDeps, id: string): Promise<OwnerRef | null> {
  const item = await itemOf(deps, id);
  return item ? ownerOf(deps, item) : null;
}

async function itemOf(deps: OperatorDeps, id: string): Promise<TrashItem | undefined> {
  const wanted = normaliseId(id);
  return (await listTrashItems(deps.local.root)).find((i) => i.id === wanted);
}

function ownerOf(deps: OperatorDeps, item: TrashItem): OwnerRef | null {
  const documentId = item.meta?.id ?? item.serviceCopy?.documentId ?? null;
  const known = documentId ? deps.state.base.get(documentId) : null;
  const recorded = item.meta?.owner ?? item.serviceCopy?.owner ?? known?.owner ?? null;
  if (recorded) return recorded;
  const within = deps.state.entities
    .list()
    .find((r) => r.folder !== null && item.originalPath.startsWith(`${r.folder}/`));
  return within ? { kind: within.entity.kind, id: within.entity.id } : null;
}

/** Accepts the id as listed, or with `.docsync/trash/` in front. */
function normaliseId(id: string): string {
  const plain = id.replace(/\/+$/u, '');
  return plain.startsWith(`${TRASH_DIR}/`) ? plain.slice(TRASH_DIR.length + 1) : plain;
}

async function restoreOneFile(deps: OperatorDeps, item: TrashItem): Promise<Restored> {
  const original = path.posix.dirname(item.originalPath);
  const documentId = item.serviceCopy?.documentId ?? documentIdInFolderName(original);
  const known = documentId ? deps.state.base.get(documentId) : null;
  const folder = (await isFolder(deps, original))
    ? original
    : known && (await isFolder(deps, known.folder))
      ? known.folder
      : null;
  if (folder === null)
    throw new OperatorError(
      'FOLDER_GONE',
      `${original}, where ${path.posix.basename(item.originalPath)} was, is no longer there; restore its document folder first (\`docsync trash list\`), or copy the file from ${TRASH_DIR}/${item.id} by hand.`,
    );
  const restoredTo = await restoreFile(deps.local.root, item.id, folder);
  return {
    id: item.id,
    restoredTo,
    next: 'the next sync uploads it to the service as an attachment of the document',
    owner: known?.owner ?? item.serviceCopy?.owner ?? null,
  };
}

async function restoreFolder(deps: OperatorDeps, item: TrashItem): Promise<Restored> {
  const documentId = item.meta?.id ?? item.serviceCopy?.documentId ?? null;
  const owner = item.meta?.owner ?? item.serviceCopy?.owner ?? null;
  const known = documentId ? deps.state.base.get(documentId) : null;
  if (known) {
    if (await isFolder(deps, known.folder))
      throw new OperatorError(
        'DOCUMENT_PRESENT',
        `Document ${known.id} is in the folder at ${known.folder} already; nothing restored (copy what you need from ${TRASH_DIR}/${item.id} by hand).`,
      );
    const parent = path.posix.dirname(known.folder);
    await needFolder(deps, parent, item);
    const restoredTo = await restoreDocumentFolder(
      deps.local.root,
      item.id,
      parent,
      path.posix.basename(known.folder),
      false,
    );
    return {
      id: item.id,
      restoredTo,
      next: 'the next sync finds the document in its folder again; nothing is deleted',
      owner: known.owner,
    };
  }
  const parent = await entityFolderFor(deps, item, owner);
  const restoredTo = await restoreDocumentFolder(
    deps.local.root,
    item.id,
    parent,
    newFolderName(item),
    true,
  );
  return {
    id: item.id,
    restoredTo,
    // A folder without files is one being made (decision row 4): nothing to create yet.
    next:
      item.files === 0
        ? 'it holds no file: put one in it, and the next sync creates it in the service as a new document (a new id; its name and date)'
        : 'the next sync creates it in the service as a new document (a new id; its files, name and date, not its status history)',
    owner,
  };
}

/** The company's or trust's folder: where the item was, else where the entity is now. */
async function entityFolderFor(
  deps: OperatorDeps,
  item: TrashItem,
  owner: OwnerRef | null,
): Promise<string> {
  const original = path.posix.dirname(item.originalPath);
  if (await isFolder(deps, original)) return original;
  const now = owner ? deps.state.entities.get(owner)?.folder : null;
  if (now && (await isFolder(deps, now))) return now;
  throw new OperatorError(
    'FOLDER_GONE',
    `${original}, where ${path.posix.basename(item.originalPath)} was, is no longer there; put its company's or trust's folder back, or move ${TRASH_DIR}/${item.id} by hand.`,
  );
}

/** `yyyy-mm-dd <name>`: the name a person gives a new document folder (row 2). */
function newFolderName(item: TrashItem): string {
  if (item.meta) return `${item.meta.documentDate} ${item.meta.name}`;
  const base = path.posix.basename(item.originalPath).replace(/\s*\[[^\]]*\]$/u, '');
  const parsed = parseDocumentFolderName(base);
  return parsed.date ? `${parsed.date} ${parsed.name}` : parsed.name;
}

async function needFolder(deps: OperatorDeps, folder: string, item: TrashItem): Promise<void> {
  if (!(await isFolder(deps, folder)))
    throw new OperatorError(
      'FOLDER_GONE',
      `${folder} is no longer there to restore into; put it back, or move ${TRASH_DIR}/${item.id} by hand.`,
    );
}

async function isFolder(deps: OperatorDeps, rel: string): Promise<boolean> {
  if (rel === '.' || rel === '') return false;
  const stats = await lstat(resolveInside(deps.local.root, rel)).catch(() => null);
  return stats?.isDirectory() ?? false;
}

function viewOf(item: TrashItem): TrashView {
  return {
    id: item.id,
    day: item.day,
    kind: item.kind,
    originalPath: item.originalPath,
    from: item.serviceCopy ? 'service' : 'folder',
    documentId: item.meta?.id ?? item.serviceCopy?.documentId ?? null,
    owner: item.meta?.owner ?? item.serviceCopy?.owner ?? null,
    files: item.files,
    bytes: item.bytes,
  };
}
