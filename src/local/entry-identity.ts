/**
 * Finding a folder or a file again after a person renamed it: by its identity on disk (device
 * and inode), never by its name. A create made from a new folder, or an upload of a new file,
 * records the identity before its request leaves; when the answer comes and the name no longer
 * holds that entry, the folder it was in is looked through for it, so the answer settles the
 * push it belongs to instead of a second push being made for the new name.
 */
import type { BigIntStats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { EntryIdentity } from '../domain/types.js';

/** Null on a file system that reports no inode numbers (some shares give 0): names are all. */
function identityOfStats(stats: BigIntStats): EntryIdentity | null {
  if (stats.ino === 0n) return null;
  return `${stats.dev}:${stats.ino}` as EntryIdentity;
}

/** The identity of what is at `absolute` (not followed if a link); rejects (ENOENT) when gone. */
export async function identityAt(absolute: string): Promise<EntryIdentity | null> {
  return identityOfStats(await lstat(absolute, { bigint: true }));
}

/**
 * The path under `dir` (`/`-separated, relative to it) of the entry whose identity is
 * `identity`, looked for among its entries and, to `depth` levels, theirs; null when none is
 * (or `dir` is gone). A link is never a match, nor entered: it is not what was planned.
 */
export async function findUnder(
  dir: string,
  identity: EntryIdentity,
  skip: (relPath: string) => boolean,
  depth: number,
): Promise<string | null> {
  let level: string[] = [''];
  for (let d = 0; d < depth && level.length > 0; d += 1) {
    const next: string[] = [];
    for (const rel of level) {
      for (const name of await namesOf(rel === '' ? dir : path.join(dir, rel))) {
        const child = rel === '' ? name : `${rel}/${name}`;
        // A name that is not UTF-8 reads with U+FFFD and opens nothing.
        if (skip(child) || name.includes('\uFFFD')) continue;
        const stats = await lstat(path.join(dir, child), { bigint: true }).catch(() => null);
        if (!stats || stats.isSymbolicLink()) continue;
        if (identityOfStats(stats) === identity) return child;
        if (stats.isDirectory()) next.push(child);
      }
    }
    level = next;
  }
  return null;
}

/** The names in `dir`; none when it is gone (or no longer a folder). */
async function namesOf(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}
