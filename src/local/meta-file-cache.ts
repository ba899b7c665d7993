/**
 * What each `.document.json` held when docsync last wrote or read it, keyed by folder and the
 * file's stamp, so a quiet scan opens no file (bench 2): while size, mtime, ctime and inode are
 * those of that moment, the bytes are too. ctime is in the stamp because no one can set it: an
 * edit that keeps size and mtime (a copy with `cp -p`, a tool that restores mtime) still moves
 * it. A stamp that differs only costs a read, so an adapter may forget entries at any time.
 */
import type { Stats } from 'node:fs';
import type { DocumentMeta } from '../domain/types.js';

/** Size, mtime, ctime and inode of a file, as one comparable string. */
export type FileStamp = string & { readonly __fileStamp: true };

export const stampOf = (stats: Stats): FileStamp =>
  `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}` as FileStamp;

export interface MetaFileCache {
  /** The meta last seen in `<folder>/.document.json`, if the file still has `stamp`. */
  get(folder: string, stamp: FileStamp): DocumentMeta | null;
  put(folder: string, stamp: FileStamp, meta: DocumentMeta): void;
  /** Forgets the folders under `entityFolder` that are not in `present` (moved or removed). */
  retainUnder(entityFolder: string, present: ReadonlySet<string>): void;
}

/** The in-process adapter: enough for a daemon's later cycles, and for tests. */
export class MemoryMetaFileCache implements MetaFileCache {
  /** By entity folder, then document folder: `retainUnder` touches one entity's entries. */
  readonly #byParent = new Map<string, Map<string, { stamp: FileStamp; meta: DocumentMeta }>>();

  get(folder: string, stamp: FileStamp): DocumentMeta | null {
    const entry = this.#byParent.get(parentOf(folder))?.get(folder);
    return entry?.stamp === stamp ? entry.meta : null;
  }

  put(folder: string, stamp: FileStamp, meta: DocumentMeta): void {
    const parent = parentOf(folder);
    const entries = this.#byParent.get(parent) ?? new Map();
    entries.set(folder, { stamp, meta });
    this.#byParent.set(parent, entries);
  }

  retainUnder(entityFolder: string, present: ReadonlySet<string>): void {
    const entries = this.#byParent.get(entityFolder);
    for (const folder of entries?.keys() ?? []) if (!present.has(folder)) entries!.delete(folder);
  }
}

const parentOf = (folder: string) => folder.slice(0, Math.max(0, folder.lastIndexOf('/')));
