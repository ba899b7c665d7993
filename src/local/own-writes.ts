/**
 * What docsync itself just did to the folder, so the watcher does not report it back as a user
 * change (which would start a pointless cycle, or worse, push our own download back up). The
 * store records each write (with the size and mtime it left) and each removal; the watcher asks
 * before reporting an event. Entries expire, so a user who edits the same file later is heard.
 * Both maps are kept in the order entries were made, so expiring stops at the first live one and
 * runs on every record as well as every question. Before, every folder event walked every entry
 * of the last two minutes (a big sync records ~3 per document, and its own writes are events
 * too), and whatever a sync wrote last stayed in memory until the next event.
 *
 * The watcher asks as the event comes, within milliseconds of the write (seconds when the
 * thread pool is busy with a big sync's fsyncs), so entries live 30 s. What an entry that
 * expired too early costs is one needless sync of the entity, which finds nothing to do: the
 * agreed state already holds what we wrote. Memory follows the write rate: a first sync at
 * 300 requests a second holds ~9,000 entries, one at the service's 10 a second ~300.
 */
import path from 'node:path';

/** What we left at a path; a folder has no size (-1). */
interface Present {
  readonly kind: 'file' | 'dir';
  readonly size: number;
  readonly mtimeMs: number;
  readonly at: number;
}

const TTL_MS = 30_000;

export class OwnWrites {
  /** What we left at a path. Kept apart from removals: a rename away (link, then unlink) makes
   *  the OS report an attribute change of the old path before its removal. */
  readonly #present = new Map<string, Present>();
  readonly #removed = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { ttlMs?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** A file we wrote (or moved into place), as it stood right after. */
  recordFile(absolutePath: string, stats: { size: number; mtimeMs: number }): void {
    // Every entry is built by the one literal, with its fields in one order: an entry built by
    // spreading another and adding `at` got a hidden class of its own in V8, ~250 bytes more
    // each (34,000 such classes at the end of a 20,000-document first sync).
    this.#remember(this.#present, absolutePath, {
      kind: 'file',
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      at: this.#now(),
    });
  }

  /** A folder we created (or moved into place). */
  recordDir(absolutePath: string): void {
    this.#remember(this.#present, absolutePath, {
      kind: 'dir',
      size: -1,
      mtimeMs: -1,
      at: this.#now(),
    });
  }

  /** A file or folder we moved away (to the trash); covers everything below it too. */
  recordRemoved(absolutePath: string): void {
    this.#remember(this.#removed, absolutePath, this.#now());
  }

  /** Entries held (both kinds), for tests. */
  get size(): number {
    return this.#present.size + this.#removed.size;
  }

  /**
   * Whether an event is our own doing. `stats` is what the path holds now (null when it is gone):
   * a file counts as ours only while it still has the size and mtime we left.
   */
  isOwn(
    absolutePath: string,
    stats: { size: number; mtimeMs: number; isDir: boolean } | null,
  ): boolean {
    this.#expire();
    const key = path.resolve(absolutePath);
    if (stats === null) return this.#removedAtOrAbove(key);
    const entry = this.#present.get(key);
    if (!entry) return false;
    if (entry.kind === 'dir') return stats.isDir;
    return stats.size === entry.size && stats.mtimeMs === entry.mtimeMs;
  }

  #removedAtOrAbove(key: string): boolean {
    for (let probe = key; ; probe = path.dirname(probe)) {
      if (this.#removed.has(probe)) return true;
      if (path.dirname(probe) === probe) return false;
    }
  }

  #remember<T>(entries: Map<string, T>, absolutePath: string, value: T): void {
    this.#expire();
    const key = path.resolve(absolutePath);
    // Deleted first, so a path recorded again moves to the end and the order stays by time.
    entries.delete(key);
    entries.set(key, value);
  }

  #expire(): void {
    const oldest = this.#now() - this.#ttlMs;
    for (const [key, entry] of this.#present) {
      if (entry.at >= oldest) break;
      this.#present.delete(key);
    }
    for (const [key, at] of this.#removed) {
      if (at >= oldest) break;
      this.#removed.delete(key);
    }
  }
}
