/**
 * Looks for documents in the whole store: a document folder missing from its entity folder was
 * far more often dragged somewhere else (another company, an `Archive` subfolder) than deleted,
 * and the service has no recycle bin (daemon.md "Absence is not deletion"). Only called when an
 * entity misses a document, so a quiet cycle never walks. Links are never followed, and the
 * walk is asynchronous: at 100,000 documents it lists every document folder once, which must not
 * stall the webhook receiver or the status page meanwhile.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { documentIdInFolderName } from '../domain/file-names.js';
import type { LocatedDocuments } from '../domain/types.js';
import { DOCUMENT_META, STATE_DIR } from './local-store.js';
import { type CachedMeta, type MetaFileCache, parentOf, stampOf } from './meta-file-cache.js';
import { parseDocumentMeta } from './metadata-files.js';

/** Root, `Companies`, the entity, an `Archive`, ...: deep enough for any folder a user makes. */
const MAX_DEPTH = 8;

export async function locateDocuments(
  root: string,
  ids: ReadonlySet<string>,
  metaCache: MetaFileCache,
  /** A folder to look in (an entity folder), relative to the root: the whole store if absent. */
  under = '',
): Promise<LocatedDocuments> {
  const found = new Map<string, string>();
  const unreadable: string[] = [];
  const cachedUnder = new Map<string, ReadonlyMap<string, CachedMeta>>();
  const cached = (folder: string) => {
    const parent = parentOf(folder);
    const entries = cachedUnder.get(parent) ?? metaCache.entriesUnder(parent);
    cachedUnder.set(parent, entries);
    return entries.get(folder);
  };
  const pending: { rel: string; depth: number }[] = [{ rel: under, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { rel, depth } = next;
    const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(
      () => [] as Dirent[],
    );
    if (rel !== under && entries.some((e) => e.name === DOCUMENT_META && e.isFile())) {
      const id = await documentIdOf(root, rel, cached(rel));
      if (id === null) unreadable.push(rel);
      else if (ids.has(id)) found.set(id, rel);
    } else if (rel !== under) {
      // A folder that lost its `.document.json` on the way is still known by its `[id]`.
      const tagged = documentIdInFolderName(rel);
      if (tagged !== null && ids.has(tagged) && !found.has(tagged)) found.set(tagged, rel);
    }
    if (depth >= MAX_DEPTH) continue;
    for (const entry of entries) {
      // Dirent types come from lstat: a link to a folder is not a directory here.
      if (!entry.isDirectory() || (rel === '' && entry.name === STATE_DIR)) continue;
      pending.push({ rel: rel === '' ? entry.name : `${rel}/${entry.name}`, depth: depth + 1 });
    }
  }
  return { found, unreadable };
}

/** The id a folder's `.document.json` names, from the cache while its stamp holds; null if broken. */
async function documentIdOf(
  root: string,
  folder: string,
  cached: CachedMeta | undefined,
): Promise<string | null> {
  const file = path.join(root, folder, DOCUMENT_META);
  try {
    if (cached && cached.stamp === stampOf(await lstat(file))) return cached.meta.id;
    const parsed = parseDocumentMeta(await readFile(file, 'utf8'));
    return parsed.ok ? parsed.value.id : null;
  } catch {
    return null;
  }
}
