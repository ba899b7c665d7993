/**
 * Reads one entity folder into a LocalEntitySnapshot. A quiet scan (nothing changed since the
 * base) opens no file: it lists folders and stats files. A file's content is hashed only when
 * its size or mtime differs from the base, and a `.document.json` is read only when its stamp
 * differs from the one the meta cache holds.
 *
 * Listings and stats are synchronous calls: a few microseconds each on the server's own disk,
 * where each promise call paid a thread-pool round trip, ~4× the CPU, and queued behind the
 * downloads' fsyncs in the same four threads (bench 2). A scan makes a handful per document
 * folder, so the event loop is never held long; content reads and hashing stay asynchronous. Files still being written are not
 * shown half-done: a changing file is reported as the base knew it, a new one not yet at all.
 */
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, readdirSync, type Stats } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type {
  BaseAttachment,
  DocumentMeta,
  LocalDocumentSnapshot,
  LocalEntitySnapshot,
  LocalFile,
  OwnerRef,
} from '../domain/types.js';
import { isIgnored } from './ignore.js';
import { DOCUMENT_META, type ScanHint } from './local-store.js';
import { type CachedMeta, type MetaFileCache, stampOf } from './meta-file-cache.js';
import { type ParseResult, parseDocumentMeta } from './metadata-files.js';
import { resolveInside } from './resolve-inside.js';

export interface ScanOptions {
  readonly root: string;
  readonly ignore: readonly string[];
  /** A file changed more recently than this counts as still being written. */
  readonly settleMs: number;
  readonly now: () => number;
  readonly metaCache: MetaFileCache;
}

export async function scanEntityFolder(
  options: ScanOptions,
  owner: OwnerRef,
  folder: string | null,
  hints: readonly ScanHint[],
): Promise<LocalEntitySnapshot> {
  if (folder === null) return { owner, folder, documents: [] };
  const byId = new Map(hints.map((hint) => [hint.id, hint.attachments]));
  const cached = options.metaCache.entriesUnder(folder);
  const documents: LocalDocumentSnapshot[] = [];
  for (const entry of readdirSync(resolveInside(options.root, folder), { withFileTypes: true })) {
    if (!entry.isDirectory() || isIgnored(`${folder}/${entry.name}`, options.ignore)) continue;
    documents.push(await scanDocumentFolder(options, `${folder}/${entry.name}`, byId, cached));
  }
  const present = new Set(documents.map((d) => d.folder));
  options.metaCache.forget([...cached.keys()].filter((f) => !present.has(f)));
  documents.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
  return { owner, folder, documents };
}

async function scanDocumentFolder(
  options: ScanOptions,
  folder: string,
  hintsById: ReadonlyMap<string, readonly BaseAttachment[]>,
  cached: ReadonlyMap<string, CachedMeta>,
): Promise<LocalDocumentSnapshot> {
  const dir = resolveInside(options.root, folder);
  const names = readdirSync(dir).sort();
  // A listed `.document.json` that cannot be read fails the scan (the entity is retried): read
  // as "no metadata", the folder would look like a new document and be created a second time.
  const metaStats = names.includes(DOCUMENT_META) ? lstatSync(`${dir}/${DOCUMENT_META}`) : null;
  const meta = metaStats ? await readMeta(options, folder, metaStats, cached.get(folder)) : null;
  // When the user edited `"status"`: without it a local status edit could never be "the newer
  // change" and would always lose to a service change (rows 23, 24).
  const metaMtimeMs = metaStats ? { metaMtimeMs: metaStats.mtimeMs } : {};
  const hints = meta?.ok ? (hintsById.get(meta.value.id) ?? []) : [];
  const files: LocalFile[] = [];
  for (const name of names) {
    if (name === DOCUMENT_META || isIgnored(`${folder}/${name}`, options.ignore)) continue;
    const file = await scanFile(options, `${folder}/${name}`, name, hints);
    if (file) files.push(file);
  }
  if (meta === null) return { folder, meta: null, files };
  if (!meta.ok) return { folder, meta: null, metaError: meta.error, files };
  return { folder, meta: meta.value, ...metaMtimeMs, files };
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

/** One regular file; null for what is not an attachment (folders, symlinks, unsettled new). */
async function scanFile(
  options: ScanOptions,
  relPath: string,
  name: string,
  hints: readonly BaseAttachment[],
): Promise<LocalFile | null> {
  const stats = lstatOrNull(resolveInside(options.root, relPath));
  if (!stats?.isFile()) return null;
  const hint = hints.find((h) => h.file === name);
  if (hint && hint.size === stats.size && hint.mtimeMs === stats.mtimeMs) {
    return { name, size: stats.size, mtimeMs: stats.mtimeMs, sha256: hint.sha256 };
  }
  // ctime, not mtime: every write moves it, even in a copy that preserves mtime, and no user
  // can set it into the future (an age below zero means the clock went back: count it settled).
  const age = options.now() - stats.ctimeMs;
  if (age >= 0 && age < options.settleMs) {
    return hint ? { name, size: hint.size, mtimeMs: hint.mtimeMs, sha256: hint.sha256 } : null;
  }
  const sha256 = await hashFile(resolveInside(options.root, relPath));
  return { name, size: stats.size, mtimeMs: stats.mtimeMs, sha256 };
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
