/**
 * A fingerprint of one folder's direct entries (name, size, mtime, ctime). Two equal fingerprints
 * taken the settle time apart mean nothing in it changed meanwhile: daemon.md's "a file counts
 * only once size and mtime are unchanged for the settle time". ctime is included because a copy
 * that preserves mtime still moves it with every write.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isIgnored } from './ignore.js';

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
