/**
 * The SQLite adapter of `MetaFileCache` (src/local/meta-file-cache.ts), so even the first cycle
 * of a process (`--once`, a restart) scans a quiet folder without opening a file. The rows are a
 * cache: losing any of them costs one read of that `.document.json`, never a wrong answer, so
 * they commit without ceremony and outside the engine's transactions.
 */
import type { DocumentMeta } from '../domain/types.js';
import type { FileStamp, MetaFileCache } from '../local/meta-file-cache.js';
import type { Database } from './open-database.js';

export class MetaFileRepo implements MetaFileCache {
  readonly #get;
  readonly #put;
  readonly #under;
  readonly #remove;

  constructor(db: Database) {
    this.#get = db.prepare<[string], { stamp: string; meta_json: string }>(
      'SELECT stamp, meta_json FROM meta_files WHERE folder = ?',
    );
    this.#put = db.prepare('INSERT OR REPLACE INTO meta_files VALUES (?, ?, ?)');
    // Document folders sit right under their entity folder: `<entity>/` up to `<entity>0`
    // (the character after '/') is exactly the range of paths under it.
    this.#under = db
      .prepare<[string, string], string>(
        'SELECT folder FROM meta_files WHERE folder > ? AND folder < ?',
      )
      .pluck();
    this.#remove = db.prepare('DELETE FROM meta_files WHERE folder = ?');
  }

  get(folder: string, stamp: FileStamp): DocumentMeta | null {
    const row = this.#get.get(folder);
    // Stored only after it passed the schema (a write of ours, or a read that parsed).
    return row?.stamp === stamp ? (JSON.parse(row.meta_json) as DocumentMeta) : null;
  }

  put(folder: string, stamp: FileStamp, meta: DocumentMeta): void {
    this.#put.run(folder, stamp, JSON.stringify(meta));
  }

  retainUnder(entityFolder: string, present: ReadonlySet<string>): void {
    for (const folder of this.#under.all(`${entityFolder}/`, `${entityFolder}0`)) {
      if (!present.has(folder)) this.#remove.run(folder);
    }
  }
}
