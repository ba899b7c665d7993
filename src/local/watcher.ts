/**
 * Tells the engine which entity a user touched, once the folder has settled. The folder tree
 * watch (folder-tree-watch.ts) reports raw events; this module drops what is never synced (`.docsync/`, the ignore list, our own
 * writes), waits per document folder until nothing changed for the settle time (our own check,
 * not a watch library's write-finish wait, so a slow copy of a big scan counts once, when complete), and
 * then calls `onTouch` once. When the OS runs out of watches (ENOSPC/EMFILE) it says so loudly
 * and falls back to touching every entity on an interval: slower, but no change goes unseen.
 */
import type { Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { OwnerRef } from '../domain/types.js';
import { listEntityFolders } from './entity-folders.js';
import { folderSignature } from './folder-signature.js';
import { watchFolderTree } from './folder-tree-watch.js';
import { isIgnored } from './ignore.js';
import { ENTITY_META, ENTITY_ROOTS, STATE_DIR } from './local-store.js';
import { parseEntityMeta } from './metadata-files.js';
import { OwnWrites } from './own-writes.js';
import { toRelative } from './resolve-inside.js';

export type WatchMode = 'events' | 'scanning';
export type TouchReason = 'changed' | 'poll';

/** "This entity may have changed": the engine runs a cycle for it. */
export interface EntityTouch {
  /** e.g. `Companies/Acme Pty Ltd (123 456 789)`. */
  readonly entityFolder: string;
  /** The document folder that changed; null for a change in the entity folder itself or a poll. */
  readonly documentFolder: string | null;
  /** From the entity folder's `.entity.json`; null when missing (a new or removed folder). */
  readonly owner: OwnerRef | null;
  readonly reason: TouchReason;
}

/** What this module needs of a watch source (FolderTreeWatch); a test may hand in its own. */
export interface WatchSource {
  on(event: 'all', listener: (event: string, path: string, stats?: Stats) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  close(): Promise<void>;
}

export type WatchFactory = (
  root: string,
  ignored: (absolutePath: string) => boolean,
) => WatchSource;

export interface WatcherLog {
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

export interface FolderWatcherOptions {
  readonly root: string;
  readonly onTouch: (touch: EntityTouch) => void | Promise<void>;
  readonly ignore?: readonly string[];
  /** daemon.md settle time, in ms (default 3000). */
  readonly settleMs?: number;
  /** Scanning mode: how often every entity is touched (default 60 s). */
  readonly pollIntervalMs?: number;
  /** The store's record of its own writes (FsLocalStore.ownWrites). */
  readonly ownWrites?: OwnWrites;
  readonly log?: WatcherLog;
  readonly watchFactory?: WatchFactory;
}

interface Pending {
  readonly entityFolder: string;
  readonly documentFolder: string | null;
  timer: NodeJS.Timeout | undefined;
  generation: number;
  lastSignature: string | undefined;
  /** A fingerprint is being taken; `stale`: an event came meanwhile, so take one more after it. */
  fingerprinting: boolean;
  stale: boolean;
}

const WATCH_LIMIT_CODES = new Set(['ENOSPC', 'EMFILE']);

export class FolderWatcher {
  readonly #root: string;
  readonly #options: FolderWatcherOptions;
  readonly #ignore: readonly string[];
  readonly #settleMs: number;
  readonly #ownWrites: OwnWrites;
  readonly #pending = new Map<string, Pending>();
  #mode: WatchMode = 'events';
  #source: WatchSource | undefined;
  #poll: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;
  #started: (() => void) | undefined;

  constructor(options: FolderWatcherOptions) {
    this.#root = path.resolve(options.root);
    this.#options = options;
    this.#ignore = options.ignore ?? [];
    this.#settleMs = options.settleMs ?? 3000;
    this.#ownWrites = options.ownWrites ?? new OwnWrites();
  }

  /** `events` while the OS reports changes; `scanning` after a watch-limit fallback. */
  get mode(): WatchMode {
    return this.#mode;
  }

  /**
   * Starts watching; resolves once the initial directory walk is done, or once the watcher fell
   * back to scanning: a source that runs out of watches during its walk never reports it done.
   */
  start(): Promise<void> {
    return new Promise((resolve) => {
      this.#started = resolve;
      const factory = this.#options.watchFactory ?? watchFolderTree;
      try {
        const source = factory(this.#root, (p) => this.#isIgnoredPath(p));
        this.#source = source;
        source.on('all', (event, p, stats) => this.#onEvent(event, p, stats ?? null));
        source.on('error', (error) => this.#onError(error));
        source.on('ready', () => resolve());
      } catch (error) {
        this.#onError(error);
        resolve();
      }
    });
  }

  /** Stops everything; a second call waits for the first. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#poll);
      for (const pending of this.#pending.values()) clearTimeout(pending.timer);
      this.#pending.clear();
      await this.#source?.close();
    })();
    return this.#closing;
  }

  #isIgnoredPath(absolutePath: string): boolean {
    const rel = toRelative(this.#root, absolutePath);
    if (rel === '' || rel.startsWith('..')) return false;
    if (rel === STATE_DIR || rel.startsWith(`${STATE_DIR}/`)) return true;
    return isIgnored(rel, this.#ignore);
  }

  #onEvent(event: string, absolutePath: string, stats: Stats | null): void {
    if (this.#closing || this.#isIgnoredPath(absolutePath)) return;
    const parts = toRelative(this.#root, absolutePath).split('/');
    const tops: readonly string[] = Object.values(ENTITY_ROOTS);
    if (parts.length < 2 || !tops.includes(parts[0] ?? '')) return;
    const now = stats
      ? { size: stats.size, mtimeMs: stats.mtimeMs, isDir: stats.isDirectory() }
      : null;
    if (this.#ownWrites.isOwn(absolutePath, now)) return;
    const entityFolder = parts.slice(0, 2).join('/');
    const isEntityFile = parts.length === 3 && !event.endsWith('Dir');
    const documentFolder = parts.length >= 3 && !isEntityFile ? parts.slice(0, 3).join('/') : null;
    this.#schedule(entityFolder, documentFolder);
  }

  /** (Re)starts the settle wait of one folder: every event pushes it back. */
  #schedule(entityFolder: string, documentFolder: string | null): void {
    const key = documentFolder ?? entityFolder;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = {
        entityFolder,
        documentFolder,
        timer: undefined,
        generation: 0,
        lastSignature: undefined,
        fingerprinting: false,
        stale: false,
      };
      this.#pending.set(key, pending);
    }
    pending.generation += 1;
    this.#fingerprint(key, pending);
    clearTimeout(pending.timer);
    pending.timer = setTimeout(() => void this.#check(key), this.#settleMs);
  }

  /**
   * The fingerprint as of the latest event: if it still holds one settle time later, the folder
   * has settled. Without it the first check only learnt a fingerprint and waited a second settle
   * time, so every local change took 2 × settleSeconds to reach the service.
   * One fingerprint per folder is taken at a time; events meanwhile only ask for one more after
   * it. A fingerprint per event grows with the square of the files: thousands of files dropped
   * into one folder would take the daemon to an out-of-memory death.
   */
  #fingerprint(key: string, pending: Pending): void {
    if (pending.fingerprinting) {
      pending.stale = true;
      return;
    }
    pending.fingerprinting = true;
    pending.stale = false;
    const generation = pending.generation;
    void folderSignature(path.join(this.#root, key), this.#ignore)
      .then(
        (signature) => {
          if (pending.generation === generation) pending.lastSignature = signature;
        },
        () => undefined,
      )
      .finally(() => {
        pending.fingerprinting = false;
        if (pending.stale && !this.#closing && this.#pending.get(key) === pending) {
          this.#fingerprint(key, pending);
        }
      });
  }

  /** Settled when the folder's fingerprint is the same as one settle time ago. */
  async #check(key: string): Promise<void> {
    const pending = this.#pending.get(key);
    if (!pending || this.#closing) return;
    const generation = pending.generation;
    const signature = await folderSignature(path.join(this.#root, key), this.#ignore);
    if (pending.generation !== generation || this.#closing) return; // an event came meanwhile
    if (signature !== pending.lastSignature) {
      pending.lastSignature = signature;
      pending.timer = setTimeout(() => void this.#check(key), this.#settleMs);
      return;
    }
    this.#pending.delete(key);
    await this.#touch(pending.entityFolder, pending.documentFolder, 'changed');
  }

  async #touch(entityFolder: string, documentFolder: string | null, reason: TouchReason) {
    const owner = await this.#ownerOf(entityFolder);
    try {
      await this.#options.onTouch({ entityFolder, documentFolder, owner, reason });
    } catch (error) {
      this.#options.log?.error({ err: error, entityFolder }, 'Handling a folder change failed');
    }
  }

  async #ownerOf(entityFolder: string): Promise<OwnerRef | null> {
    const text = await readFile(path.join(this.#root, entityFolder, ENTITY_META), 'utf8').catch(
      () => null,
    );
    if (text === null) return null;
    const parsed = parseEntityMeta(text);
    return parsed.ok ? parsed.value.owner : null;
  }

  #onError(error: unknown): void {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code && WATCH_LIMIT_CODES.has(code)) {
      void this.#fallBackToScanning(code);
      return;
    }
    this.#options.log?.warn({ err: error }, 'Folder watcher error; continuing');
  }

  async #fallBackToScanning(code: string): Promise<void> {
    if (this.#mode === 'scanning' || this.#closing) return;
    this.#mode = 'scanning';
    const intervalMs = this.#options.pollIntervalMs ?? 60_000;
    this.#options.log?.warn(
      { code, root: this.#root, pollIntervalMs: intervalMs },
      'WATCH LIMIT REACHED: the OS refused more file watches, so changes in the folder are no ' +
        'longer reported as they happen. docsync now checks every entity every ' +
        `${Math.round(intervalMs / 1000)} s instead. Raise fs.inotify.max_user_watches (Linux) ` +
        'or the open-file limit, then restart docsync.',
    );
    const source = this.#source;
    this.#source = undefined;
    await source?.close().catch(() => undefined);
    this.#started?.();
    this.#poll = setInterval(() => void this.#pollAll(), intervalMs);
    await this.#pollAll();
  }

  async #pollAll(): Promise<void> {
    if (this.#closing) return;
    for (const entry of await listEntityFolders(this.#root, this.#ignore)) {
      await this.#touch(entry.folder, null, 'poll');
    }
  }
}
