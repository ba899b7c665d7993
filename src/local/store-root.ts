/**
 * Whether `store.root` can hold the documents, checked before any work in it: the daemon's
 * start, and a cycle that finds no `.docsync-root` (`hasMarker`). Without it, a root that is a file, or
 * sits under one, or that docsync may not write, met the first folder operation of a sync and
 * came out as Node's `ENOTDIR` or `EACCES` with a stack. A root that does not exist is no
 * problem here: the first sync makes it, and later the missing marker stops the run (an
 * unmounted share, decision row 50's rail).
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { StoreRootError } from '../domain/errors.js';

/** Throws StoreRootError when `root` exists but cannot be used as the document folder. */
export async function checkStoreRoot(root: string): Promise<void> {
  const stats = await stat(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw storeRootError(root, error);
  });
  if (stats === null) return;
  if (!stats.isDirectory()) {
    throw new StoreRootError(
      root,
      `store.root ${root} is a file, not a folder; set store.root to the folder the ` +
        'documents go in (docsync makes it when it does not exist yet).',
    );
  }
  await access(root, constants.R_OK | constants.W_OK | constants.X_OK).catch((error) => {
    throw storeRootError(root, error);
  });
}

/** A system error met on the root itself, as the operator's sentence. */
export function storeRootError(root: string, error: unknown): StoreRootError {
  const code = (error as NodeJS.ErrnoException).code;
  const said = (error as Error).message;
  const sentence = (() => {
    switch (code) {
      case 'ENOTDIR':
        return (
          `store.root ${root} cannot be a folder: a part of that path is a file (${said}); ` +
          'set store.root to a folder path.'
        );
      case 'EACCES':
      case 'EPERM':
        return (
          `docsync may not read and write store.root ${root} (${said}); give the user ` +
          'docsync runs as read and write access to it (and to its parent, if it does not ' +
          'exist yet), or set store.root to a folder it may use.'
        );
      case 'EROFS':
        return (
          `store.root ${root} is on a read-only filesystem (${said}); mount it writable, or ` +
          'set store.root to a folder docsync may write.'
        );
      default:
        return `docsync cannot use store.root ${root} (${said}); check the path and its disk.`;
    }
  })();
  return new StoreRootError(root, sentence, { cause: error });
}
