/**
 * `.docsync/trash/<yyyy-mm-dd>/<relative path>`: where everything sync removes or replaces goes,
 * kept for 30 days so a wrong delete (ours or the service's) can be undone by hand. An entry is
 * never overwritten: a second item with the same path that day gets ` (2)`.
 */
import { lstat, readdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import { pickFreeName } from '../domain/local-names.js';
import { fsyncDir } from './atomic-write.js';
import { TMP_DIR, TRASH_DIR } from './local-store.js';
import { resolveInside, toRelative } from './resolve-inside.js';
import { ensureRealFolders, existingRealFolder } from './state-folders.js';

/** The local calendar day, as trash folders are named. */
export function dayStamp(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/**
 * A free trash path for `relPath` on day `at`, its parent folders created: each of them, from
 * `.docsync/` down, a real folder (state-folders.ts), so nothing is moved through a link.
 */
async function freeTrashPath(root: string, relPath: string, at: Date): Promise<string> {
  const target = resolveInside(root, `${TRASH_DIR}/${dayStamp(at)}/${relPath}`);
  const dir = await ensureRealFolders(root, toRelative(root, path.dirname(target)));
  const taken = await readdir(dir);
  const name = pickFreeName(path.basename(target), taken);
  return path.join(dir, name);
}

/** Moves a file or folder into the trash; returns the trash path relative to the root. */
export function moveToTrash(root: string, relPath: string, at: Date): Promise<string> {
  return moveIntoTrash(root, resolveInside(root, relPath), relPath, at);
}

/**
 * Moves `source` (absolute, inside the root: a staging folder, or the item itself) into the
 * trash as the day's `relPath`; returns the trash path relative to the root.
 */
export async function moveIntoTrash(
  root: string,
  source: string,
  relPath: string,
  at: Date,
): Promise<string> {
  const target = await freeTrashPath(root, relPath, at);
  await rename(source, target);
  await fsyncDir(path.dirname(source));
  await fsyncDir(path.dirname(target));
  return toRelative(root, target);
}

/**
 * Deletes trash days older than `maxAgeDays` and temp files untouched for a day (left by a crash
 * mid-download). The only place docsync deletes for good, besides `onRemoteDelete: "delete"`.
 * It never follows a link: it refuses to sweep a `.docsync/trash` or `.docsync/tmp` that is not a
 * real folder, and of an entry that is a link it removes the link, never what it points to.
 */
export async function sweepTrash(root: string, now: Date, maxAgeDays: number): Promise<string[]> {
  const removed: string[] = [];
  const cutoff = dayStamp(new Date(now.getTime() - maxAgeDays * 86_400_000));
  // Both checked before anything goes: a swept trash next to a refused tmp/ is half a sweep.
  const trashDir = await existingRealFolder(root, TRASH_DIR);
  const tmpDir = await existingRealFolder(root, TMP_DIR);
  for (const day of trashDir ? await readdir(trashDir) : []) {
    if (!/^\d{4}-\d{2}-\d{2}$/u.test(day) || day >= cutoff) continue;
    await removeWithoutFollowing(path.join(trashDir!, day));
    removed.push(`${TRASH_DIR}/${day}`);
  }
  for (const name of tmpDir ? await readdir(tmpDir) : []) {
    const entry = path.join(tmpDir!, name);
    const stats = await lstat(entry).catch(() => null);
    if (stats && now.getTime() - stats.mtimeMs > 86_400_000) {
      await removeWithoutFollowing(entry);
      removed.push(`${TMP_DIR}/${name}`);
    }
  }
  return removed;
}

/**
 * A real folder goes with everything in it (`rm` lstat's each entry and unlinks a link, never
 * what it points to); anything else, a link above all, is unlinked alone.
 */
async function removeWithoutFollowing(absolute: string): Promise<void> {
  const stats = await lstat(absolute).catch(() => null);
  if (stats === null) return;
  if (stats.isDirectory()) await rm(absolute, { recursive: true, force: true });
  else await unlink(absolute).catch(() => undefined);
}
