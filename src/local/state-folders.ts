/**
 * docsync's own folders, `.docsync/`, `.docsync/tmp/` and `.docsync/trash/<day>/…`, are where it
 * writes every temp file and staging folder, moves everything it removes, and later deletes for
 * good. Replaced by a symbolic link (a user "moving the trash to a bigger disk", a restore by a
 * tool that keeps links), such a folder carried those writes, and the sweep's `rm -rf`, outside
 * the document folder. So each folder on the way is checked with lstat, made when missing, and
 * refused when it is a link or not a folder, before anything goes through it.
 *
 * The trash holds what docsync removed and the service's copies of what it deleted there, and
 * the folder may be shared with a group (UMask=0007): what a person removed, or a document the
 * service held for another client, is not for everyone who can read the folder. So the trash
 * and every folder docsync makes in it are 0700 whatever the umask, and a trash made by an
 * older docsync is closed the same way when it is next used. What is moved into it (a removed
 * folder, a service copy built in tmp/) keeps the mode it has in the folder: a restore puts it
 * back as the group can use it, and behind the trash no one else can reach it meanwhile.
 */
import type { Stats } from 'node:fs';
import { chmod, lstat, mkdir, readlink } from 'node:fs/promises';
import { LocalStoreError } from '../domain/errors.js';
import { TMP_DIR, TRASH_DIR } from './local-store.js';
import { resolveInside, toRelative } from './resolve-inside.js';

/** `.docsync/tmp/`, made when missing; absolute. Throws when it, or `.docsync/`, is unsafe. */
export function tempFolder(root: string): Promise<string> {
  return ensureRealFolders(root, TMP_DIR);
}

/**
 * Each folder along `relPath` (`/`-separated, under `root`), made when missing; returns the
 * absolute path. Throws LocalStoreError `UNSAFE_STATE_FOLDER` at the first that is a symbolic
 * link, a file or anything else but a folder, before anything is made below it.
 */
export async function ensureRealFolders(root: string, relPath: string): Promise<string> {
  for (const prefix of prefixes(root, relPath)) {
    const absolute = resolveInside(root, prefix);
    const closed = isTrash(prefix);
    let stats = await lstatOrNull(absolute);
    if (stats === null) {
      try {
        await mkdir(absolute, { mode: closed ? PRIVATE : 0o777 });
        // mkdir's mode passes through the umask, which may take from the owner too.
        if (closed) await chmod(absolute, PRIVATE);
        continue;
      } catch (error) {
        // Two writers may make the same folder at once (parallel downloads make tmp/).
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        stats = await lstat(absolute);
      }
    }
    if (!stats.isDirectory()) throw await unsafeStateFolder(root, prefix, stats);
    if (prefix === TRASH_DIR && (stats.mode & 0o077) !== 0) await closeTrash(absolute);
  }
  return resolveInside(root, relPath);
}

/** Mode of the trash and of the folders docsync makes in it. */
const PRIVATE = 0o700;

function isTrash(prefix: string): boolean {
  return prefix === TRASH_DIR || prefix.startsWith(`${TRASH_DIR}/`);
}

/** A trash left open by an older docsync; one of another owner stays as it is (not ours to change). */
async function closeTrash(absolute: string): Promise<void> {
  try {
    await chmod(absolute, PRIVATE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
  }
}

/**
 * Like ensureRealFolders, but makes nothing: the absolute path, or null when a folder along it
 * is missing. For the sweep, which must not create what it is about to empty.
 */
export async function existingRealFolder(root: string, relPath: string): Promise<string | null> {
  for (const prefix of prefixes(root, relPath)) {
    const stats = await lstatOrNull(resolveInside(root, prefix));
    if (stats === null) return null;
    if (!stats.isDirectory()) throw await unsafeStateFolder(root, prefix, stats);
  }
  return resolveInside(root, relPath);
}

/** `a`, `a/b`, `a/b/c` for `a/b/c`, normalised (and refused when outside the root). */
function prefixes(root: string, relPath: string): string[] {
  const names = toRelative(root, resolveInside(root, relPath)).split('/');
  return names.map((_, i) => names.slice(0, i + 1).join('/'));
}

async function unsafeStateFolder(
  root: string,
  relPath: string,
  stats: Stats,
): Promise<LocalStoreError> {
  const absolute = resolveInside(root, relPath);
  const what = stats.isSymbolicLink()
    ? `a symbolic link to ${await readlink(absolute).catch(() => 'somewhere unknown')}`
    : stats.isFile()
      ? 'a file'
      : 'not a folder';
  return new LocalStoreError(
    'UNSAFE_STATE_FOLDER',
    `${absolute} is ${what}. docsync keeps its temporary files and its trash only in real ` +
      `folders inside the document folder, and writes nothing through this one: remove it ` +
      `(rm ${JSON.stringify(absolute)}), and docsync creates the folder again.`,
  );
}

async function lstatOrNull(absolute: string): Promise<Stats | null> {
  try {
    return await lstat(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
