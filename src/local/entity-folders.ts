/**
 * The folders under `Companies/` and `Trusts/`. An entity folder is known by the id in its
 * `.entity.json`, never by its name: a user may rename it, and docsync then keeps using it
 * rather than creating a second one.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { companyFolderName, trustFolderName } from '../domain/local-folder-names.js';
import type { Entity, OwnerRef } from '../domain/types.js';
import { writeFileAtomic } from './atomic-write.js';
import { isIgnored } from './ignore.js';
import { ENTITY_META, ENTITY_ROOTS, type LocalEntityFolder, SHORTCUT_FILE } from './local-store.js';
import { formatEntityMeta, formatShortcut, parseEntityMeta } from './metadata-files.js';
import { resolveInside } from './resolve-inside.js';
import { createFolderAtomically, type StageOptions } from './staged-folder.js';

export async function listEntityFolders(
  root: string,
  ignore: readonly string[],
): Promise<LocalEntityFolder[]> {
  const found: LocalEntityFolder[] = [];
  for (const top of Object.values(ENTITY_ROOTS)) {
    const entries = await readdir(resolveInside(root, top), { withFileTypes: true }).catch(
      () => [],
    );
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!entry.isDirectory() || isIgnored(`${top}/${entry.name}`, ignore)) continue;
      found.push(await readEntityFolder(root, `${top}/${entry.name}`));
    }
  }
  return found;
}

async function readEntityFolder(root: string, folder: string): Promise<LocalEntityFolder> {
  let text: string;
  try {
    text = await readFile(resolveInside(root, `${folder}/${ENTITY_META}`), 'utf8');
  } catch {
    return { folder, owner: null, entity: null };
  }
  const parsed = parseEntityMeta(text);
  if (!parsed.ok) return { folder, owner: null, entity: null, metaError: parsed.error };
  return { folder, owner: parsed.value.owner, entity: parsed.value.entity };
}

/** The folder of `owner` by the id in `.entity.json`, or null. */
export async function findEntityFolder(
  root: string,
  ignore: readonly string[],
  owner: OwnerRef,
): Promise<string | null> {
  const folders = await listEntityFolders(root, ignore);
  const match = folders.find((f) => f.owner?.kind === owner.kind && f.owner.id === owner.id);
  return match?.folder ?? null;
}

export function entityFolderName(entity: Entity): string {
  return entity.kind === 'company'
    ? companyFolderName(entity.name, entity.number)
    : trustFolderName(entity.name, entity.abn);
}

/** See LocalStore.ensureEntityFolder. */
export async function ensureEntityFolder(
  options: StageOptions,
  entity: Entity,
  link: string,
  known?: string | null,
): Promise<string> {
  const files = {
    [ENTITY_META]: formatEntityMeta(entity, link),
    [SHORTCUT_FILE]: formatShortcut(link),
  };
  // Searching reads every entity's `.entity.json`: once per entity of a firm, that was n² reads.
  const existing =
    known !== undefined ? known : await findEntityFolder(options.root, options.ignore, entity);
  if (existing === null) {
    const top = ENTITY_ROOTS[entity.kind];
    return createFolderAtomically(options, top, entityFolderName(entity), files);
  }
  for (const [name, content] of Object.entries(files)) {
    await writeIfChanged(options, `${existing}/${name}`, content);
  }
  return existing;
}

/** Rewrites one of our own files only when its content differs, to spare the watcher. */
async function writeIfChanged(options: StageOptions, relPath: string, content: string) {
  const target = resolveInside(options.root, relPath);
  const current = await readFile(target, 'utf8').catch(() => null);
  if (current === content) return;
  await writeFileAtomic(options.root, target, content, {
    beforeRename: async (temp) => options.ownWrites.recordFile(target, await stat(temp)),
  });
}
