/**
 * A file of the folder opened for an upload (domain/upload-source.ts). The folder is shared: a
 * person, or a program, can replace a file by a link to any file docsync may read between the
 * scan and the upload, or between two attempts of it. So each attempt opens the file once,
 * without following a link in its last name, and checks what it holds (the descriptor): a
 * regular file, still the one the name gives, really inside the root (a folder on the way that
 * became a link out of the root is seen here), and as the plan saw it. The bytes are then read
 * from that descriptor only, and hashed as they go: the agreed state records what was sent.
 */
import { createHash } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { LocalChangedError, UploadRefusedError } from '../domain/errors.js';
import type { LocalFile } from '../domain/types.js';
import type { OpenedUpload, UploadSource } from '../domain/upload-source.js';
import { isWithin, resolveInside } from './resolve-inside.js';

/** O_NONBLOCK: a FIFO put in the file's place must not hang the open until a writer comes. */
const FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Read size; the multipart encoder hands the wire 64 KiB slices of it. */
const CHUNK = 256 * 1024;

/**
 * The upload of `relPath`, which the plan saw as `planned`. An attempt that finds the file
 * changed since (its size or mtime) is refused before anything is sent (LocalChangedError): the
 * next scan sees the change and the plan made from it sends it, so the outbox entry's hash
 * stays the hash of what is sent. One that finds another file (another inode) than the first
 * attempt opened, a link or not a regular file is refused as UploadRefusedError.
 */
export function storeUploadSource(root: string, relPath: string, planned: LocalFile): UploadSource {
  let first: Stats | null = null;
  let sent: LocalFile | null = null;
  return {
    label: relPath,
    async open() {
      sent = null;
      const { handle, stats } = await openInside(root, relPath);
      try {
        // Another file than the first attempt sent is refused as such, whatever its size.
        if (first && !sameInode(first, stats))
          throw new UploadRefusedError(
            relPath,
            'was replaced by another file between two attempts',
          );
        if (stats.size !== planned.size || stats.mtimeMs !== planned.mtimeMs)
          throw new LocalChangedError(relPath);
        first ??= stats;
      } catch (error) {
        await handle.close();
        throw error;
      }
      return reader(handle, stats, relPath, (file) => {
        sent = { name: planned.name, ...file };
      });
    },
    sent: () => sent,
  };
}

/**
 * A file a person named on the command line (`docsync api attachments upload`), or one docsync
 * wrote itself outside the folder (`docsync check --write`): opened as named, links followed
 * (the person chose the name), and read from that one descriptor as any upload is.
 */
export function namedUploadSource(absolute: string): UploadSource {
  let sent: LocalFile | null = null;
  return {
    label: absolute,
    async open() {
      sent = null;
      const handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        throw new UploadRefusedError(absolute, `is ${kindOf(stats)}, not a regular file`);
      }
      return reader(handle, stats, absolute, (file) => {
        sent = { name: path.basename(absolute), ...file };
      });
    },
    sent: () => sent,
  };
}

/** The file at `relPath`, opened and checked on its descriptor. */
async function openInside(
  root: string,
  relPath: string,
): Promise<{ handle: FileHandle; stats: Stats }> {
  const absolute = resolveInside(root, relPath);
  let handle: FileHandle;
  try {
    handle = await open(absolute, FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Linux and macOS answer ELOOP for O_NOFOLLOW on a link; FreeBSD EMLINK.
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new UploadRefusedError(relPath, 'is a symbolic link');
    if (code === 'ENXIO') throw new UploadRefusedError(relPath, 'is a socket');
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new LocalChangedError(relPath);
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile())
      throw new UploadRefusedError(relPath, `is ${kindOf(stats)}, not a regular file`);
    const named = await lstat(absolute).catch(() => null);
    if (named === null) throw new LocalChangedError(relPath);
    if (!sameInode(named, stats))
      throw new UploadRefusedError(relPath, 'was replaced while it was being opened');
    const [held, realRoot] = await Promise.all([heldPath(handle, absolute), realpath(root)]);
    if (!isWithin(realRoot, held))
      throw new UploadRefusedError(
        relPath,
        `is reached through a link out of the folder (${held})`,
      );
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Where the file held really is: the kernel's name for the descriptor where there is one
 * (Linux), else the real path of the folder it was opened in, which the inode check above ties
 * to it.
 */
async function heldPath(handle: FileHandle, absolute: string): Promise<string> {
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch {
    return path.join(await realpath(path.dirname(absolute)), path.basename(absolute));
  }
}

function reader(
  handle: FileHandle,
  opened: Stats,
  label: string,
  onRead: (file: Omit<LocalFile, 'name'>) => void,
): OpenedUpload {
  let closed = false;
  return {
    size: opened.size,
    chunks: () => readAll(handle, opened, label, onRead),
    close: async () => {
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}

/**
 * The file's bytes, exactly `opened.size` of them, and their sha256 once all were handed over.
 * Before the last bytes go, the file must still have the size and mtime it was opened with
 * (an edit in place while it was read): otherwise the read fails and the request is cut, as a
 * torn copy must not be completed.
 */
async function* readAll(
  handle: FileHandle,
  opened: Stats,
  label: string,
  onRead: (file: Omit<LocalFile, 'name'>) => void,
): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  let offset = 0;
  while (offset < opened.size) {
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, opened.size - offset));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
    if (bytesRead === 0) throw changedWhileRead(label);
    offset += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    if (offset === opened.size) await checkUnchanged(handle, opened, label);
    yield chunk;
  }
  if (opened.size === 0) await checkUnchanged(handle, opened, label);
  onRead({ size: offset, mtimeMs: opened.mtimeMs, sha256: hash.digest('hex') });
}

async function checkUnchanged(handle: FileHandle, opened: Stats, label: string): Promise<void> {
  const now = await handle.stat();
  if (now.size !== opened.size || now.mtimeMs !== opened.mtimeMs) throw changedWhileRead(label);
}

function changedWhileRead(label: string): LocalChangedError {
  return new LocalChangedError(label, `${label} changed while it was sent; the upload was cut`);
}

function sameInode(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}
