/**
 * Every write an entity's sync makes over something already in the folder, one function per
 * kind: `.document.json` rewritten (`writeMeta`), a file renamed to its conflict copy
 * (`renameFile`), a system form put back (`restoreSystemFile`), a file or a document folder
 * moved to the trash or deleted (`trash`). Each tells the store what it expects to find there:
 * what the scan the plan came from saw, or what this sync wrote there last. The store refuses a
 * write whose target changed meanwhile (LocalChangedError), and the document is planned again
 * from a new scan: a person's edit made at any instant of a sync is never overwritten by a plan
 * that did not see it. Writes that only add (a pulled file, a new document folder)
 * never overwrite, and need no expectation.
 *
 * A rewrite of `.document.json` also keeps a status the person typed there and this sync did
 * not settle (row 29, domain/local-status-kept.ts).
 *
 * The simulation's `before-local-write` failpoint (failpoints.ts) stands just before each store
 * call, so an edit it injects there lands between the plan and the store's check.
 */
import { LocalChangedError } from '../domain/errors.js';
import {
  keepLocalStatus,
  type LocalStatusEdit,
  localStatusEdit,
} from '../domain/local-status-kept.js';
import type {
  BaseDocument,
  DocumentMeta,
  EntryIdentity,
  FileStamp,
  LocalDocumentSnapshot,
  LocalFile,
  OwnerRef,
} from '../domain/types.js';
import {
  DOCUMENT_META,
  type Expected,
  type FileSource,
  type RestoredAttachment,
} from '../local/local-store.js';
import type { EngineDeps } from './engine-deps.js';

/** What this sync knows of one document folder: as scanned, then as it wrote it. */
interface FolderSeen {
  /** Entries by name, as seen or written; an entry not here is expected absent. */
  readonly entries: Map<string, FileStamp>;
  /** The attachment files as scanned, for their sha256 (where stamps cannot tell). */
  readonly files: ReadonlyMap<string, LocalFile>;
  /** `.document.json` as the scan read it or this sync wrote it. */
  meta: DocumentMeta | null;
  /** The status a person typed there, not yet settled (row 29); set by `agreedBefore`. */
  statusEdit: LocalStatusEdit | null;
}

export interface WriteMetaOptions {
  /**
   * The person's status lost a conflict this sync records (row 24): the rewrite shows the
   * service's, and the edit is no longer carried.
   */
  readonly localStatusLost?: boolean;
  /**
   * The folder must still be this one on disk (a created document's, which a person may have
   * renamed, and made another under the old name): LocalChangedError naming the folder if not.
   */
  readonly folderIdentity?: EntryIdentity | null;
}

export class LocalWrites {
  readonly #folders = new Map<string, FolderSeen>();
  /** Scanned folders by the document their `.document.json` names. */
  readonly #byId = new Map<string, string>();

  constructor(
    private readonly deps: Pick<EngineDeps, 'local' | 'failpoint'>,
    documents: readonly LocalDocumentSnapshot[],
    /** The name `.document.json` gives the agreed status of `base` (null: none). */
    private readonly agreedStatus: (base: BaseDocument) => string | null,
    /** The entity whose folders these are (none: pushes settled after a crash, of any). */
    private readonly owner: OwnerRef | null = null,
  ) {
    for (const doc of documents) {
      this.#folders.set(doc.folder, {
        entries: new Map(doc.seen),
        files: new Map(doc.files.map((f) => [f.name, f])),
        meta: doc.meta,
        statusEdit: null,
      });
      // Of two folders naming one id, the first by path, as the plan takes it (local-index.ts).
      const first = this.#byId.get(doc.meta?.id ?? '');
      if (doc.meta && (first === undefined || doc.folder < first))
        this.#byId.set(doc.meta.id, doc.folder);
    }
  }

  /** The scanned files of `folder`. */
  filesOf(folder: string): readonly LocalFile[] {
    return [...(this.#folders.get(folder)?.files.values() ?? [])];
  }

  /** The scanned `.document.json` of `folder`, if it had a readable one. */
  metaOf(folder: string): DocumentMeta | null {
    return this.#folders.get(folder)?.meta ?? null;
  }

  /**
   * The document's agreed state before this sync changes it: a status its folder shows other
   * than the agreed one is a person's edit, carried into every rewrite until it is settled.
   */
  agreedBefore(base: BaseDocument): void {
    // The folder the base knows is the document while it still names it: a copy of it (row 17)
    // names the same id, and its status must not stand in for the one the rewrites go to. Only
    // a folder moved away from the base's path (row 15) is found by its id.
    const atBase = this.#folders.get(base.folder);
    const folder =
      atBase?.meta?.id === base.id ? atBase : this.#folders.get(this.#byId.get(base.id) ?? '');
    if (folder) folder.statusEdit = localStatusEdit(folder.meta, this.agreedStatus(base));
  }

  /**
   * Rewrites `<folder>/.document.json` as `meta`, with the person's unsettled status kept. A
   * folder this sync did not scan (a push settled after a crash) is read first, as found now.
   */
  async writeMeta(folder: string, meta: DocumentMeta, options: WriteMetaOptions = {}) {
    const seen = this.#folders.get(folder) ?? (await this.#readFolder(folder));
    if (options.localStatusLost) seen.statusEdit = null;
    const written = keepLocalStatus(meta, seen.statusEdit);
    await this.#beforeWrite(folder, DOCUMENT_META);
    const now = await this.deps.local.writeDocumentMeta(
      folder,
      written,
      this.#expected(folder, DOCUMENT_META),
      options.folderIdentity,
    );
    this.#record(seen, DOCUMENT_META, now);
    seen.meta = written;
    if (written === meta) seen.statusEdit = null;
  }

  /** Renames `<folder>/<file>` to `newName` (a conflict copy); returns the name it got. */
  async renameFile(folder: string, file: string, newName: string): Promise<string> {
    await this.#beforeWrite(folder, `rename ${file}`);
    const name = await this.deps.local.renameFile(
      `${folder}/${file}`,
      newName,
      this.#expected(folder, file),
    );
    this.#folder(folder).entries.delete(file);
    return name;
  }

  /** Puts the original of a system form back under `file` (an edit is kept beside it). */
  async restoreSystemFile(
    folder: string,
    file: string,
    original: FileSource,
  ): Promise<RestoredAttachment> {
    const expected = this.#expected(folder, file);
    await this.#beforeWrite(folder, `put back ${file}`);
    const restored = await this.deps.local.restoreSystemAttachment(
      folder,
      file,
      original,
      expected,
    );
    this.#folder(folder).entries.delete(file);
    return restored;
  }

  /**
   * Moves a file (`<folder>/<file>`) or a whole document folder (`file` null) to the trash, or
   * for `delete` through it and away; false when it was already gone.
   */
  async trash(folder: string, file: string | null, mode: 'trash' | 'delete' = 'trash') {
    const relPath = file === null ? folder : `${folder}/${file}`;
    const expected: Expected =
      file === null
        ? { kind: 'folder', entries: this.#folder(folder).entries }
        : this.#expected(folder, file);
    let done = true;
    await this.#beforeWrite(folder, `${mode} ${file ?? 'the folder'}`);
    try {
      if (mode === 'delete') await this.deps.local.deletePermanently(relPath, expected);
      else await this.deps.local.trash(relPath, expected);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      done = false;
    }
    if (file === null) this.#folders.delete(folder);
    else this.#folder(folder).entries.delete(file);
    return done;
  }

  /** The simulation's stop before a write into `folder` (none in the daemon). */
  async #beforeWrite(folder: string, what: string): Promise<void> {
    if (!this.deps.failpoint) return;
    await this.deps.failpoint('before-local-write', {
      ...(this.owner ? { owner: this.owner } : {}),
      documentId: this.#folders.get(folder)?.meta?.id ?? null,
      what,
    });
  }

  /** What `<folder>/<name>` is expected to be: as seen, with its content where known. */
  #expected(folder: string, name: string): Expected {
    const seen = this.#folder(folder);
    const stamp = seen.entries.get(name);
    if (stamp === undefined) return { kind: 'absent' };
    if (name === DOCUMENT_META) return { kind: 'file', stamp, meta: seen.meta };
    const sha256 = seen.files.get(name)?.sha256;
    return sha256 === undefined ? { kind: 'file', stamp } : { kind: 'file', stamp, sha256 };
  }

  #record(seen: FolderSeen, name: string, now: Expected): void {
    if (now.kind === 'file') seen.entries.set(name, now.stamp);
    else seen.entries.delete(name);
  }

  /** `.document.json` of a folder the scan did not see, as it is now. */
  async #readFolder(folder: string): Promise<FolderSeen> {
    const found = await this.deps.local.readDocumentMeta(folder);
    // Unreadable: a person may be half way through an edit; nothing is written over it.
    if (found.error !== undefined) throw new LocalChangedError(`${folder}/${DOCUMENT_META}`);
    const seen = this.#folder(folder);
    this.#record(seen, DOCUMENT_META, found.expected);
    seen.meta = found.meta;
    return seen;
  }

  /** A folder the scan did not see is expected empty: every write to it is checked as new. */
  #folder(folder: string): FolderSeen {
    let seen = this.#folders.get(folder);
    if (!seen) {
      seen = { entries: new Map(), files: new Map(), meta: null, statusEdit: null };
      this.#folders.set(folder, seen);
    }
    return seen;
  }
}
