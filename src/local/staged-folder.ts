/**
 * A new folder appears whole or not at all: it is built in `.docsync/tmp/`, its files made
 * durable, then renamed into place under a free name. A crash leaves at most a staging folder in
 * tmp/ (swept later), never a folder without its `.entity.json` or `.document.json`, which would
 * be taken for a folder a user created.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pickFreeName } from '../domain/local-names.js';
import { fsyncDir, writeFileAtomic } from './atomic-write.js';
import { isIgnored } from './ignore.js';
import { TMP_DIR } from './local-store.js';
import type { OwnWrites } from './own-writes.js';
import { resolveInside } from './resolve-inside.js';

export interface StageOptions {
  readonly root: string;
  readonly ignore: readonly string[];
  readonly ownWrites: OwnWrites;
}

/** Creates `parent/<free name>` holding `files`; returns the new folder's relative path. */
export async function createFolderAtomically(
  options: StageOptions,
  parent: string,
  desiredName: string,
  files: Readonly<Record<string, string>>,
): Promise<string> {
  const tmpDir = resolveInside(options.root, TMP_DIR);
  const staging = path.join(tmpDir, `${randomUUID()}.dir`);
  await mkdir(staging, { recursive: true });
  const parentDir = resolveInside(options.root, parent);
  await mkdir(parentDir, { recursive: true });
  try {
    for (const [name, content] of Object.entries(files)) {
      await writeFileAtomic(tmpDir, path.join(staging, name), content);
    }
    await fsyncDir(staging);
    return await renameIntoPlace(options, staging, parent, desiredName, files);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

async function renameIntoPlace(
  options: StageOptions,
  staging: string,
  parent: string,
  desiredName: string,
  files: Readonly<Record<string, string>>,
): Promise<string> {
  const parentDir = resolveInside(options.root, parent);
  const avoid = (name: string) => isIgnored(`${parent}/${name}`, options.ignore);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const name = pickFreeName(desiredName, await readdir(parentDir), { kind: 'folder', avoid });
    const target = resolveInside(options.root, `${parent}/${name}`);
    // Recorded before the rename, from the staged copies (a rename keeps size and mtime): the
    // watcher may hear of the new folder before this function gets control back.
    options.ownWrites.recordDir(target);
    for (const file of Object.keys(files)) {
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
