/**
 * What docsync itself just did to the folder, so the watcher does not report it back as a user
 * change (which would start a pointless cycle, or worse, push our own download back up). The
 * store records each write (with the size and mtime it left) and each removal; the watcher asks
 * before reporting an event. Entries expire, so a user who edits the same file later is heard.
 */
import path from 'node:path';

interface Written {
  readonly kind: 'file';
  readonly size: number;
  readonly mtimeMs: number;
  readonly at: number;
}

interface Made {
  readonly kind: 'dir' | 'removed';
  readonly at: number;
}

type Entry = Written | Made;

export class OwnWrites {
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: { ttlMs?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? 120_000;
    this.#now = options.now ?? Date.now;
  }

  /** A file we wrote (or moved into place), as it stood right after. */
  recordFile(absolutePath: string, stats: { size: number; mtimeMs: number }): void {
    this.#set(absolutePath, { kind: 'file', size: stats.size, mtimeMs: stats.mtimeMs, at: 0 });
  }

  /** A folder we created (or moved into place). */
  recordDir(absolutePath: string): void {
    this.#set(absolutePath, { kind: 'dir', at: 0 });
  }

  /** A file or folder we moved away (to the trash); covers everything below it too. */
  recordRemoved(absolutePath: string): void {
    this.#set(absolutePath, { kind: 'removed', at: 0 });
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
    const entry = this.#entries.get(key);
    if (!entry) return false;
    if (entry.kind === 'dir') return stats.isDir;
    if (entry.kind === 'file') return stats.size === entry.size && stats.mtimeMs === entry.mtimeMs;
    return false;
  }

  #removedAtOrAbove(key: string): boolean {
    for (let probe = key; ; probe = path.dirname(probe)) {
      if (this.#entries.get(probe)?.kind === 'removed') return true;
      if (path.dirname(probe) === probe) return false;
    }
  }

  #set(absolutePath: string, entry: Entry): void {
    this.#entries.set(path.resolve(absolutePath), { ...entry, at: this.#now() });
  }

  #expire(): void {
    const oldest = this.#now() - this.#ttlMs;
    for (const [key, entry] of this.#entries) if (entry.at < oldest) this.#entries.delete(key);
  }
}
