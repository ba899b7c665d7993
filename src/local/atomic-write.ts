/**
 * Every byte docsync puts in the folder goes: temp file in `.docsync/tmp/` → fsync → rename onto
 * the real name → fsync of the directory. A crash at any point leaves either the old file or the
 * new one under the real name, never a partial one; what is left in tmp/ is swept later.
 *
 * Files are opened with the default mode (0666) and folders made with the default (0777), so the
 * process umask decides their permissions, as for any other program's files in a shared folder.
 */
import { createHash, randomUUID } from 'node:crypto';
import { link, lstat, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { tempFolder } from './state-folders.js';

/** Bytes, text, or a stream of chunks (a Node Readable is one). */
export type FileSource = Uint8Array | string | AsyncIterable<Uint8Array | string> | FileFiller;

/**
 * A writer that needs a path rather than giving bytes (a download): it writes the file at the
 * path it is given, durably, and reports the sha256 of what it wrote.
 */
export interface FileFiller {
  readonly fill: (path: string) => Promise<{ readonly sha256: string }>;
}

// A Uint8Array has a `fill` method too: it is bytes, not a filler.
const isFiller = (source: FileSource): source is FileFiller =>
  typeof source === 'object' && !(source instanceof Uint8Array) && 'fill' in source;

export interface WrittenTemp {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** Test seam: runs after the temp file is durable and before it takes the real name. */
export interface AtomicHooks {
  readonly beforeRename?: (tempPath: string, targetPath: string) => void | Promise<void>;
}

/**
 * A fresh, unused path in the store's `.docsync/tmp/` (made if missing, refused when it is not a
 * real folder: state-folders.ts). Every temp file comes from here, so none goes through a link.
 */
export async function newTempPath(root: string): Promise<string> {
  return path.join(await tempFolder(root), `${randomUUID()}.part`);
}

/** Writes `source` to a new temp file in the store `root`, hashing as it goes, durably. */
export async function writeTemp(root: string, source: FileSource): Promise<WrittenTemp> {
  const tempPath = await newTempPath(root);
  if (isFiller(source)) return fillTemp(tempPath, source);
  const hash = createHash('sha256');
  let size = 0;
  const handle = await open(tempPath, 'wx');
  try {
    for await (const chunk of chunksOf(source)) {
      hash.update(chunk);
      size += chunk.byteLength;
      await handle.write(chunk);
    }
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(tempPath).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return { path: tempPath, size, sha256: hash.digest('hex') };
}

async function fillTemp(tempPath: string, filler: FileFiller): Promise<WrittenTemp> {
  try {
    const { sha256 } = await filler.fill(tempPath);
    return { path: tempPath, size: (await stat(tempPath)).size, sha256 };
  } catch (error) {
    await unlink(tempPath).catch(() => undefined);
    throw error;
  }
}

/** Renames a durable temp file onto `target` (replacing it) and makes the rename durable. */
export async function commitTemp(
  tempPath: string,
  target: string,
  hooks: AtomicHooks = {},
): Promise<void> {
  await hooks.beforeRename?.(tempPath, target);
  await rename(tempPath, target);
  await fsyncDir(path.dirname(target));
}

/**
 * Like commitTemp, but never replaces: a hard link fails with EEXIST when the name is taken,
 * which a rename would silently overwrite. Returns false when taken. File systems without hard
 * links (some shares) fall back to rename after a fresh existence check.
 */
export async function commitTempNoClobber(tempPath: string, target: string): Promise<boolean> {
  try {
    await link(tempPath, target);
    await unlink(tempPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw error;
    if (await exists(target)) return false;
    await rename(tempPath, target);
  }
  await fsyncDir(path.dirname(target));
  return true;
}

/** The whole atomic write of daemon.md: temp (in `root`'s tmp/), fsync, rename, fsync dir. */
export async function writeFileAtomic(
  root: string,
  target: string,
  source: FileSource,
  hooks: AtomicHooks = {},
): Promise<WrittenTemp> {
  const temp = await writeTemp(root, source);
  try {
    await commitTemp(temp.path, target, hooks);
  } catch (error) {
    await unlink(temp.path).catch(() => undefined);
    throw error;
  }
  return { ...temp, path: target };
}

/** fsync of a directory, so a rename in it survives a power cut. Not possible on Windows. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw error;
  } finally {
    await handle?.close();
  }
}

async function exists(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return true;
  } catch {
    return false;
  }
}

async function* chunksOf(source: Exclude<FileSource, FileFiller>): AsyncIterable<Uint8Array> {
  if (typeof source === 'string') yield Buffer.from(source, 'utf8');
  else if (source instanceof Uint8Array) yield source;
  else {
    for await (const chunk of source) {
      yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    }
  }
}
