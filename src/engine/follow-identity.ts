/**
 * A push made from a new folder (a create) or a new file (an upload) follows what it was made
 * from by its identity on disk, not by its name (docs/syncing.md, "A new folder renamed while it
 * is created"): a person may rename it while the service works on the request, or while the
 * push is in doubt after a crash. The identity is recorded with the push before its request
 * leaves; the answer is then written where the folder or file is now, so it settles that push
 * and no second one is made for the new name.
 */
import path from 'node:path';
import { LocalChangedError } from '../domain/errors.js';
import type { EntryIdentity } from '../domain/types.js';
import type { EngineDeps } from './engine-deps.js';

type Local = Pick<EngineDeps, 'local'>;

/** A folder or file moves more than this while its answer is written: it waits for a later sync. */
const LINK_TRIES = 3;

/**
 * How deep in its entity folder a document folder is looked for: moved into `Archive/2024/`,
 * say. Found there, it is linked, and the next sync reports it as a document folder moved out of
 * place (decision row 51), as it would any other.
 */
const ENTITY_DEPTH = 4;

/**
 * The identity of the folder or file a push is about to be made from (null on a file system
 * without inodes). Gone since the scan: LocalChangedError, and the document is planned again
 * from what is there now.
 */
export async function identityForPush(deps: Local, relPath: string): Promise<EntryIdentity | null> {
  try {
    return await deps.local.identityOf(relPath);
  } catch (error) {
    if (isGone(error)) throw new LocalChangedError(relPath);
    throw error;
  }
}

/**
 * Where the entry with `identity` is now: `relPath` while that is still it, else the entry under
 * one of `parents` (to `depth` levels) that is; null when none is (moved elsewhere, or removed).
 */
async function whereNow(
  deps: Local,
  relPath: string,
  identity: EntryIdentity,
  parents: readonly string[],
  depth: number,
): Promise<string | null> {
  const here = await deps.local.identityOf(relPath).catch((error: unknown) => {
    if (isGone(error)) return null;
    throw error;
  });
  if (here === identity) return relPath;
  for (const parent of new Set(parents)) {
    const found = await deps.local
      .findByIdentity(parent, identity, depth)
      .catch((error: unknown) => {
        if (isGone(error)) return null;
        throw error;
      });
    if (found !== null) return found;
  }
  return null;
}

/**
 * Writes the created document's `.document.json` (`write`, which checks the folder is still the
 * one with the identity it is given) into its folder, wherever a person moved it within
 * `parents` (its entity folder): returns the folder written. A folder moved again between the
 * look and the write is looked for again. Null when it is nowhere now: the create stays
 * recorded, and a later sync links it once the folder is back.
 */
export async function linkCreatedFolder(
  deps: Local,
  folder: string,
  identity: EntryIdentity | null,
  parents: readonly string[],
  write: (folder: string, sameAs: EntryIdentity | null) => Promise<void>,
): Promise<string | null> {
  let at = folder;
  for (let tries = 0; identity !== null && tries < LINK_TRIES; tries += 1) {
    const now = await whereNow(deps, at, identity, parents, ENTITY_DEPTH);
    if (now === null) break;
    try {
      await write(now, identity);
      return now;
    } catch (error) {
      if (!(error instanceof LocalChangedError && error.path === now) && !isGone(error))
        throw error;
      at = now;
    }
  }
  // No folder has the identity (or the store has none): an identity need not survive a share
  // mounted again (a new device number), so a folder still under the planned name is taken as
  // the one, as on a store without identities. Gone from there too, it is nowhere.
  if (!(await exists(deps, folder))) return null;
  await write(folder, null);
  return folder;
}

/**
 * The name an uploaded file has in `folder` now: `name` while that is still it, else the name
 * of the file there with its identity (a person renamed it during the upload); `name` when it
 * is there no more, which the next plan reads as the file deleted.
 */
export async function fileNameNow(
  deps: Local,
  folder: string,
  name: string,
  identity: EntryIdentity | null | undefined,
): Promise<string> {
  if (!identity) return name;
  const found = await whereNow(deps, `${folder}/${name}`, identity, [folder], 1);
  return found === null ? name : path.posix.basename(found);
}

async function exists(deps: Local, relPath: string): Promise<boolean> {
  try {
    await deps.local.identityOf(relPath);
    return true;
  } catch (error) {
    if (isGone(error)) return false;
    throw error;
  }
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
