/**
 * Reads one entity folder into a LocalEntitySnapshot. A quiet scan (nothing changed since the
 * base) opens no file: it lists folders and stats files. A file's content is hashed only when
 * its size or mtime differs from the base, and a `.document.json` is read only when its stamp
 * differs from the one the meta cache holds.
 *
 * Listings and stats go through `FsCalls` (fs-calls.ts): synchronous on the server's own disk,
 * where they take microseconds and a promise per call cost ~4× the CPU, asynchronous
 * on a network share, where one call can take seconds. A synchronous scan yields to the event
 * loop after each document folder, so it never holds it for more than one folder's listing and
 * stats; content reads and hashing are always asynchronous.
 * Files still being written are not shown half-done: a changing file is reported as the base
 * knew it, a new one not yet at all. Entries that will not be synced (links, special files,
 * names the service cannot store: skip-rules.ts) are listed in `skipped`, never just dropped.
 */
import { createHash } from 'node:crypto';
import { createReadStream, type Dirent, lstatSync, readdirSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { keptEditOf } from '../domain/local-folder-names.js';
import type {
  BaseAttachment,
  DocumentMeta,
  FileStamp,
  LocalDocumentSnapshot,
  LocalEntitySnapshot,
  LocalFile,
  OwnerRef,
  SkippedEntry,
} from '../domain/types.js';
import type { FsCalls } from './fs-calls.js';
import { isIgnored } from './ignore.js';
import { DOCUMENT_META, ENTITY_META, type ScanHint, SHORTCUT_FILE } from './local-store.js';
import {
  type CachedMeta,
  type MetaFileCache,
  stampOf,
  UNREADABLE_NAME,
} from './meta-file-cache.js';
import { isDocsyncFile, type ParseResult, parseDocumentMeta } from './metadata-files.js';
import { resolveInside } from './resolve-inside.js';
import {
  escapeBytes,
  escapeControls,
  fileFromHint,
  hasControlCharacter,
  SKIP_REASONS,
  skippedEntry,
  specialKind,
} from './skip-rules.js';

export interface ScanOptions {
  readonly root: string;
  readonly ignore: readonly string[];
  /** A file changed more recently than this counts as still being written. */
  readonly settleMs: number;
  readonly now: () => number;
  readonly metaCache: MetaFileCache;
  readonly fs: FsCalls;
}

/** docsync's own files in an entity folder: never a loose file of the user's. */
const ENTITY_FILES: ReadonlySet<string> = new Set([ENTITY_META, SHORTCUT_FILE]);

/** What a scan counts besides the documents (LocalEntitySnapshot). */
interface Tally {
  readonly skipped: SkippedEntry[];
  unsettled: number;
}

export async function scanEntityFolder(
  options: ScanOptions,
  owner: OwnerRef,
  folder: string | null,
  hints: readonly ScanHint[],
): Promise<LocalEntitySnapshot> {
  if (folder === null) return { owner, folder, documents: [], skipped: [], unsettled: 0 };
  const byId = new Map(hints.map((hint) => [hint.id, hint.attachments]));
  const cached = options.metaCache.entriesUnder(folder);
  const tally: Tally = { skipped: [], unsettled: 0 };
  const documents: LocalDocumentSnapshot[] = [];
  const dir = resolveInside(options.root, folder);
  const entries = uniqueByName(await options.fs.entries(dir));
  const undecodable = await undecodableNamesWith(
    options.fs,
    dir,
    entries.map((e) => e.name),
  );
  for (const entry of entries) {
    const relPath = `${folder}/${entry.name}`;
    if (isIgnored(relPath, options.ignore)) continue;
    // Loose files beside the document folders are no documents: said, never synced.
    if (entry.isFile()) {
      if (ENTITY_FILES.has(entry.name)) continue;
      for (const name of undecodable.get(entry.name) ?? [escapeControls(entry.name)])
        tally.skipped.push({
          path: `${escapeControls(folder)}/${name}`,
          reason: SKIP_REASONS.loose('entity'),
        });
      continue;
    }
    const unreadable = undecodable.get(entry.name);
    const reason = unreadable ? SKIP_REASONS.notUtf8 : entryProblem(entry, 'folder');
    if (reason === null) {
      const inside: Tally = { skipped: [], unsettled: 0 };
      const doc = await scanDocumentFolder(options, relPath, byId, cached, inside);
      if (options.fs.mode === 'sync') await yieldToLoop();
      // A control character in a folder's name matters only when the name becomes a new
      // document's; a folder with a readable `.document.json` is known by its id.
      if (doc.meta !== null || !hasControlCharacter(entry.name)) {
        documents.push(doc);
        tally.skipped.push(...inside.skipped);
        tally.unsettled += inside.unsettled;
        continue;
      }
    }
    const why = reason ?? SKIP_REASONS.control(entry.name);
    for (const name of unreadable ?? [escapeControls(entry.name)]) {
      tally.skipped.push({ path: `${escapeControls(folder)}/${name}`, reason: why });
    }
    if (entry.isDirectory() || entry.isSymbolicLink()) documents.push(heldFolder(relPath, why));
  }
  const present = new Set(documents.map((d) => d.folder));
  options.metaCache.forget([...cached.keys()].filter((f) => !present.has(f)));
  documents.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
  tally.skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { owner, folder, documents, ...tally };
}

/**
 * Why an entry whose name opens is not synced: a link or a special file. Null for a folder or a
 * regular file (whether it is wanted there is the caller's to say).
 */
function entryProblem(entry: Stats | Dirent, linkTo: 'file' | 'folder'): string | null {
  if (entry.isSymbolicLink()) return SKIP_REASONS.link(linkTo);
  if (entry.isDirectory() || entry.isFile()) return null;
  return SKIP_REASONS.special(specialKind(entry));
}

/**
 * A folder, or a link, that may hold a document but is not read. The planner sees a document
 * folder whose `.document.json` cannot be read, which holds the document it may be (decision
 * rows 13 and 18) where a folder simply left out would read as "document deleted".
 */
function heldFolder(folder: string, reason: string): LocalDocumentSnapshot {
  return { folder, meta: null, metaError: `not synced: ${reason}`, files: [] };
}

async function scanDocumentFolder(
  options: ScanOptions,
  folder: string,
  hintsById: ReadonlyMap<string, readonly BaseAttachment[]>,
  cached: ReadonlyMap<string, CachedMeta>,
  tally: Tally,
): Promise<LocalDocumentSnapshot> {
  const dir = resolveInside(options.root, folder);
  // Two names that are not UTF-8 may read as the same string; one look at it is enough.
  const names = [...new Set(await options.fs.names(dir))].sort();
  const undecodable = await undecodableNamesWith(options.fs, dir, names);
  // A listed `.document.json` that cannot be read fails the scan (the entity is retried): read
  // as "no metadata", the folder would look like a new document and be created a second time.
  const metaStats = names.includes(DOCUMENT_META)
    ? await options.fs.lstat(`${dir}/${DOCUMENT_META}`)
    : null;
  const meta = metaStats ? await readMeta(options, folder, metaStats, cached.get(folder)) : null;
  // When the user edited `"status"`: without it a local status edit could never be "the newer
  // change" and would always lose to a service change (rows 23, 24).
  const metaMtimeMs = metaStats ? { metaMtimeMs: metaStats.mtimeMs } : {};
  const hints = meta?.ok ? (hintsById.get(meta.value.id) ?? []) : [];
  const systemFiles = hints.filter((h) => h.kind === 'system').map((h) => h.file);
  const files: LocalFile[] = [];
  // What the plan sees of the folder, for the writes it makes (LocalDocumentSnapshot.seen).
  const seen = new Map<string, FileStamp>();
  if (metaStats) seen.set(DOCUMENT_META, stampOf(metaStats));
  for (const name of names) {
    if (name === DOCUMENT_META || isIgnored(`${folder}/${name}`, options.ignore)) continue;
    const hint = hints.find((h) => h.file === name);
    const unreadable = undecodable.get(name);
    const stats = unreadable ? null : await options.fs.lstat(`${dir}/${name}`).catch(() => null);
    if (stats) seen.set(name, stampOf(stats));
    else if (unreadable) seen.set(name, UNREADABLE_NAME);
    if (isDocsyncFile(name)) continue;
    if (!unreadable && stats === null) continue; // gone since the listing
    // A document is flat: a folder in it is said, never synced.
    if (!unreadable && stats!.isDirectory()) {
      tally.skipped.push({
        path: escapeControls(`${folder}/${name}`),
        reason: SKIP_REASONS.subfolder,
      });
      continue;
    }
    const reason = unreadable
      ? SKIP_REASONS.notUtf8
      : hasControlCharacter(name)
        ? SKIP_REASONS.control(name)
        : entryProblem(stats!, 'file');
    if (reason === null) {
      const scanned = await scanFile(options, `${folder}/${name}`, name, hint, stats!);
      // Still changing: not seen as it is, so no write trusts what the plan made of it.
      if (scanned.unsettled) {
        tally.unsettled += 1;
        seen.delete(name);
      }
      if (scanned.file) files.push(scanned.file);
      // docsync's copy of an edited system form: the planner leaves it local, and says so here.
      const form = hint ? null : keptEditOf(name, systemFiles);
      if (form !== null)
        tally.skipped.push({
          path: escapeControls(`${folder}/${name}`),
          reason: SKIP_REASONS.keptEdit(form),
        });
      continue;
    }
    for (const shown of unreadable ?? [escapeControls(name)]) {
      tally.skipped.push(skippedEntry(`${escapeControls(folder)}/${shown}`, reason, hint));
    }
    if (hint) files.push(fileFromHint(hint));
  }
  if (meta === null) return { folder, meta: null, files, seen };
  if (!meta.ok) return { folder, meta: null, metaError: meta.error, files, seen };
  return { folder, meta: meta.value, ...metaMtimeMs, files, seen };
}

/**
 * The folder's `.document.json`, from the cache while its stamp is unchanged. The stamp is taken
 * before the read: a file changed in between is cached under the old stamp, so it is simply
 * read again next time, never mistaken for unchanged.
 */
async function readMeta(
  options: ScanOptions,
  folder: string,
  stats: Stats,
  cached: CachedMeta | undefined,
): Promise<ParseResult<DocumentMeta>> {
  if (!stats.isFile()) return { ok: false, error: 'not a regular file' };
  const stamp = stampOf(stats);
  if (cached?.stamp === stamp) return { ok: true, value: cached.meta };
  const text = await readFile(resolveInside(options.root, `${folder}/${DOCUMENT_META}`), 'utf8');
  const parsed = parseDocumentMeta(text);
  if (parsed.ok) options.metaCache.put(folder, stamp, parsed.value);
  return parsed;
}

/**
 * One regular file. `unsettled` when it changed within the settle time: it is then reported as
 * its hint says, or left out when new, so a half-copied file is never seen.
 */
async function scanFile(
  options: ScanOptions,
  relPath: string,
  name: string,
  hint: BaseAttachment | undefined,
  stats: Stats,
): Promise<{ file: LocalFile | null; unsettled: boolean }> {
  if (hint && hint.size === stats.size && hint.mtimeMs === stats.mtimeMs) {
    return { file: fileFromHint(hint), unsettled: false };
  }
  // ctime, not mtime: every write moves it, even in a copy that preserves mtime, and no user
  // can set it into the future (an age below zero means the clock went back: count it settled).
  // Whole milliseconds, as the clock gives them: a file written in the scan's own millisecond has
  // a ctime a fraction past `now`, and is fresh, not from the future.
  const age = options.now() - Math.floor(stats.ctimeMs);
  if (age >= 0 && age < options.settleMs) {
    return { file: hint ? fileFromHint(hint) : null, unsettled: true };
  }
  const sha256 = await hashFile(resolveInside(options.root, relPath));
  return { file: { name, size: stats.size, mtimeMs: stats.mtimeMs, sha256 }, unsettled: false };
}

/**
 * Names Node could not decode, with how to show them. readdir turns each byte that is not UTF-8
 * into U+FFFD, and a path built from that name opens nothing; only a listing that shows U+FFFD
 * is read again as bytes, which costs a quiet scan nothing.
 */
export function undecodableNames(
  dir: string,
  names: readonly string[],
): ReadonlyMap<string, readonly string[]> {
  if (!names.some((name) => name.includes('\uFFFD'))) return new Map();
  return decodeRawNames(readdirSync(dir, { encoding: 'buffer' }));
}

function decodeRawNames(raws: readonly Buffer[]): ReadonlyMap<string, readonly string[]> {
  const found = new Map<string, string[]>();
  for (const raw of raws) {
    const name = raw.toString('utf8');
    if (Buffer.from(name, 'utf8').equals(raw)) continue;
    found.set(name, [...(found.get(name) ?? []), escapeBytes(raw)]);
  }
  return found;
}

async function undecodableNamesWith(
  fs: FsCalls,
  dir: string,
  names: readonly string[],
): Promise<ReadonlyMap<string, readonly string[]>> {
  if (!names.some((name) => name.includes('\uFFFD'))) return new Map();
  return decodeRawNames(await fs.rawNames(dir));
}

/** Listing entries, one per name (two names that are not UTF-8 may read the same). */
function uniqueByName(entries: readonly Dirent[]): Dirent[] {
  return [...new Map(entries.map((e) => [e.name, e] as const)).values()];
}

/**
 * lstat of `relPath`, unless a folder along it (`Companies`, then `Companies/Acme`) is a link:
 * then that folder. An entity folder reached through a link is not scanned (links are never
 * followed). Null when something along it is missing.
 */
export function lstatWithoutLinks(
  root: string,
  relPath: string,
): { readonly link: string } | { readonly stats: Stats } | null {
  const names = relPath.split('/');
  for (let i = 1; i <= names.length; i += 1) {
    const prefix = names.slice(0, i).join('/');
    const stats = lstatOrNull(resolveInside(root, prefix));
    if (stats === null) return null;
    if (stats.isSymbolicLink()) return { link: prefix };
    if (i === names.length) return { stats };
  }
  return null;
}

/** Gone or unreadable since the listing: not a file of this scan. */
export function lstatOrNull(absolutePath: string): Stats | null {
  try {
    return lstatSync(absolutePath);
  } catch {
    return null;
  }
}

export async function hashFile(absolutePath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(absolutePath)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
