/**
 * A new folder appears whole or not at all: it is built in `.docsync/tmp/`, its files made
 * durable, then renamed into place under a free name. A crash leaves at most a staging folder in
 * tmp/ (swept later), never a folder without its `.entity.json` or `.document.json`, which would
 * be taken for a folder a user created.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { LocalChangedError } from '../domain/errors.js';
import { pickFreeName } from '../domain/local-names.js';
import { fsyncDir } from './atomic-write.js';
import { isIgnored } from './ignore.js';
import type { OwnWrites } from './own-writes.js';
import { resolveInside } from './resolve-inside.js';
import { tempFolder } from './state-folders.js';

export interface StageOptions {
  readonly root: string;
  readonly ignore: readonly string[];
  readonly ownWrites: OwnWrites;
}

/**
 * Creates `parent/<free name>` holding `files`; returns the new folder's relative path. A name in
 * `claimed` is not free even when nothing is there (a folder a person moved away, which comes
 * back under it).
 */
export async function createFolderAtomically(
  options: StageOptions,
  parent: string,
  desiredName: string,
  files: Readonly<Record<string, string>>,
  claimed: readonly string[] = [],
): Promise<string> {
  return withStagingFolder(options, async (staging) => {
    for (const [name, content] of Object.entries(files)) await writeStaged(staging, name, content);
    return commitStaged(options, staging, parent, desiredName, 'make', claimed);
  });
}

/**
 * Runs `build` on a fresh staging folder in `.docsync/tmp/`, which is removed afterwards (after
 * `commitStaged` there is nothing left to remove). Files inside need no temp-and-rename of
 * their own: nobody sees the folder before `commitStaged`.
 */
export async function withStagingFolder<T>(
  options: StageOptions,
  build: (staging: string) => Promise<T>,
): Promise<T> {
  const staging = path.join(await tempFolder(options.root), `${randomUUID()}.dir`);
  await mkdir(staging);
  try {
    return await build(staging);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Writes one file into a staging folder, durably; the umask sets its mode (atomic-write.ts). */
export async function writeStaged(staging: string, name: string, content: string): Promise<void> {
  const handle = await open(path.join(staging, name), 'wx');
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Makes the staging folder's entries durable, then renames it into `parent` under a free name
 * (fsync of `parent` after). Returns the folder's relative path. `parent` is made when missing,
 * unless it `must exist`: a document's entity folder a person moved out or renamed meanwhile is
 * not made again (a folder without its `.entity.json`, holding one document, while the others
 * are elsewhere): the write did not happen, and the document is planned again (row 50).
 */
export async function commitStaged(
  options: StageOptions,
  staging: string,
  parent: string,
  desiredName: string,
  parentMissing: 'make' | 'must exist' = 'make',
  claimed: readonly string[] = [],
): Promise<string> {
  await fsyncDir(staging);
  const parentDir = resolveInside(options.root, parent);
  if (parentMissing === 'make') await mkdir(parentDir, { recursive: true });
  else
    await stat(parentDir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
      throw new LocalChangedError(
        parent,
        `${parent} is not in the store (moved out or renamed meanwhile): no document folder is placed in it; the document is planned again`,
      );
    });
  return renameIntoPlace(options, staging, parent, desiredName, claimed);
}

async function renameIntoPlace(
  options: StageOptions,
  staging: string,
  parent: string,
  desiredName: string,
  claimed: readonly string[],
): Promise<string> {
  const parentDir = resolveInside(options.root, parent);
  const avoid = (name: string) => isIgnored(`${parent}/${name}`, options.ignore);
  const files = await readdir(staging);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const taken = [...(await readdir(parentDir)), ...claimed];
    const name = pickFreeName(desiredName, taken, { kind: 'folder', avoid });
    const target = resolveInside(options.root, `${parent}/${name}`);
    // Recorded before the rename, from the staged copies (a rename keeps size and mtime): the
    // watcher may hear of the new folder before this function gets control back.
    options.ownWrites.recordDir(target);
    for (const file of files) {
      options.ownWrites.recordFile(path.join(target, file), await stat(path.join(staging, file)));
    }
    try {
      await rename(staging, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') continue; // a user took the name meanwhile
      throw error;
    }
    await fsyncDir(parentDir);
    return `${parent}/${name}`;
  }
  throw new Error(`Could not find a free folder name for ${JSON.stringify(desiredName)}`);
}
