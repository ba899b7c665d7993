/**
 * The check every overwriting, moving or trashing write of the folder makes just before it
 * acts (local-store.ts, `Expected`): is the target still what the plan saw? A file by its stamp
 * (size, mtime, ctime, inode: ctime moves with every write and no one can set it), a folder by
 * the stamps of all its entries. Where the stamps cannot tell (no inode numbers, or times in
 * whole seconds, as some shares give), an equal stamp is confirmed by the content.
 *
 * The check and the write are two steps: an edit in the microseconds between them is not seen.
 * That window is what a folder that others write into allows (Unison has the same one); what
 * this closes is the seconds to minutes between a scan and the writes planned from it.
 */
import type { Stats } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { LocalChangedError } from '../domain/errors.js';
import type { DocumentMeta, FileStamp } from '../domain/types.js';
import { isIgnored } from './ignore.js';
import type { Expected } from './local-store.js';
import { stampOf, UNREADABLE_NAME } from './meta-file-cache.js';
import { formatDocumentMeta, parseDocumentMeta } from './metadata-files.js';
import { resolveInside } from './resolve-inside.js';
import { hashFile } from './scan.js';

/**
 * Throws LocalChangedError when `relPath` is not what `expected` says. `cannotTell` says when
 * an equal stamp needs its content compared (a test may say always).
 */
export async function checkExpected(
  root: string,
  relPath: string,
  expected: Expected,
  ignore: readonly string[],
  cannotTell: (stats: Stats) => boolean = stampsCannotTell,
): Promise<void> {
  if (!(await isAsExpected(root, relPath, expected, ignore, cannotTell)))
    throw new LocalChangedError(relPath);
}

async function isAsExpected(
  root: string,
  relPath: string,
  expected: Expected,
  ignore: readonly string[],
  cannotTell: (stats: Stats) => boolean,
): Promise<boolean> {
  const absolute = resolveInside(root, relPath);
  const stats = await lstat(absolute).catch(() => null);
  switch (expected.kind) {
    case 'absent':
      return stats === null;
    case 'file':
      if (stats === null || stats.isDirectory() || stampOf(stats) !== expected.stamp) return false;
      return !cannotTell(stats) || (await sameContent(absolute, expected));
    case 'folder': {
      if (!stats?.isDirectory()) return false;
      const now = await folderEntries(root, relPath, ignore);
      if (now.size !== expected.entries.size) return false;
      for (const [name, stamp] of now) if (expected.entries.get(name) !== stamp) return false;
      return true;
    }
  }
}

/**
 * No inode numbers (some shares report 0), or modification and change times both in whole
 * seconds: two writes within a second may leave the same stamp.
 */
export function stampsCannotTell(stats: Stats): boolean {
  return stats.ino === 0 || (stats.mtimeMs % 1000 === 0 && stats.ctimeMs % 1000 === 0);
}

async function sameContent(absolute: string, expected: Extract<Expected, { kind: 'file' }>) {
  if (expected.sha256 !== undefined) return (await hashFile(absolute)) === expected.sha256;
  if (expected.meta !== undefined) {
    const parsed = parseDocumentMeta(await readFile(absolute, 'utf8'));
    // Both in the one canonical form (fields in order): a person's spacing or field order is
    // no change, and this sync's own write compares equal to what it wrote.
    const canonical = (meta: DocumentMeta | null) => (meta ? formatDocumentMeta(meta) : null);
    return canonical(parsed.ok ? parsed.value : null) === canonical(expected.meta);
  }
  return true;
}

/** The stamps of a folder's entries, ignored names aside. */
export async function folderEntries(
  root: string,
  relPath: string,
  ignore: readonly string[],
): Promise<Map<string, FileStamp>> {
  const dir = resolveInside(root, relPath);
  const entries = new Map<string, FileStamp>();
  for (const name of await readdir(dir)) {
    if (isIgnored(`${relPath}/${name}`, ignore)) continue;
    // A name that is not UTF-8 reads with U+FFFD and opens nothing: it is there, no more.
    const stats = name.includes('\uFFFD')
      ? null
      : await lstat(path.join(dir, name)).catch(() => null);
    entries.set(name, stats ? stampOf(stats) : UNREADABLE_NAME);
  }
  return entries;
}

/** What is at `relPath` now. */
export async function lookAt(
  root: string,
  relPath: string,
  ignore: readonly string[],
): Promise<Expected> {
  const stats = await lstat(resolveInside(root, relPath)).catch(() => null);
  if (stats === null) return { kind: 'absent' };
  if (stats.isDirectory())
    return { kind: 'folder', entries: await folderEntries(root, relPath, ignore) };
  return { kind: 'file', stamp: stampOf(stats) };
}
