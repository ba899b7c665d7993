/**
 * The SQLite adapter of `MetaFileCache` (src/local/meta-file-cache.ts), so even the first cycle
 * of a process (`--once`, a restart) scans a quiet folder without opening a file. The rows are a
 * cache: losing any of them costs one read of that `.document.json`, never a wrong answer, so
 * they commit without ceremony and outside the engine's transactions.
 */
import type { DocumentMeta } from '../domain/types.js';
import type { CachedMeta, FileStamp, MetaFileCache } from '../local/meta-file-cache.js';
import type { Database } from './open-database.js';

export class MetaFileRepo implements MetaFileCache {
  readonly #under;
  readonly #put;
  readonly #forget;

  constructor(db: Database) {
    // Document folders sit right under their entity folder: `<entity>/` up to `<entity>0`
    // (the character after '/') is exactly the range of paths under it.
    this.#under = db.prepare<
      [string, string],
      { folder: string; stamp: string; meta_json: string }
    >('SELECT folder, stamp, meta_json FROM meta_files WHERE folder > ? AND folder < ?');
    this.#put = db.prepare('INSERT OR REPLACE INTO meta_files VALUES (?, ?, ?)');
    const remove = db.prepare('DELETE FROM meta_files WHERE folder = ?');
    this.#forget = db.transaction((folders: readonly string[]) => {
      for (const folder of folders) remove.run(folder);
    });
  }

  entriesUnder(entityFolder: string): ReadonlyMap<string, CachedMeta> {
    const entries = new Map<string, CachedMeta>();
    for (const row of this.#under.all(`${entityFolder}/`, `${entityFolder}0`)) {
      // Stored only after it passed the schema (a write of ours, or a read that parsed).
      const meta = JSON.parse(row.meta_json) as DocumentMeta;
      entries.set(row.folder, { stamp: row.stamp as FileStamp, meta });
    }
    return entries;
  }

  put(folder: string, stamp: FileStamp, meta: DocumentMeta): void {
    this.#put.run(folder, stamp, JSON.stringify(meta));
  }

  forget(folders: Iterable<string>): void {
    const list = [...folders];
    if (list.length > 0) this.#forget(list);
  }
}
