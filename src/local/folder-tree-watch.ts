/**
 * The watcher's source of raw events: one `fs.watch` per folder, never one per file. On Linux
 * an inotify watch on a folder already reports every change to the files in it, so a watch per
 * file as well (chokidar's way) only triples the watches: a store of 100,000 documents needs
 * ~101,000 folder watches but ~300,000 with its files, past the default per-user limit of many
 * systems (`fs.inotify.max_user_watches`), which forced the slow scanning fallback and held
 * ~300,000 watch handles in memory. Where the OS watches a whole tree natively (macOS
 * FSEvents, Windows), one recursive watch is used instead.
 *
 * Events are chokidar's names (`add`, `addDir`, `change`, `unlink`, `unlinkDir`) with the
 * path's lstat, for FolderWatcher, which only needs to know which folder changed and whether a
 * path is still what the store itself wrote. Nothing is reported for what exists at the start.
 */
import { EventEmitter } from 'node:events';
import { type FSWatcher, type Stats, watch } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { WatchFactory, WatchSource } from './watcher.js';

/** Folders read at once during a walk: enough to keep the thread pool busy. */
const WALK_BATCH = 16;
/** How often a root that does not exist yet (before the first sync made it) is looked for. */
const ROOT_POLL_MS = 1000;
/** Where `fs.watch` with `recursive` is the OS's own tree watch, not an emulation per file. */
const NATIVE_RECURSIVE = new Set(['darwin', 'win32']);

export const watchFolderTree: WatchFactory = (root, ignored) => {
  const source = new FolderTreeWatch(path.resolve(root), ignored);
  void source.start();
  return source;
};

export class FolderTreeWatch extends EventEmitter implements WatchSource {
  readonly #watches = new Map<string, FSWatcher>();
  /** Which folder each watch is of: its listeners are shared, not made per folder. */
  readonly #folderOf = new WeakMap<FSWatcher, string>();
  /**
   * The listeners of every watch, called with the watch as `this`. A pair of closures per folder
   * adds up to megabytes at a large store.
   */
  readonly #onChange: (this: FSWatcher, type: string, name: string | Buffer | null) => void;
  readonly #onError: (this: FSWatcher, error: unknown) => void;
  #closed = false;
  #rootPoll: NodeJS.Timeout | undefined;

  constructor(
    private readonly root: string,
    private readonly ignored: (absolutePath: string) => boolean,
    private readonly recursive = NATIVE_RECURSIVE.has(process.platform),
  ) {
    super();
    const tree = this;
    this.#onChange = function (_type, name) {
      const dir = tree.#folderOf.get(this);
      if (dir === undefined) return;
      const base = tree.recursive ? tree.root : dir;
      void tree.#changed(name ? path.join(base, name.toString()) : dir);
    };
    this.#onError = function (error) {
      const dir = tree.#folderOf.get(this);
      if (dir !== undefined) tree.#unwatch(dir);
      if (!isGone(error)) tree.emit('error', error);
    };
  }

  /**
   * Watches the tree; emits `ready` once the first walk is done (never after an error). A root
   * that does not exist yet is ready at once, and watched from when it appears: the first sync
   * creates it after the daemon has started.
   */
  async start(): Promise<void> {
    if (!(await isFolder(this.root))) {
      this.#rootPoll = setInterval(() => void this.#lookForRoot(), ROOT_POLL_MS);
      this.emit('ready');
      return;
    }
    if (await this.#watchRoot()) this.emit('ready');
  }

  close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#rootPoll);
    for (const watcher of this.#watches.values()) watcher.close();
    this.#watches.clear();
    return Promise.resolve();
  }

  #watchRoot(): Promise<boolean> {
    if (this.recursive) return Promise.resolve(this.#watch(this.root, { recursive: true }));
    return this.#walk(this.root, false);
  }

  async #lookForRoot(): Promise<void> {
    if (this.#closed || this.#watches.size > 0 || !(await isFolder(this.root))) return;
    clearInterval(this.#rootPoll);
    // What the first sync writes meanwhile is its own; the walk only needs the folders.
    await this.#watchRoot();
  }

  /** Watches `dir` and every folder below it; with `report`, emits what it finds on the way. */
  async #walk(dir: string, report: boolean): Promise<boolean> {
    const pending = [dir];
    while (pending.length > 0) {
      const batch = pending.splice(0, WALK_BATCH);
      const ok = await Promise.all(
        batch.map(async (folder) => {
          if (this.#closed || !this.#watch(folder)) return false;
          const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
          for (const entry of entries) {
            // Files matter only when reported: the first walk of a big store skips two thirds
            // of its entries without building a path.
            if (!report && !entry.isDirectory()) continue;
            const full = path.join(folder, entry.name);
            if (this.ignored(full)) continue;
            if (entry.isDirectory()) pending.push(full);
            if (report) await this.#report(full, entry.isDirectory() ? 'addDir' : 'add');
          }
          return true;
        }),
      );
      if (ok.includes(false)) return false;
    }
    return true;
  }

  /** One watch; false (and an `error` event, unless the folder went away) when refused. */
  #watch(dir: string, options: { recursive?: boolean } = {}): boolean {
    if (this.#watches.has(dir)) return true;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: true, ...options }, this.#onChange);
    } catch (error) {
      if (!isGone(error)) this.emit('error', error);
      return false;
    }
    watcher.on('error', this.#onError);
    this.#folderOf.set(watcher, dir);
    this.#watches.set(dir, watcher);
    return true;
  }

  /** Stops watching `dir` and every folder below it (removed, or moved away). */
  #unwatch(dir: string): void {
    const below = `${dir}${path.sep}`;
    for (const [folder, watcher] of this.#watches) {
      if (folder === dir || folder.startsWith(below)) {
        watcher.close();
        this.#watches.delete(folder);
      }
    }
  }

  /** Something happened at `full`: say what it is now. */
  async #changed(full: string): Promise<void> {
    if (this.#closed || this.ignored(full)) return;
    const stats = await lstat(full).catch(() => null);
    if (this.#closed) return;
    if (stats === null) {
      const wasFolder = this.#watches.has(full);
      if (wasFolder) this.#unwatch(full);
      this.emit('all', wasFolder ? 'unlinkDir' : 'unlink', full);
      return;
    }
    if (!stats.isDirectory()) {
      this.emit('all', 'change', full, stats);
      return;
    }
    if (this.recursive || this.#watches.has(full)) return;
    // A folder made or moved in: watch it, then report it and what it holds, which may have
    // arrived before its watch did.
    this.emit('all', 'addDir', full, stats);
    await this.#walk(full, true);
  }

  async #report(full: string, event: 'add' | 'addDir'): Promise<void> {
    const stats: Stats | null = await lstat(full).catch(() => null);
    if (stats && !this.#closed) this.emit('all', event, full, stats);
  }
}

/** Through symlinks: a configured root may be a link to the real folder. */
async function isFolder(dir: string): Promise<boolean> {
  return (await stat(dir).catch(() => null))?.isDirectory() ?? false;
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EPERM';
}
