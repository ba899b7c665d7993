/**
 * Files and folders `docsync init` makes, never over anything that is there: a file goes
 * temp file → fsync → link onto its name (which fails on an existing name, where rename would
 * replace it) → fsync of the folder, so a crash leaves the whole file or none.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chown, link, mkdir, open, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { DocsyncError } from '../domain/errors.js';

export interface Owner {
  readonly uid: number;
  readonly gid: number;
}

export async function writeNewFile(
  file: string,
  content: string,
  options: { readonly mode: number; readonly owner?: Owner | undefined },
): Promise<void> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${randomUUID()}.part`);
  const handle = await open(temp, 'wx', options.mode);
  try {
    await handle.writeFile(content);
    // The mode passed to open is cut by the umask; the secrets' file must be exactly this.
    await handle.chmod(options.mode);
    if (options.owner) await handle.chown(0, options.owner.gid);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw alreadyThere(file);
    throw error;
  } finally {
    await unlink(temp);
  }
  await syncFolder(dir);
}

export function alreadyThere(file: string): DocsyncError {
  return new DocsyncError(
    'INIT_FILE_EXISTS',
    `${file} is already there, and docsync init never overwrites a file: keep it (docsync reads it), move it aside, or write elsewhere with --config FILE.`,
  );
}

/**
 * Makes `dir` and the folders missing on the way; the missing ones get `mode`, and the last one
 * `owner` (the daemon's user), so a folder that was there keeps its owner and mode.
 */
export async function makeFolder(
  dir: string,
  options: { readonly mode: number; readonly owner?: Owner | undefined },
): Promise<boolean> {
  if (await stat(dir).catch(() => null)) return false;
  await mkdir(dir, { recursive: true, mode: 0o755 });
  if (options.owner) await chown(dir, options.owner.uid, options.owner.gid);
  // After the chown: chown clears the setgid bit of a folder for a non-root caller.
  const handle = await open(dir, 'r');
  try {
    await handle.chmod(options.mode);
  } finally {
    await handle.close();
  }
  return true;
}

async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The user of that name in /etc/passwd (system users such as `docsync` are there); or null. */
export function systemUser(name: string, passwd = '/etc/passwd'): Owner | null {
  let text: string;
  try {
    text = readFileSync(passwd, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && uid !== undefined && gid !== undefined)
      return { uid: Number(uid), gid: Number(gid) };
  }
  return null;
}
