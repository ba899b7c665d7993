/**
 * The SQLite adapter of `MetaFileCache` (src/local/meta-file-cache.ts), so even the first cycle
 * of a process (`--once`, a restart) scans a quiet folder without opening a file. The rows are a
 * cache: losing any of them costs one read of that `.document.json`, never a wrong answer, so
 * they commit without ceremony and outside the engine's transactions.
 */
import type { DocumentMeta } from '../domain/types.js';
import {
  type CachedMeta,
  type FileStamp,
  type MetaFileCache,
  parentOf,
} from '../local/meta-file-cache.js';
import type { Database } from './open-database.js';

type Entries = Map<string, CachedMeta>;

export class MetaFileRepo implements MetaFileCache {
  readonly #under;
  readonly #underEach;
  /**
   * Entity folders read ahead and not yet asked for, by folder. Two generations: a scan may
   * still ask for a folder of the last batch after the next was read (entities overlap), and
   * anything older is dropped, so what is held stays bounded by two batches.
   */
  #ahead = new Map<string, Entries>();
  #older = new Map<string, Entries>();
  readonly #put;
  readonly #forget;

  constructor(db: Database) {
    // Document folders sit right under their entity folder: `<entity>/` up to `<entity>0`
    // (the character after '/') is exactly the range of paths under it.
    this.#under = db.prepare<
      [string, string],
      { folder: string; stamp: string; meta_json: string }
    >('SELECT folder, stamp, meta_json FROM meta_files WHERE folder > ? AND folder < ?');
    this.#underEach = db.prepare<
      [string],
      { parent: string; folder: string; stamp: string; meta_json: string }
    >(
      `SELECT o.value AS parent, m.folder, m.stamp, m.meta_json FROM json_each(?) AS o
         JOIN meta_files AS m ON m.folder > o.value || '/' AND m.folder < o.value || '0'`,
    );
    this.#put = db.prepare('INSERT OR REPLACE INTO meta_files VALUES (?, ?, ?)');
    const remove = db.prepare('DELETE FROM meta_files WHERE folder = ?');
    this.#forget = db.transaction((folders: readonly string[]) => {
      for (const folder of folders) remove.run(folder);
    });
  }

  entriesUnder(entityFolder: string): ReadonlyMap<string, CachedMeta> {
    const ahead = this.#aheadOf(entityFolder);
    if (ahead) {
      this.#ahead.delete(entityFolder);
      this.#older.delete(entityFolder);
      return ahead;
    }
    const entries: Entries = new Map();
    for (const row of this.#under.iterate(`${entityFolder}/`, `${entityFolder}0`))
      entries.set(row.folder, toCached(row));
    return entries;
  }

  readAhead(entityFolders: readonly string[]): void {
    const batch = new Map(entityFolders.map((folder): [string, Entries] => [folder, new Map()]));
    for (const row of this.#underEach.iterate(JSON.stringify(entityFolders)))
      batch.get(row.parent)?.set(row.folder, toCached(row));
    this.#older = this.#ahead;
    this.#ahead = batch;
  }

  put(folder: string, stamp: FileStamp, meta: DocumentMeta): void {
    this.#put.run(folder, stamp, JSON.stringify(meta));
    this.#aheadOf(parentOf(folder))?.set(folder, { stamp, meta });
  }

  forget(folders: Iterable<string>): void {
    const list = [...folders];
    if (list.length === 0) return;
    this.#forget(list);
    for (const folder of list) this.#aheadOf(parentOf(folder))?.delete(folder);
  }

  #aheadOf(entityFolder: string): Entries | undefined {
    return this.#ahead.get(entityFolder) ?? this.#older.get(entityFolder);
  }
}

// Stored only after it passed the schema (a write of ours, or a read that parsed).
const toCached = (row: { stamp: string; meta_json: string }): CachedMeta => ({
  stamp: row.stamp as FileStamp,
  meta: JSON.parse(row.meta_json) as DocumentMeta,
});
