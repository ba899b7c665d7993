/**
 * A fingerprint of one folder's direct entries (name, size, mtime, ctime). Two equal fingerprints
 * taken the settle time apart mean nothing in it changed meanwhile: daemon.md's "a file counts
 * only once size and mtime are unchanged for the settle time". ctime is included because a copy
 * that preserves mtime still moves it with every write.
 */
import { createHash } from 'node:crypto';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { FsCalls } from './fs-calls.js';
import { isIgnored } from './ignore.js';
import { TimeSlice } from './time-slice.js';

export async function folderSignature(dir: string, ignore: readonly string[]): Promise<string> {
  let names: string[];
  try {
    names = (await readdir(dir)).sort();
  } catch {
    return 'missing';
  }
  const parts: string[] = [];
  for (const name of names) {
    if (isIgnored(name, ignore)) continue;
    const stats = await lstat(path.join(dir, name)).catch(() => null);
    if (stats) parts.push(`${name}\u0000${stats.size}\u0000${stats.mtimeMs}\u0000${stats.ctimeMs}`);
  }
  return parts.join('\n');
}

/**
 * A fingerprint of a whole entity folder: its document folders and their files (name, size,
 * mtime, ctime), hashed so that a pass over thousands of entities keeps 20 bytes each. Equal
 * fingerprints an interval apart mean nothing in the folder changed meanwhile, whether the OS
 * reported it or not (a network share reports no other machine's writes). 'missing' when the
 * folder cannot be listed. Synchronous calls never give the event loop a turn of their own: the
 * walk gives one when it has held the loop for a slice (`slice`: the pass's, which spans its
 * entities), between document folders.
 */
export async function entityFolderSignature(
  root: string,
  entityFolder: string,
  ignore: readonly string[],
  fs: FsCalls,
  slice: TimeSlice = new TimeSlice(),
): Promise<string> {
  const hash = createHash('sha1');
  const dir = path.join(root, entityFolder);
  let entries: string[];
  try {
    entries = (await fs.names(dir)).sort();
  } catch {
    return 'missing';
  }
  for (const name of entries) {
    if (isIgnored(`${entityFolder}/${name}`, ignore)) continue;
    const inner = path.join(dir, name);
    const stats = await fs.lstat(inner).catch(() => null);
    if (!stats) continue;
    hash.update(`${name}\u0000${stats.mtimeMs}\u0000${stats.ctimeMs}\n`);
    if (!stats.isDirectory()) continue;
    const files = (await fs.names(inner).catch(() => [] as string[])).sort();
    for (const file of files) {
      if (isIgnored(`${entityFolder}/${name}/${file}`, ignore)) continue;
      const f = await fs.lstat(path.join(inner, file)).catch(() => null);
      if (f) hash.update(`\t${file}\u0000${f.size}\u0000${f.mtimeMs}\u0000${f.ctimeMs}\n`);
    }
    if (fs.mode === 'sync') await slice.checkpoint();
  }
  return hash.digest('base64');
}
