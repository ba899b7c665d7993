/**
 * `.docsync/trash/<yyyy-mm-dd>/<relative path>`: where everything sync removes or replaces goes,
 * kept for 30 days so a wrong delete (ours or the service's) can be undone by hand. An entry is
 * never overwritten: a second item with the same path that day gets ` (2)`.
 */
import { link, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pickFreeName } from '../domain/local-names.js';
import { fsyncDir } from './atomic-write.js';
import { TMP_DIR, TRASH_DIR } from './local-store.js';
import { resolveInside, toRelative } from './resolve-inside.js';

/** The local calendar day, as trash folders are named. */
export function dayStamp(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** A free trash path for `relPath` on day `at`, its parent folders created. */
async function freeTrashPath(root: string, relPath: string, at: Date): Promise<string> {
  const target = resolveInside(root, `${TRASH_DIR}/${dayStamp(at)}/${relPath}`);
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
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
 * Keeps a copy of a file that is about to be replaced: a hard link into the trash, so the file
 * never goes missing under its own name in between. Returns the trash path.
 */
export async function linkIntoTrash(root: string, relPath: string, at: Date): Promise<string> {
  const source = resolveInside(root, relPath);
  const target = await freeTrashPath(root, relPath, at);
  await link(source, target);
  await fsyncDir(path.dirname(target));
  return toRelative(root, target);
}

/**
 * Deletes trash days older than `maxAgeDays` and temp files untouched for a day (left by a crash
 * mid-download). The only place docsync deletes for good, besides `onRemoteDelete: "delete"`.
 */
export async function sweepTrash(root: string, now: Date, maxAgeDays: number): Promise<string[]> {
  const removed: string[] = [];
  const cutoff = dayStamp(new Date(now.getTime() - maxAgeDays * 86_400_000));
  const trashDir = resolveInside(root, TRASH_DIR);
  for (const day of await readdirOrEmpty(trashDir)) {
    if (!/^\d{4}-\d{2}-\d{2}$/u.test(day) || day >= cutoff) continue;
    await rm(path.join(trashDir, day), { recursive: true, force: true });
    removed.push(`${TRASH_DIR}/${day}`);
  }
  const tmpDir = resolveInside(root, TMP_DIR);
  for (const name of await readdirOrEmpty(tmpDir)) {
    const entry = path.join(tmpDir, name);
    const stats = await stat(entry).catch(() => null);
    if (stats && now.getTime() - stats.mtimeMs > 86_400_000) {
      await rm(entry, { recursive: true, force: true });
      removed.push(`${TMP_DIR}/${name}`);
    }
  }
  return removed;
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
