/**
 * What each `.document.json` held when docsync last wrote or read it, keyed by folder and the
 * file's stamp, so a quiet scan opens no file: while size, mtime, ctime and inode are
 * those of that moment, the bytes are too. ctime is in the stamp because no one can set it: an
 * edit that keeps size and mtime (a copy with `cp -p`, a tool that restores mtime) still moves
 * it. A stamp that differs only costs a read, so an adapter may forget entries at any time.
 */
import type { Stats } from 'node:fs';
import type { DocumentMeta, FileStamp } from '../domain/types.js';

export type { FileStamp } from '../domain/types.js';

/** Size, mtime, ctime and inode of a file, as one comparable string. */
export const stampOf = (stats: Stats): FileStamp =>
  `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}` as FileStamp;

/** Stands for an entry whose name is not UTF-8: it cannot be opened by name, only be there. */
export const UNREADABLE_NAME = 'unreadable-name' as FileStamp;

/** One remembered `.document.json`: what it held while the file had `stamp`. */
export interface CachedMeta {
  readonly stamp: FileStamp;
  readonly meta: DocumentMeta;
}

export interface MetaFileCache {
  /**
   * What is remembered of each document folder right under `entityFolder`, by folder. A scan
   * asks once per entity: asking per document cost a query each.
   */
  entriesUnder(entityFolder: string): ReadonlyMap<string, CachedMeta>;
  /**
   * A hint that `entriesUnder` is about to be asked for these entity folders: an adapter may
   * read them together (the SQLite one in one query). What it answers later must still be what
   * was put and forgotten since.
   */
  readAhead(entityFolders: readonly string[]): void;
  put(folder: string, stamp: FileStamp, meta: DocumentMeta): void;
  /** Forgets these folders (moved or removed). */
  forget(folders: Iterable<string>): void;
}

/** The in-process adapter: enough for a daemon's later cycles, and for tests. */
export class MemoryMetaFileCache implements MetaFileCache {
  /** By entity folder, then document folder. */
  readonly #byParent = new Map<string, Map<string, CachedMeta>>();

  entriesUnder(entityFolder: string): ReadonlyMap<string, CachedMeta> {
    return new Map(this.#byParent.get(entityFolder));
  }

  readAhead(): void {}

  put(folder: string, stamp: FileStamp, meta: DocumentMeta): void {
    const parent = parentOf(folder);
    const entries = this.#byParent.get(parent) ?? new Map<string, CachedMeta>();
    entries.set(folder, { stamp, meta });
    this.#byParent.set(parent, entries);
  }

  forget(folders: Iterable<string>): void {
    for (const folder of folders) this.#byParent.get(parentOf(folder))?.delete(folder);
  }
}

export const parentOf = (folder: string) => folder.slice(0, Math.max(0, folder.lastIndexOf('/')));
