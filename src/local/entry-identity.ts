/**
 * Finding a folder or a file again after a person renamed it: by its identity on disk (device
 * and inode), never by its name. A create made from a new folder, or an upload of a new file,
 * records the identity before its request leaves; when the answer comes and the name no longer
 * holds that entry, its siblings are looked through for it, so the answer settles the push it
 * belongs to instead of a second push being made for the new name.
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
 * The name, in `dir`, of the entry whose identity is `identity`; null when none is (or `dir` is
 * gone). A link is never a match: it is not the folder or file that was planned.
 */
export async function findInFolder(
  dir: string,
  identity: EntryIdentity,
  skip: (name: string) => boolean,
): Promise<string | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
  for (const name of names) {
    // A name that is not UTF-8 reads with U+FFFD and opens nothing.
    if (skip(name) || name.includes('\uFFFD')) continue;
    const stats = await lstat(path.join(dir, name), { bigint: true }).catch(() => null);
    if (stats && !stats.isSymbolicLink() && identityOfStats(stats) === identity) return name;
  }
  return null;
}
