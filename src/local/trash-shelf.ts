/**
 * What `.docsync/trash/` holds, item by item, and putting an item back (`docsync trash`). The
 * trash is laid out by trash.ts as `<yyyy-mm-dd>/<the path it had>`; an item is
 *
 * - a document folder: a folder holding `.document.json` (a folder docsync removed because the
 *   service deleted its document, or the service's copy of a document docsync deleted there),
 *   with its files or, for a document that had none, without;
 * - a file: any other file (one removed from a document folder, or the service's copy of an
 *   attachment docsync deleted there, which sits in a folder named like its document).
 *
 * A service copy carries `.docsync-service-copy.json` (metadata-files.ts), naming the files it
 * covers. Putting back never overwrites: a taken name gets ` (2)`; links are never followed.
 */
import { lstat, readdir, readFile, rename, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { LocalStoreError } from '../domain/errors.js';
import { pickFreeName } from '../domain/local-names.js';
import type { DocumentMeta } from '../domain/types.js';
import { commitTempNoClobber, fsyncDir } from './atomic-write.js';
import { DOCUMENT_META, TRASH_DIR } from './local-store.js';
import {
  isDocsyncFile,
  parseDocumentMeta,
  parseServiceCopyNote,
  SERVICE_COPY_NOTE,
  type ServiceCopyNote,
} from './metadata-files.js';
import { resolveInside, resolveInsideReal } from './resolve-inside.js';
import { existingRealFolder } from './state-folders.js';

export interface TrashItem {
  /** Its path inside `.docsync/trash/`, which names it: `2024-05-01/Companies/…/minutes.pdf`. */
  readonly id: string;
  /** The day it went to the trash (yyyy-mm-dd). */
  readonly day: string;
  readonly kind: 'document-folder' | 'file';
  /** Where it was, relative to the root. */
  readonly originalPath: string;
  /** The service's copy, saved before docsync deleted it there; null: removed from the folder. */
  readonly serviceCopy: ServiceCopyNote | null;
  /** A document folder's `.document.json`; null for a file, or when it cannot be read. */
  readonly meta: DocumentMeta | null;
  /** Files it holds (1 for a file) and their bytes. */
  readonly files: number;
  readonly bytes: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/u;

/** Every item in the trash, newest day first. Links and other special entries are left out. */
export async function listTrash(root: string): Promise<TrashItem[]> {
  const trash = await existingRealFolder(root, TRASH_DIR);
  if (trash === null) return [];
  const days = (await readdir(trash))
    .filter((d) => DAY.test(d))
    .sort()
    .reverse();
  const items: TrashItem[] = [];
  for (const day of days) await walk(path.join(trash, day), day, '', items);
  return items;
}

async function walk(dir: string, day: string, rel: string, items: TrashItem[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = new Set(entries.map((e) => e.name));
  const note = names.has(SERVICE_COPY_NOTE) ? await readNote(dir) : null;
  const id = (name: string) => [day, rel, name].filter(Boolean).join('/');
  if (rel !== '' && names.has(DOCUMENT_META)) {
    // A document without files is an item too: its `.document.json` is what there is of it.
    const files = entries.filter((e) => e.isFile() && !isDocsyncFile(e.name));
    const sizes = await Promise.all(files.map((f) => sizeOf(path.join(dir, f.name))));
    items.push({
      id: [day, rel].join('/'),
      day,
      kind: 'document-folder',
      originalPath: rel,
      serviceCopy: note?.attachmentId === null ? note : null,
      meta: await readMeta(dir),
      files: files.length,
      bytes: sizes.reduce((a, b) => a + b, 0),
    });
    return;
  }
  for (const entry of entries) {
    const childRel = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) await walk(path.join(dir, entry.name), day, childRel, items);
    else if (entry.isFile() && entry.name !== SERVICE_COPY_NOTE) {
      items.push({
        id: id(entry.name),
        day,
        kind: 'file',
        originalPath: childRel,
        serviceCopy: note?.files.includes(entry.name) ? note : null,
        meta: null,
        files: 1,
        bytes: await sizeOf(path.join(dir, entry.name)),
      });
    }
  }
}

async function sizeOf(file: string): Promise<number> {
  return (await lstat(file).catch(() => null))?.size ?? 0;
}

async function readNote(dir: string): Promise<ServiceCopyNote | null> {
  const text = await readFile(path.join(dir, SERVICE_COPY_NOTE), 'utf8').catch(() => null);
  const parsed = text === null ? null : parseServiceCopyNote(text);
  return parsed?.ok ? parsed.value : null;
}

async function readMeta(dir: string): Promise<DocumentMeta | null> {
  const text = await readFile(path.join(dir, DOCUMENT_META), 'utf8').catch(() => null);
  const parsed = text === null ? null : parseDocumentMeta(text);
  return parsed?.ok ? parsed.value : null;
}

/** The absolute path of a trash item, refused when outside the trash or not there. */
async function itemPath(root: string, id: string): Promise<string> {
  const [day] = id.split('/');
  if (!day || !DAY.test(day) || id.split('/').some((s) => s === '..' || s === '.' || s === '')) {
    throw new LocalStoreError('NOT_IN_TRASH', `${id} names nothing in ${TRASH_DIR}/`);
  }
  const absolute = await resolveInsideReal(root, `${TRASH_DIR}/${id}`);
  const stats = await lstat(absolute).catch(() => null);
  if (stats === null || !(stats.isFile() || stats.isDirectory())) {
    throw new LocalStoreError('NOT_IN_TRASH', `${TRASH_DIR}/${id} is not in the trash (any more)`);
  }
  return absolute;
}

/**
 * Moves a file out of the trash into `folder` (relative to the root, an existing folder), under
 * its own name or, when that is taken, ` (2)`; returns its new path relative to the root.
 */
export async function restoreFile(root: string, id: string, folder: string): Promise<string> {
  const source = await itemPath(root, id);
  const dir = await resolveInsideReal(root, folder);
  const desired = path.basename(source);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const name = pickFreeName(desired, await readdir(dir), { avoid: isDocsyncFile });
    if (await commitTempNoClobber(source, path.join(dir, name))) {
      await fsyncDir(path.dirname(source));
      return `${folder}/${name}`;
    }
  }
  throw new LocalStoreError('NO_FREE_NAME', `No free name for ${desired} in ${folder}`);
}

/**
 * Moves a document folder out of the trash into `parent` as `desiredName` (` (2)` when taken);
 * returns its new path relative to the root. `asNewDocument` also drops the folder's
 * `.document.json`, whose document no longer exists: the folder then reads as one a person
 * made, which the next sync creates in the service (decision row 2). The folder moves first and
 * is cleaned where it lands: a move that fails leaves the item in the trash whole, still listed
 * as the document it was, to be restored again.
 */
export async function restoreDocumentFolder(
  root: string,
  id: string,
  parent: string,
  desiredName: string,
  asNewDocument: boolean,
): Promise<string> {
  const source = await itemPath(root, id);
  const dir = await resolveInsideReal(root, parent);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const name = pickFreeName(desiredName, await readdir(dir), { kind: 'folder' });
    const target = resolveInside(root, `${parent}/${name}`);
    // A taken name is found by pickFreeName; one taken meanwhile by a folder with something in
    // it fails the rename (ENOTEMPTY), and only an empty folder could be replaced.
    try {
      await rename(source, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') continue;
      throw new LocalStoreError(
        'RESTORE_FAILED',
        `${TRASH_DIR}/${id} could not be moved to ${parent}/${name} (${code ?? (error as Error).message}); nothing was restored and the item is still in the trash: make sure the user docsync runs as may write both folders, then restore it again.`,
        { cause: error },
      );
    }
    await dropTrashFiles(target, asNewDocument).catch(async (error: unknown) => {
      // Put back as it was rather than leave a folder the sync would misread.
      await rename(target, source);
      throw error;
    });
    await fsyncDir(dir);
    await fsyncDir(path.dirname(source));
    return `${parent}/${name}`;
  }
  throw new LocalStoreError('NO_FREE_NAME', `No free name for ${desiredName} in ${parent}`);
}

/**
 * The note is the trash's, never a file of the document (the scan would upload it); the old
 * `.document.json` goes when the folder comes back as a new document.
 */
async function dropTrashFiles(folder: string, asNewDocument: boolean): Promise<void> {
  await unlink(path.join(folder, SERVICE_COPY_NOTE)).catch(ignoreMissing);
  if (asNewDocument) await unlink(path.join(folder, DOCUMENT_META)).catch(ignoreMissing);
}

/** Removes the folders a restore left empty in the trash, up to the day folder. */
export async function pruneEmptyTrashFolders(root: string, id: string): Promise<void> {
  const parts = id.split('/');
  for (let n = parts.length - 1; n > 1; n -= 1) {
    const dir = resolveInside(root, `${TRASH_DIR}/${parts.slice(0, n).join('/')}`);
    const ok = await rmdir(dir).then(
      () => true,
      () => false,
    );
    if (!ok) return;
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
