/**
 * The real LocalStore: a folder on disk. Composition only; the work is in atomic-write.ts,
 * trash.ts, scan.ts, entity-folders.ts and staged-folder.ts. Every path goes through
 * resolveInside, and every write is recorded in `ownWrites` so the watcher stays quiet about it.
 */
import type { Stats } from 'node:fs';
import { link, lstat, mkdir, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { LocalChangedError, LocalStoreError } from '../domain/errors.js';
import { documentFolderName, localEditName } from '../domain/local-folder-names.js';
import { pickFreeName } from '../domain/local-names.js';
import type {
  DocumentMeta,
  Entity,
  EntryIdentity,
  FileStamp,
  LocalEntitySnapshot,
  LocalFile,
  LocatedDocuments,
  OwnerRef,
  SkippedEntry,
} from '../domain/types.js';
import type { UploadSource } from '../domain/upload-source.js';
import {
  commitTempNoClobber,
  type FileSource,
  fsyncDir,
  newTempPath,
  writeFileAtomic,
  writeTemp,
} from './atomic-write.js';
import {
  ensureEntityFolder,
  entityFolderPaths,
  findEntityFolder,
  listEntityFolders,
  skippedEntityFolders,
} from './entity-folders.js';
import { findUnder, identityAt } from './entry-identity.js';
import { checkExpected, lookAt } from './expected.js';
import { type FilesystemKind, filesystemKind } from './filesystem-kind.js';
import { asyncFsCalls, syncFsCalls } from './fs-calls.js';
import { isIgnored } from './ignore.js';
import {
  type CreatedDocumentFolder,
  DEFAULT_TRASH_DAYS,
  DOCUMENT_META,
  type Expected,
  type FoundMeta,
  type IncomingFile,
  type LocalEntityFolder,
  type LocalStore,
  MARKER_FILE,
  type PlacedFile,
  type RestoredAttachment,
  type ScanHint,
  type ServiceCopyOf,
  TMP_DIR,
  TRASH_DIR,
} from './local-store.js';
import { locateDocuments } from './locate-documents.js';
import { MemoryMetaFileCache, type MetaFileCache, stampOf } from './meta-file-cache.js';
import {
  formatDocumentMeta,
  formatServiceCopyNote,
  isDocsyncFile,
  parseDocumentMeta,
  SERVICE_COPY_NOTE,
} from './metadata-files.js';
import { OwnWrites } from './own-writes.js';
import { resolveInside, resolveInsideReal } from './resolve-inside.js';
import { markerText, readMarker, serviceInMarker, withService } from './root-marker.js';
import { hashFile, lstatWithoutLinks, type ScanOptions, scanEntityFolder } from './scan.js';
import { escapeControls, SKIP_REASONS } from './skip-rules.js';
import { commitStaged, withStagingFolder, writeStaged } from './staged-folder.js';
import { ensureRealFolders } from './state-folders.js';
import { checkStoreRoot, storeRootError } from './store-root.js';
import { moveIntoTrash, moveToTrash, sweepTrash } from './trash.js';
import { storeUploadSource } from './upload-file.js';

/** What a write expects after one it could not read back as its own: never found again. */
const CHANGED: Expected = { kind: 'file', stamp: 'changed since written' as FileStamp };

/** Still the file written: its inode, size and mtime (a rename moves only its ctime). */
const sameFile = (now: Stats, written: Stats) =>
  now.ino === written.ino && now.size === written.size && now.mtimeMs === written.mtimeMs;

export interface FsLocalStoreOptions {
  readonly root: string;
  /** Configured ignore patterns, on top of daemon.md's list. */
  readonly ignore?: readonly string[];
  /** daemon.md: a file counts once unchanged this long (default 3). */
  readonly settleSeconds?: number;
  readonly now?: () => Date;
  /** Shared with the watcher, so our own writes are not reported as user changes. */
  readonly ownWrites?: OwnWrites;
  /** Where the `.document.json` contents are remembered between scans (the state, in main.ts). */
  readonly metaCache?: MetaFileCache;
  /** The service the folder is synced with (`serviceKey`), which `.docsync-root` names. */
  readonly service?: string;
}

export class FsLocalStore implements LocalStore {
  readonly root: string;
  readonly ownWrites: OwnWrites;
  readonly #ignore: readonly string[];
  readonly #settleMs: number;
  readonly #now: () => Date;
  readonly #metaCache: MetaFileCache;
  readonly #service: string | undefined;

  #filesystem: FilesystemKind | null = null;

  constructor(options: FsLocalStoreOptions) {
    this.root = path.resolve(options.root);
    this.ownWrites = options.ownWrites ?? new OwnWrites();
    this.#ignore = options.ignore ?? [];
    this.#settleMs = (options.settleSeconds ?? 3) * 1000;
    this.#now = options.now ?? (() => new Date());
    this.#metaCache = options.metaCache ?? new MemoryMetaFileCache();
    this.#service = options.service;
  }

  /** The absolute path of a relative one, refused when outside the root (for uploads, logs). */
  absolutePath(relPath: string): string {
    return resolveInside(this.root, relPath);
  }

  /** A fresh path in `.docsync/tmp/`, for callers that must write a file themselves. */
  tempPath(): Promise<string> {
    return newTempPath(this.root);
  }

  async hasMarker(): Promise<boolean> {
    const stats = await lstat(resolveInside(this.root, MARKER_FILE)).catch(() => null);
    if (stats?.isFile()) return true;
    // No marker: a root that is missing (the first sync makes it; later the rail stops the run)
    // or one that cannot be a folder at all, which no run can fix (StoreRootError).
    await checkStoreRoot(this.root);
    return false;
  }

  async writeMarker(): Promise<void> {
    // The first sync may start from no folder at all; the root is the user's to place, so it
    // alone is made as asked (through links), and docsync's folders in it are checked.
    await mkdir(this.root, { recursive: true }).catch((error) => {
      throw storeRootError(this.root, error);
    });
    await ensureRealFolders(this.root, TRASH_DIR);
    await ensureRealFolders(this.root, TMP_DIR);
    const before = (await this.hasMarker()) ? await readMarker(this.root) : null;
    const content =
      before === null ? markerText(this.#now(), this.#service) : withService(before, this.#service);
    if (content !== before) await this.#writeOwn(MARKER_FILE, content);
  }

  async markerService(): Promise<string | null> {
    const text = (await this.hasMarker()) ? await readMarker(this.root) : null;
    return text === null ? null : serviceInMarker(text);
  }

  listEntityFolders(): Promise<LocalEntityFolder[]> {
    return listEntityFolders(this.root, this.#ignore);
  }

  skippedEntityFolders(): Promise<SkippedEntry[]> {
    return skippedEntityFolders(this.root, this.#ignore);
  }

  entityFolderPaths(): Promise<string[]> {
    return entityFolderPaths(this.root, this.#ignore);
  }

  async ensureEntityFolder(
    entity: Entity,
    link: string,
    known?: string | null,
    claimed?: readonly string[],
  ): Promise<string> {
    if (typeof known === 'string') await resolveInsideReal(this.root, known);
    return ensureEntityFolder(this.#stage, entity, link, known, claimed);
  }

  readAhead(entityFolders: readonly string[]): void {
    this.#metaCache.readAhead(entityFolders);
  }

  async scanEntity(
    owner: OwnerRef,
    hints: readonly ScanHint[] = [],
    knownFolder?: string | null,
  ): Promise<LocalEntitySnapshot> {
    // The engine knows where the entity lives; only when that folder is gone (renamed by a
    // user) are all the `.entity.json` files read to find it by id. Synchronous, like the scan
    // it starts (scan.ts says why).
    const known = knownFolder ? lstatWithoutLinks(this.root, knownFolder) : null;
    if (known && 'link' in known) {
      // The entity's folder (or `Companies` itself) replaced by a link: never followed, and no
      // search would find it (listings leave links out), so it is reported on this entity.
      const skipped = [{ path: escapeControls(known.link), reason: SKIP_REASONS.link('folder') }];
      return { owner, folder: null, documents: [], skipped, unsettled: 0 };
    }
    if (known?.stats.isDirectory())
      return scanEntityFolder(await this.#scanOptions(), owner, knownFolder!, hints);
    // Renamed or removed: what was remembered under the old name would never be scanned again.
    if (knownFolder) this.#metaCache.forget(this.#metaCache.entriesUnder(knownFolder).keys());
    const folder = await findEntityFolder(this.root, this.#ignore, owner);
    return scanEntityFolder(await this.#scanOptions(), owner, folder, hints);
  }

  async locateDocuments(ids: ReadonlySet<string>, under?: string): Promise<LocatedDocuments> {
    // A folder to look in is a path like any other: never one that leads out of the root.
    if (under !== undefined) await resolveInsideReal(this.root, under);
    return locateDocuments(this.root, ids, this.#metaCache, under);
  }

  async createDocumentFolderWithFiles(
    entityFolder: string,
    folderName: Pick<DocumentMeta, 'documentDate' | 'name' | 'id'>,
    files: readonly IncomingFile[],
    meta: (written: ReadonlyMap<string, LocalFile>) => DocumentMeta,
    lastLook?: () => Promise<void>,
  ): Promise<CreatedDocumentFolder> {
    const name = documentFolderName(folderName.documentDate, folderName.name, folderName.id);
    // Files land in the staging folder under their final names, each fsynced by its writer; one
    // fsync of the folder and one rename then publish them all: half the flushes of a folder
    // made first and each file placed after it.
    return withStagingFolder(this.#stage, async (staging) => {
      const written = new Map<string, LocalFile>();
      const avoid = (n: string) =>
        n === DOCUMENT_META || isIgnored(`${entityFolder}/${name}/${n}`, this.#ignore);
      for (const file of files) {
        const taken = [...written.values()].map((f) => f.name);
        const fileName = pickFreeName(file.desiredName, taken, { avoid });
        const { sha256 } = await file.fill(path.join(staging, fileName));
        const stats = await stat(path.join(staging, fileName));
        written.set(file.key, { name: fileName, size: stats.size, mtimeMs: stats.mtimeMs, sha256 });
      }
      const text = formatDocumentMeta(meta(written));
      await writeStaged(staging, DOCUMENT_META, text);
      await lastLook?.();
      const folder = await commitStaged(this.#stage, staging, entityFolder, name, 'must exist');
      await this.#rememberMeta(folder, text);
      const placed = new Map(
        [...written].map(([key, f]) => [key, { ...f, path: `${folder}/${f.name}` }] as const),
      );
      return { folder, files: placed };
    });
  }

  async writeDocumentMeta(
    folder: string,
    meta: DocumentMeta,
    expected: Expected,
    folderIdentity?: EntryIdentity | null,
  ): Promise<Expected> {
    const relPath = `${folder}/${DOCUMENT_META}`;
    const text = formatDocumentMeta(meta);
    // The folder the id goes into must be the one the push was made from: a folder a person
    // made under the old name after renaming that one is another document.
    const sameFolder = folderIdentity
      ? async () => {
          const now = await this.identityOf(folder).catch(() => undefined);
          if (now !== folderIdentity) throw new LocalChangedError(folder);
        }
      : undefined;
    const written = await this.#writeOwn(relPath, text, expected, sameFolder);
    const now = await this.#rememberMeta(folder, text, written);
    return now ? { kind: 'file', stamp: stampOf(now), meta } : CHANGED;
  }

  /**
   * Stamped after the rename (which moves ctime), so the next scan need not read it back; the
   * stats then, when they are still those of the file written (`written`: its temp file's).
   */
  async #rememberMeta(folder: string, text: string, written?: Stats): Promise<Stats | null> {
    // Best effort: the file is already in place, and a cache that missed it costs one read,
    // where a throw here would report a finished write as failed.
    try {
      const stats = await lstat(resolveInside(this.root, `${folder}/${DOCUMENT_META}`));
      if (written && !sameFile(stats, written)) return null;
      this.#metaCache.put(folder, stampOf(stats), JSON.parse(text) as DocumentMeta);
      return stats;
    } catch {
      // Next scan reads the file and caches it then.
      return null;
    }
  }

  async readDocumentMeta(folder: string): Promise<FoundMeta> {
    const relPath = `${folder}/${DOCUMENT_META}`;
    const expected = await lookAt(this.root, relPath, this.#ignore);
    if (expected.kind !== 'file') return { expected, meta: null };
    const text = await readFile(resolveInside(this.root, relPath), 'utf8').catch(() => null);
    const parsed = text === null ? null : parseDocumentMeta(text);
    if (parsed?.ok) return { expected: { ...expected, meta: parsed.value }, meta: parsed.value };
    return { expected, meta: null, error: parsed?.ok === false ? parsed.error : 'cannot be read' };
  }

  lookAt(relPath: string): Promise<Expected> {
    return lookAt(this.root, relPath, this.#ignore);
  }

  identityOf(relPath: string): Promise<EntryIdentity | null> {
    return identityAt(resolveInside(this.root, relPath));
  }

  async findByIdentity(folder: string, identity: EntryIdentity, depth = 1): Promise<string | null> {
    const dir = await resolveInsideReal(this.root, folder);
    const skip = (rel: string) => isIgnored(`${folder}/${rel}`, this.#ignore);
    const found = await findUnder(dir, identity, skip, depth);
    return found === null ? null : `${folder}/${found}`;
  }

  async placeFile(folder: string, desiredName: string, source: FileSource): Promise<PlacedFile> {
    const temp = await writeTemp(this.root, source);
    try {
      return await this.#placeTemp(folder, desiredName, temp);
    } finally {
      await unlink(temp.path).catch(() => undefined);
    }
  }

  async withScratchFile<T>(use: (path: string) => Promise<T>): Promise<T> {
    const scratch = await newTempPath(this.root);
    try {
      return await use(scratch);
    } finally {
      await unlink(scratch).catch(() => undefined);
    }
  }

  uploadSource(relPath: string, planned: LocalFile): UploadSource {
    return storeUploadSource(this.root, relPath, planned);
  }

  /** Links a durable temp file into `folder` under a free legal name; never overwrites. */
  async #placeTemp(folder: string, desiredName: string, temp: { path: string; sha256: string }) {
    const dir = await resolveInsideReal(this.root, folder);
    const avoid = (name: string) =>
      isIgnored(`${folder}/${name}`, this.#ignore) || name === DOCUMENT_META;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const name = pickFreeName(desiredName, await readdir(dir), { avoid });
      const target = path.join(dir, name);
      this.ownWrites.recordFile(target, await stat(temp.path));
      if (await commitTempNoClobber(temp.path, target)) return this.#placed(folder, name, temp);
    }
    throw new LocalStoreError('NO_FREE_NAME', `No free name for ${desiredName} in ${folder}`);
  }

  async renameFile(relPath: string, newName: string, expected: Expected): Promise<string> {
    const source = await resolveInsideReal(this.root, relPath);
    const dir = path.dirname(source);
    const folder = path.posix.dirname(relPath);
    const avoid = (name: string) =>
      isIgnored(`${folder}/${name}`, this.#ignore) || name === DOCUMENT_META;
    const name = pickFreeName(newName, await readdir(dir), { avoid });
    const target = path.join(dir, name);
    // link + unlink never replaces an existing file, which rename would. An edit between the
    // check and the link is in the same inode, and moves with it.
    await checkExpected(this.root, relPath, expected, this.#ignore);
    this.ownWrites.recordFile(target, await stat(source));
    this.ownWrites.recordRemoved(source);
    await link(source, target);
    await unlink(source);
    await fsyncDir(dir);
    return name;
  }

  async restoreSystemAttachment(
    folder: string,
    fileName: string,
    original: FileSource,
    expected: Expected,
  ): Promise<RestoredAttachment> {
    const relPath = `${folder}/${fileName}`;
    const target = await resolveInsideReal(this.root, relPath);
    const temp = await writeTemp(this.root, original);
    try {
      const current = await lstat(target).catch(() => null);
      if (current?.isFile() && (await hashFile(target)) === temp.sha256) {
        return { file: await this.#placed(folder, fileName, temp), editedCopy: null };
      }
      await checkExpected(this.root, relPath, expected, this.#ignore);
      const editedCopy = current
        ? await this.renameFile(relPath, localEditName(fileName), expected)
        : null;
      this.ownWrites.recordFile(target, await stat(temp.path));
      if (!(await commitTempNoClobber(temp.path, target))) {
        throw new LocalStoreError('NAME_TAKEN', `${relPath} was recreated while restoring it`);
      }
      return { file: await this.#placed(folder, fileName, temp), editedCopy };
    } finally {
      await unlink(temp.path).catch(() => undefined);
    }
  }

  async saveToTrash(
    relPath: string,
    files: readonly IncomingFile[],
    meta: ((written: ReadonlyMap<string, LocalFile>) => DocumentMeta) | null,
    copyOf: ServiceCopyOf,
  ): Promise<string> {
    resolveInside(this.root, relPath);
    return withStagingFolder(this.#stage, async (staging) => {
      const written = new Map<string, LocalFile>();
      for (const file of files) {
        const taken = [...written.values()].map((f) => f.name);
        const name = pickFreeName(file.desiredName, taken, { avoid: isDocsyncFile });
        const { sha256 } = await file.fill(path.join(staging, name));
        const stats = await stat(path.join(staging, name));
        written.set(file.key, { name, size: stats.size, mtimeMs: stats.mtimeMs, sha256 });
      }
      if (meta) await writeStaged(staging, DOCUMENT_META, formatDocumentMeta(meta(written)));
      const note = {
        ...copyOf,
        files: [...written.values()].map((f) => f.name),
        savedAt: this.#now().toISOString(),
      };
      await writeStaged(staging, SERVICE_COPY_NOTE, formatServiceCopyNote(note));
      await fsyncDir(staging);
      return moveIntoTrash(this.root, staging, relPath, this.#now());
    });
  }

  async trash(relPath: string, expected: Expected): Promise<string> {
    await resolveInsideReal(this.root, relPath);
    await lstat(resolveInside(this.root, relPath)); // gone: ENOENT, as the caller may expect
    await checkExpected(this.root, relPath, expected, this.#ignore);
    this.ownWrites.recordRemoved(resolveInside(this.root, relPath));
    return moveToTrash(this.root, relPath, this.#now());
  }

  async deletePermanently(relPath: string, expected: Expected): Promise<void> {
    const trashed = await this.trash(relPath, expected);
    await rm(resolveInside(this.root, trashed), { recursive: true, force: true });
  }

  sweepTrash(maxAgeDays = DEFAULT_TRASH_DAYS): Promise<string[]> {
    return sweepTrash(this.root, this.#now(), maxAgeDays);
  }

  get #stage() {
    return { root: this.root, ignore: this.#ignore, ownWrites: this.ownWrites };
  }

  async #scanOptions(): Promise<ScanOptions> {
    const now = this.#now;
    const kind = await this.filesystem();
    return {
      root: this.root,
      ignore: this.#ignore,
      settleMs: this.#settleMs,
      now: () => now().getTime(),
      metaCache: this.#metaCache,
      fs: kind?.network ? asyncFsCalls : syncFsCalls,
    };
  }

  /** The root's filesystem, read once it exists (the first sync may make it). */
  async filesystem(): Promise<FilesystemKind | null> {
    this.#filesystem ??= await filesystemKind(this.root);
    return this.#filesystem;
  }

  /**
   * Writes a file docsync owns; when `expected` is given, only if the target is still that (and
   * `check` passes), checked after the new content is durable, just before it takes the name.
   * Returns the stats of what was written.
   */
  async #writeOwn(
    relPath: string,
    content: string,
    expected?: Expected,
    check?: () => Promise<void>,
  ): Promise<Stats> {
    const target = await resolveInsideReal(this.root, relPath);
    let written: Stats | undefined;
    await writeFileAtomic(this.root, target, content, {
      beforeRename: async (temp) => {
        await check?.();
        if (expected) await checkExpected(this.root, relPath, expected, this.#ignore);
        written = await stat(temp);
        this.ownWrites.recordFile(target, written);
      },
    });
    return written!;
  }

  async #placed(folder: string, name: string, temp: { sha256: string }): Promise<PlacedFile> {
    const relPath = `${folder}/${name}`;
    const stats = await stat(resolveInside(this.root, relPath));
    return { path: relPath, name, size: stats.size, mtimeMs: stats.mtimeMs, sha256: temp.sha256 };
  }
}
