/**
 * The LocalStore port: everything the sync engine may do to the folder (daemon.md, "The
 * folder"). Paths are `/`-separated and relative to the root; every implementation refuses a path
 * that leaves the root (PathEscapeError). Every write is atomic and nothing is destroyed without
 * passing through `.docsync/trash/`. A write that overwrites, replaces, moves or trashes what is
 * there says what it expects to find (`Expected`, from the scan the plan came from) and is
 * refused with LocalChangedError when the target is not that any more: a person's change made
 * during a sync is never overwritten by a plan that did not see it. FsLocalStore is the adapter;
 * the contract test (test/integration/local-store-contract.test.ts) holds it to this.
 */
import type {
  BaseDocument,
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
import type { FileSource } from './atomic-write.js';

export type { FileSource } from './atomic-write.js';

/** One folder under `Companies/` or `Trusts/`. */
export interface LocalEntityFolder {
  /** e.g. `Companies/Acme Pty Ltd (123 456 789)`. */
  readonly folder: string;
  /** From `.entity.json`; null when it is missing or broken (a folder that matches nothing yet). */
  readonly owner: OwnerRef | null;
  /** The entity as last written to `.entity.json` (`raw` of the service's object). */
  readonly entity: Readonly<Record<string, unknown>> | null;
  /** Why `.entity.json` could not be read, when it exists but is broken. */
  readonly metaError?: string;
}

/** What the engine knows of a document's files at the last agreement (a BaseDocument fits). */
export type ScanHint = Pick<BaseDocument, 'id' | 'attachments'>;

export interface PlacedFile extends LocalFile {
  /** Path of the file relative to the root. */
  readonly path: string;
}

export interface IncomingFile {
  /** Names the file in the results (an attachment id). */
  readonly key: string;
  readonly desiredName: string;
  /** Writes the file at `path`, durably, and reports the sha256 of what it wrote. */
  readonly fill: (path: string) => Promise<{ sha256: string }>;
}

export interface CreatedDocumentFolder {
  readonly folder: string;
  /** By `IncomingFile.key`. */
  readonly files: ReadonlyMap<string, PlacedFile>;
}

export interface RestoredAttachment {
  readonly file: PlacedFile;
  /** Name of the user's edited copy kept beside it; null when the file was missing or unchanged. */
  readonly editedCopy: string | null;
}

/**
 * What a write expects at its target, as the scan (or `lookAt`) saw it: a file with its stamp, a
 * folder with the stamps of its entries (ignored names aside), or nothing. Where stamps cannot
 * tell (a file system without inodes, or with whole-second times), a file is compared by its
 * content too: `sha256` for an attachment, `meta` for a `.document.json`.
 */
export type Expected =
  | {
      readonly kind: 'file';
      readonly stamp: FileStamp;
      readonly sha256?: string;
      readonly meta?: DocumentMeta | null;
    }
  | { readonly kind: 'folder'; readonly entries: ReadonlyMap<string, FileStamp> }
  | { readonly kind: 'absent' };

/** A `.document.json` as found now: what a rewrite of it expects, and what it holds. */
export interface FoundMeta {
  readonly expected: Expected;
  /** Null when there is none, or it cannot be read (`error` says why). */
  readonly meta: DocumentMeta | null;
  readonly error?: string;
}

/** What a service copy in the trash is a copy of: a document, or one of its attachments. */
export interface ServiceCopyOf {
  readonly owner: OwnerRef;
  readonly documentId: string;
  /** Null: the whole document. */
  readonly attachmentId: string | null;
}

export interface LocalStore {
  /**
   * Whether `.docsync-root` exists: without it no cycle runs (daemon.md safety rails). Rejects
   * (StoreRootError) when it is missing because the root cannot hold documents: a file, no access.
   */
  hasMarker(): Promise<boolean>;
  /**
   * Writes `.docsync-root` naming the service the store is synced with (first sync), or adds the
   * service to a marker written before docsync named it; creates `.docsync/`.
   */
  writeMarker(): Promise<void>;
  /** The service `.docsync-root` names (root-marker.ts); null without a marker or a named service. */
  markerService(): Promise<string | null>;

  /**
   * Every folder under `Companies/` and `Trusts/`, with its parsed `.entity.json`. Links and
   * names that are not UTF-8 are left out: they are never matched to an entity, nor written into.
   */
  listEntityFolders(): Promise<LocalEntityFolder[]>;
  /**
   * What listEntityFolders left out and will not sync, and why, for `docsync status`; and what
   * lies loose beside the entity folders or at the root.
   */
  skippedEntityFolders(): Promise<SkippedEntry[]>;
  /** The entity folders' paths (`Companies/Acme …`), from the listings alone: no file is read. */
  entityFolderPaths(): Promise<string[]>;
  /**
   * The entity's folder, found by id (a user may have renamed it), else created under its
   * daemon.md name. Rewrites `.entity.json` and `Open in compliance service.url` when they
   * differ. Never renames an existing folder. `known` is what the caller already found in a
   * listing of the entity folders, which spares reading every entity's `.entity.json` again:
   * its folder (by its `.entity.json`, or a firm's folder matched at the initial sync), or null
   * for none (so a new one is made). Absent, the store searches. A folder made never takes a
   * path in `claimed`: the folders of other entities docsync knows, one of which may be away
   * (moved out by a person, row 50) and come back there. Returns the folder path.
   */
  ensureEntityFolder(
    entity: Entity,
    link: string,
    known?: string | null,
    claimed?: readonly string[],
  ): Promise<string>;

  /**
   * The entity's document folders now. sha256 is computed only for a file whose size or mtime
   * differs from its hint; a file still changing (within the settle time) is reported as its
   * hint says (or left out when it is new), so a half-copied file is never seen, and counted
   * in `unsettled`. A broken `.document.json` is reported as `metaError`, never thrown.
   *
   * No entry is dropped without a word: what will not be synced (a link, a special file, a name
   * the service cannot store) is listed in `skipped` with its reason. Such an entry with the name
   * of an agreed attachment is reported as the hint says, and a folder (or a link) that may be
   * a document as a folder whose `.document.json` cannot be read, so neither reads as deleted.
   * Files matching the ignore patterns stay silently out.
   */
  scanEntity(
    owner: OwnerRef,
    hints?: readonly ScanHint[],
    /** Where the engine last saw the entity folder; searched for by id only if it is gone. */
    knownFolder?: string | null,
  ): Promise<LocalEntitySnapshot>;
  /**
   * A hint that these entity folders are about to be scanned, so a store may read what it keeps
   * about them together (the fs store: its cached `.document.json` contents, in one query).
   */
  readAhead(entityFolders: readonly string[]): void;
  /**
   * Where in the whole store (`.docsync/` aside, links not followed) folders name these
   * documents, by their `.document.json` or, lacking one, the `[id]` in the folder name; and the
   * `.document.json` files that could not be read. Asked before a missing folder counts as
   * deleted (rows 18, 51 of docs/sync-decision-table.md). `under` (an entity folder) looks
   * only in that folder and below it: the last look before a document's delete is sent.
   */
  locateDocuments(ids: ReadonlySet<string>, under?: string): Promise<LocatedDocuments>;
  /**
   * Creates `<date> <name> [<id>]` in the entity folder (` (2)` on a clash) with its files and
   * its `.document.json` inside, for a document pulled whole: built in `.docsync/tmp/` and
   * renamed into place in one step, so it appears complete or not at all. `meta` is given what
   * was written, keyed like `files`. The entity folder is not made: gone since the plan (a person
   * moved it), LocalChangedError. `lastLook` runs once the files are in, just before the rename:
   * what it throws leaves nothing in place.
   */
  createDocumentFolderWithFiles(
    entityFolder: string,
    folderName: Pick<DocumentMeta, 'documentDate' | 'name' | 'id'>,
    files: readonly IncomingFile[],
    meta: (written: ReadonlyMap<string, LocalFile>) => DocumentMeta,
    lastLook?: () => Promise<void>,
  ): Promise<CreatedDocumentFolder>;
  /**
   * Writes `<folder>/.document.json` atomically, if it is still what `expected` says, and, with
   * `folderIdentity`, if `folder` is still that folder (both checked just before the new file
   * takes its name; LocalChangedError if not, or if the folder is gone). Returns what a next
   * write of it expects: the file just written.
   */
  writeDocumentMeta(
    folder: string,
    meta: DocumentMeta,
    expected: Expected,
    folderIdentity?: EntryIdentity | null,
  ): Promise<Expected>;
  /** `<folder>/.document.json` as it is now, for a rewrite that has no scan behind it. */
  readDocumentMeta(folder: string): Promise<FoundMeta>;
  /** What is at `relPath` now, for a write that has no scan behind it (an operator's). */
  lookAt(relPath: string): Promise<Expected>;
  /**
   * The identity on disk (device and inode) of the folder or file at `relPath`, which a rename
   * keeps: a push made from it finds it again by this after a person renamed it. Null when the
   * file system has none (a share without inode numbers). Rejects with ENOENT when it is gone.
   */
  identityOf(relPath: string): Promise<EntryIdentity | null>;
  /**
   * Where the entry with `identity` is now among the entries of `folder` (a file in its document
   * folder), or, with `depth` above 1 (the default), of its subfolders that many levels down (a
   * document folder anywhere in its entity folder), by its path; null when none is it. Links are
   * never a match, nor looked into.
   */
  findByIdentity(folder: string, identity: EntryIdentity, depth?: number): Promise<string | null>;

  /**
   * Receives a file (bytes, a stream, or a download that fills a path) into `.docsync/tmp/`,
   * then moves it into `folder` under `desiredName` made legal, with ` (2)` if taken: never
   * overwrites. If the source fails, nothing appears in the folder.
   */
  placeFile(folder: string, desiredName: string, source: FileSource): Promise<PlacedFile>;
  /**
   * A fresh path in docsync's own temp folder for the length of `use`, removed after: for bytes
   * that are looked at and never placed (a download compared with a local file).
   */
  withScratchFile<T>(use: (path: string) => Promise<T>): Promise<T>;
  /**
   * The file at `relPath`, as the plan saw it (`planned`), for an upload: each attempt opens it
   * anew without following a link and refuses (LocalChangedError, UploadRefusedError) a file
   * that is not that one any more, a link, not a regular file, or outside the root; the bytes
   * sent are read from what was opened and checked, and `sent()` says what they were.
   */
  uploadSource(relPath: string, planned: LocalFile): UploadSource;
  /**
   * Renames a file inside its folder (e.g. to a conflict-copy name); ` (2)` if taken. Refused
   * (LocalChangedError) when the file is not what `expected` says.
   */
  renameFile(relPath: string, newName: string, expected: Expected): Promise<string>;
  /**
   * Puts back a read-only system attachment: if the user changed it, their version is kept as
   * `<name> (local edit).<ext>`; then the original bytes are written under `fileName`. Refused
   * (LocalChangedError) when what is under `fileName` is not what `expected` says (the edit
   * the plan saw, or nothing for a deleted file), unless it already holds the original bytes.
   */
  restoreSystemAttachment(
    folder: string,
    fileName: string,
    original: FileSource,
    expected: Expected,
  ): Promise<RestoredAttachment>;

  /**
   * Keeps the service's copy of what docsync is about to delete there (a document, or one
   * attachment: the service has no recycle bin) as `.docsync/trash/<yyyy-mm-dd>/<relPath>/`,
   * the files `files` fill, with `.document.json` when `meta` is given, and a note saying whose
   * copy it is (`.docsync-service-copy.json`, for `docsync trash`). Built in `.docsync/tmp/`
   * and moved into the trash whole; returns the trash path.
   */
  saveToTrash(
    relPath: string,
    files: readonly IncomingFile[],
    meta: ((written: ReadonlyMap<string, LocalFile>) => DocumentMeta) | null,
    copyOf: ServiceCopyOf,
  ): Promise<string>;
  /**
   * Moves a file or folder to `.docsync/trash/<yyyy-mm-dd>/<relPath>`; returns the trash path.
   * Refused (LocalChangedError) when it is not what `expected` says: for a folder, an entry
   * added, removed or changed. Rejects with ENOENT when it is gone.
   */
  trash(relPath: string, expected: Expected): Promise<string>;
  /** For `onRemoteDelete: "delete"`: through the trash (as `trash`), then removed from it. */
  deletePermanently(relPath: string, expected: Expected): Promise<void>;
  /** Removes trash days older than `maxAgeDays` (30) and stale temp files; returns what went. */
  sweepTrash(maxAgeDays?: number): Promise<string[]>;
}

/** Names docsync owns inside the root. */
export const MARKER_FILE = '.docsync-root';
export const STATE_DIR = '.docsync';
export const TRASH_DIR = '.docsync/trash';
export const TMP_DIR = '.docsync/tmp';
export const ENTITY_META = '.entity.json';
export const DOCUMENT_META = '.document.json';
export const SHORTCUT_FILE = 'Open in compliance service.url';
export const ENTITY_ROOTS = { company: 'Companies', trust: 'Trusts' } as const;
export const DEFAULT_TRASH_DAYS = 30;
