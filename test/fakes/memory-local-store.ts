/**
 * An in-memory LocalStore for the engine's tests: the same observable behaviour as FsLocalStore
 * (names, collisions, trash, scans by id, broken metadata), checked by the shared contract test
 * in test/integration/local-store-contract.test.ts. `user*` methods play the person at the folder.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalStoreError } from '../../src/domain/errors.js';
import { documentFolderName, localEditName } from '../../src/domain/local-folder-names.js';
import { pickFreeName } from '../../src/domain/local-names.js';
import type {
  DocumentMeta,
  Entity,
  LocalDocumentSnapshot,
  LocalEntitySnapshot,
  LocalFile,
  LocatedDocuments,
  OwnerRef,
  SkippedEntry,
} from '../../src/domain/types.js';
import { entityFolderName } from '../../src/local/entity-folders.js';
import { isIgnored } from '../../src/local/ignore.js';
import {
  type CreatedDocumentFolder,
  DEFAULT_TRASH_DAYS,
  DOCUMENT_META,
  ENTITY_META,
  ENTITY_ROOTS,
  type FileSource,
  type IncomingFile,
  type LocalEntityFolder,
  type LocalStore,
  MARKER_FILE,
  type PlacedFile,
  type RestoredAttachment,
  type ScanHint,
  SHORTCUT_FILE,
  TRASH_DIR,
} from '../../src/local/local-store.js';
import {
  formatDocumentMeta,
  formatEntityMeta,
  formatShortcut,
  parseDocumentMeta,
  parseEntityMeta,
} from '../../src/local/metadata-files.js';
import {
  escapeControls,
  fileFromHint,
  hasControlCharacter,
  SKIP_REASONS,
  skippedEntry,
} from '../../src/local/skip-rules.js';
import { dayStamp } from '../../src/local/trash.js';
import { MemoryTree } from './memory-tree.js';

export class MemoryLocalStore extends MemoryTree implements LocalStore {
  readonly #ignore: readonly string[];
  readonly #now: () => Date;
  /** How many times a file's content was hashed: a quiet scan must leave it unchanged. */
  hashReads = 0;

  constructor(options: { ignore?: readonly string[]; now?: () => Date } = {}) {
    const now = options.now ?? (() => new Date());
    super(() => now().getTime());
    this.#ignore = options.ignore ?? [];
    this.#now = now;
  }

  // ---- LocalStore -------------------------------------------------------------------------------

  async hasMarker(): Promise<boolean> {
    return this.node(MARKER_FILE)?.kind === 'file';
  }

  async writeMarker(): Promise<void> {
    this.mkdirs(TRASH_DIR);
    this.#write(MARKER_FILE, `docsync root, first synced ${this.#now().toISOString()}\n`);
  }

  async listEntityFolders(): Promise<LocalEntityFolder[]> {
    const found: LocalEntityFolder[] = [];
    for (const top of Object.values(ENTITY_ROOTS)) {
      for (const name of this.children(top).sort((a, b) => (a < b ? -1 : 1))) {
        const folder = `${top}/${name}`;
        if (this.node(folder)?.kind !== 'dir' || isIgnored(folder, this.#ignore)) continue;
        const text = this.read(`${folder}/${ENTITY_META}`)?.toString('utf8');
        if (text === undefined) {
          found.push({ folder, owner: null, entity: null });
          continue;
        }
        const parsed = parseEntityMeta(text);
        found.push(
          parsed.ok
            ? { folder, owner: parsed.value.owner, entity: parsed.value.entity }
            : { folder, owner: null, entity: null, metaError: parsed.error },
        );
      }
    }
    return found;
  }

  async ensureEntityFolder(entity: Entity, link: string, known?: string | null): Promise<string> {
    const files = {
      [ENTITY_META]: formatEntityMeta(entity, link),
      [SHORTCUT_FILE]: formatShortcut(link),
    };
    const existing = known !== undefined ? known : await this.#findEntity(entity);
    const folder = existing ?? this.#newFolder(ENTITY_ROOTS[entity.kind], entityFolderName(entity));
    for (const [name, content] of Object.entries(files)) {
      if (this.read(`${folder}/${name}`)?.toString('utf8') !== content) {
        this.#write(`${folder}/${name}`, content);
      }
    }
    return folder;
  }

  /** Nothing to read ahead in memory. */
  readAhead(): void {}

  /** A tree in memory holds no links, special files or undecodable names: nothing to skip. */
  async skippedEntityFolders(): Promise<SkippedEntry[]> {
    return [];
  }

  /**
   * Skips as the folder adapter does what a tree in memory can hold: names with control
   * characters. Files count at once (no settle time), so `unsettled` is always 0.
   */
  async scanEntity(owner: OwnerRef, hints: readonly ScanHint[] = []): Promise<LocalEntitySnapshot> {
    const folder = await this.#findEntity(owner);
    if (folder === null) return { owner, folder, documents: [], skipped: [], unsettled: 0 };
    const skipped: SkippedEntry[] = [];
    const documents: LocalDocumentSnapshot[] = [];
    for (const name of this.children(folder)) {
      const path = `${folder}/${name}`;
      if (this.node(path)?.kind !== 'dir' || isIgnored(path, this.#ignore)) continue;
      const inside: SkippedEntry[] = [];
      const doc = this.#scanDocument(path, hints, inside);
      if (doc.meta === null && hasControlCharacter(name)) {
        const reason = SKIP_REASONS.control(name);
        skipped.push({ path: escapeControls(path), reason });
        documents.push({ folder: path, meta: null, metaError: `not synced: ${reason}`, files: [] });
      } else {
        skipped.push(...inside);
        documents.push(doc);
      }
    }
    documents.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
    skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return { owner, folder, documents, skipped, unsettled: 0 };
  }

  async locateDocuments(ids: ReadonlySet<string>): Promise<LocatedDocuments> {
    const found = new Map<string, string>();
    const unreadable: string[] = [];
    const visit = (folder: string) => {
      for (const name of this.children(folder).sort()) {
        const child = folder === '' ? name : `${folder}/${name}`;
        if (this.node(child)?.kind !== 'dir' || (folder === '' && name === '.docsync')) continue;
        const text = this.read(`${child}/${DOCUMENT_META}`)?.toString('utf8');
        const parsed = text === undefined ? null : parseDocumentMeta(text);
        if (parsed && !parsed.ok) unreadable.push(child);
        if (parsed?.ok && ids.has(parsed.value.id)) found.set(parsed.value.id, child);
        visit(child);
      }
    };
    visit('');
    return { found, unreadable };
  }

  async createDocumentFolderWithFiles(
    entityFolder: string,
    folderName: Pick<DocumentMeta, 'documentDate' | 'name' | 'id'>,
    files: readonly IncomingFile[],
    meta: (written: ReadonlyMap<string, LocalFile>) => DocumentMeta,
  ): Promise<CreatedDocumentFolder> {
    // Every file is received before the folder exists: it appears whole or not at all.
    const received = await receiveAll(files);
    const name = documentFolderName(folderName.documentDate, folderName.name, folderName.id);
    const folder = this.#newFolder(entityFolder, name);
    for (const file of received) this.#write(`${folder}/${file.name}`, file.data);
    const placed = new Map(received.map((r) => [r.key, this.#placed(folder, r.name)] as const));
    this.#write(`${folder}/${DOCUMENT_META}`, formatDocumentMeta(meta(placed)));
    return { folder, files: placed };
  }

  async writeDocumentMeta(folder: string, meta: DocumentMeta): Promise<void> {
    this.#write(`${folder}/${DOCUMENT_META}`, formatDocumentMeta(meta));
  }

  async placeFile(folder: string, desiredName: string, source: FileSource): Promise<PlacedFile> {
    const data = await collect(source);
    this.#requireDir(folder);
    const name = pickFreeName(desiredName, this.children(this.key(folder)), {
      avoid: (n) => isIgnored(`${folder}/${n}`, this.#ignore) || n === DOCUMENT_META,
    });
    this.#write(`${folder}/${name}`, data);
    return this.#placed(folder, name);
  }

  async withScratchFile<T>(use: (path: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(tmpdir(), 'docsync-memory-'));
    try {
      return await use(path.join(dir, 'scratch'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async uploadPath(relPath: string): Promise<string> {
    const node = this.node(this.key(relPath));
    if (node?.kind !== 'file') throw new LocalStoreError('NOT_A_FILE', `${relPath} is not a file`);
    const dir = await mkdtemp(path.join(tmpdir(), 'docsync-memory-'));
    const file = path.join(dir, path.posix.basename(relPath));
    await writeFile(file, node.data);
    return file;
  }

  async renameFile(relPath: string, newName: string): Promise<string> {
    const key = this.key(relPath);
    const dir = path.posix.dirname(key);
    const name = pickFreeName(newName, this.children(dir), {
      avoid: (n) => isIgnored(`${dir}/${n}`, this.#ignore) || n === DOCUMENT_META,
    });
    this.userRename(key, `${dir}/${name}`);
    return name;
  }

  async restoreSystemAttachment(
    folder: string,
    fileName: string,
    original: FileSource,
  ): Promise<RestoredAttachment> {
    const data = await collect(original);
    const relPath = `${folder}/${fileName}`;
    const current = this.read(relPath);
    if (current?.equals(data)) return { file: this.#placed(folder, fileName), editedCopy: null };
    const editedCopy = this.exists(relPath)
      ? await this.renameFile(relPath, localEditName(fileName))
      : null;
    this.#write(relPath, data);
    return { file: this.#placed(folder, fileName), editedCopy };
  }

  async saveToTrash(
    relPath: string,
    files: readonly IncomingFile[],
    meta: ((written: ReadonlyMap<string, LocalFile>) => DocumentMeta) | null,
  ): Promise<string> {
    const received = await receiveAll(files);
    const target = this.#freeTrashPath(this.key(relPath));
    this.mkdirs(target);
    const written = new Map<string, LocalFile>();
    for (const r of received) {
      this.setNode(`${target}/${r.name}`, {
        kind: 'file',
        data: r.data,
        mtimeMs: this.#now().getTime(),
      });
      written.set(r.key, {
        name: r.name,
        size: r.data.length,
        mtimeMs: this.#now().getTime(),
        sha256: createHash('sha256').update(r.data).digest('hex'),
      });
    }
    if (meta)
      this.setNode(`${target}/${DOCUMENT_META}`, {
        kind: 'file',
        data: Buffer.from(formatDocumentMeta(meta(written))),
        mtimeMs: this.#now().getTime(),
      });
    return target;
  }

  async trash(relPath: string): Promise<string> {
    const key = this.key(relPath);
    if (!this.exists(key)) throw Object.assign(new Error(`ENOENT: ${relPath}`), { code: 'ENOENT' });
    const target = this.#freeTrashPath(key);
    this.mkdirs(path.posix.dirname(target));
    this.userRename(key, target);
    return target;
  }

  async deletePermanently(relPath: string): Promise<void> {
    this.userRemove(await this.trash(relPath));
  }

  async sweepTrash(maxAgeDays = DEFAULT_TRASH_DAYS): Promise<string[]> {
    const cutoff = dayStamp(new Date(this.#now().getTime() - maxAgeDays * 86_400_000));
    const removed: string[] = [];
    for (const day of this.children(TRASH_DIR)) {
      if (!/^\d{4}-\d{2}-\d{2}$/u.test(day) || day >= cutoff) continue;
      this.userRemove(`${TRASH_DIR}/${day}`);
      removed.push(`${TRASH_DIR}/${day}`);
    }
    return removed;
  }

  // ---- internals --------------------------------------------------------------------------------

  #requireDir(relPath: string): void {
    if (this.node(this.key(relPath))?.kind !== 'dir') {
      throw Object.assign(new Error(`ENOENT: ${relPath}`), { code: 'ENOENT' });
    }
  }

  #write(relPath: string, data: string | Buffer): void {
    const key = this.key(relPath);
    this.mkdirs(path.posix.dirname(key));
    this.setNode(key, { kind: 'file', data: Buffer.from(data), mtimeMs: this.#now().getTime() });
  }

  #newFolder(parent: string, desiredName: string): string {
    this.mkdirs(this.key(parent));
    const name = pickFreeName(desiredName, this.children(this.key(parent)), {
      kind: 'folder',
      avoid: (n) => isIgnored(`${parent}/${n}`, this.#ignore),
    });
    const folder = `${this.key(parent)}/${name}`;
    this.mkdirs(folder);
    return folder;
  }

  async #findEntity(owner: OwnerRef): Promise<string | null> {
    const folders = await this.listEntityFolders();
    return (
      folders.find((f) => f.owner?.kind === owner.kind && f.owner.id === owner.id)?.folder ?? null
    );
  }

  #scanDocument(
    folder: string,
    hints: readonly ScanHint[],
    skipped: SkippedEntry[],
  ): LocalDocumentSnapshot {
    const names = this.children(folder).sort();
    const text = this.read(`${folder}/${DOCUMENT_META}`)?.toString('utf8');
    const meta = text === undefined ? null : parseDocumentMeta(text);
    const attachments = meta?.ok
      ? (hints.find((h) => h.id === meta.value.id)?.attachments ?? [])
      : [];
    const files: LocalFile[] = [];
    for (const name of names) {
      const node = this.node(`${folder}/${name}`);
      if (
        name === DOCUMENT_META ||
        node?.kind !== 'file' ||
        isIgnored(`${folder}/${name}`, this.#ignore)
      )
        continue;
      const hint = attachments.find((a) => a.file === name);
      if (hasControlCharacter(name)) {
        const path = escapeControls(`${folder}/${name}`);
        skipped.push(skippedEntry(path, SKIP_REASONS.control(name), hint));
        if (hint) files.push(fileFromHint(hint));
        continue;
      }
      const same = hint && hint.size === node.data.length && hint.mtimeMs === node.mtimeMs;
      files.push({
        name,
        size: node.data.length,
        mtimeMs: node.mtimeMs,
        sha256: same ? hint.sha256 : this.#hash(node.data),
      });
    }
    if (meta === null) return { folder, meta: null, files };
    if (!meta.ok) return { folder, meta: null, metaError: meta.error, files };
    const metaNode = this.node(`${folder}/${DOCUMENT_META}`);
    const metaMtimeMs = metaNode?.kind === 'file' ? { metaMtimeMs: metaNode.mtimeMs } : {};
    return { folder, meta: meta.value, ...metaMtimeMs, files };
  }

  #hash(data: Buffer): string {
    this.hashReads += 1;
    return createHash('sha256').update(data).digest('hex');
  }

  #freeTrashPath(key: string): string {
    const target = `${TRASH_DIR}/${dayStamp(this.#now())}/${key}`;
    const dir = path.posix.dirname(target);
    return `${dir}/${pickFreeName(path.posix.basename(target), this.children(dir))}`;
  }

  #placed(folder: string, name: string): PlacedFile {
    const relPath = `${this.key(folder)}/${name}`;
    const node = this.node(relPath);
    if (node?.kind !== 'file') throw new LocalStoreError('MISSING', `${relPath} is missing`);
    return {
      path: relPath,
      name,
      size: node.data.length,
      mtimeMs: node.mtimeMs,
      sha256: createHash('sha256').update(node.data).digest('hex'),
    };
  }
}

async function collect(source: FileSource): Promise<Buffer> {
  if (typeof source === 'string') return Buffer.from(source, 'utf8');
  if (source instanceof Uint8Array) return Buffer.from(source);
  if ('fill' in source) {
    const [received] = await receiveAll([{ key: '', desiredName: 'part', fill: source.fill }]);
    return received!.data;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Fills every incoming file through a real temp file (as a download would) under a free name. */
async function receiveAll(files: readonly IncomingFile[]) {
  const received: { key: string; name: string; data: Buffer }[] = [];
  for (const file of files) {
    const dir = await mkdtemp(path.join(tmpdir(), 'docsync-memory-'));
    try {
      const temp = path.join(dir, 'part');
      await file.fill(temp);
      const taken = received.map((r) => r.name);
      const name = pickFreeName(file.desiredName, taken, { avoid: (n) => n === DOCUMENT_META });
      received.push({ key: file.key, name, data: await readFile(temp) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return received;
}
