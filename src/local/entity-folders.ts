/**
 * The folders under `Companies/` and `Trusts/`. An entity folder is known by the id in its
 * `.entity.json`, never by its name: a user may rename it, and docsync then keeps using it
 * rather than creating a second one.
 */
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { entityFolderName } from '../domain/local-folder-names.js';
import type { Entity, OwnerRef, SkippedEntry } from '../domain/types.js';
import { writeFileAtomic } from './atomic-write.js';
import { isIgnored } from './ignore.js';
import {
  ENTITY_META,
  ENTITY_ROOTS,
  type LocalEntityFolder,
  MARKER_FILE,
  SHORTCUT_FILE,
  STATE_DIR,
} from './local-store.js';
import { formatEntityMeta, formatShortcut, parseEntityMeta } from './metadata-files.js';
import { resolveInside } from './resolve-inside.js';
import { undecodableNames } from './scan.js';
import { escapeControls, SKIP_REASONS, specialKind } from './skip-rules.js';
import { createFolderAtomically, type StageOptions } from './staged-folder.js';

export async function listEntityFolders(
  root: string,
  ignore: readonly string[],
): Promise<LocalEntityFolder[]> {
  const found: LocalEntityFolder[] = [];
  for (const entry of await entityRootEntries(root, ignore)) {
    if (entry.listed) found.push(await readEntityFolder(root, entry.folder));
  }
  return found;
}

/** The entity folders' paths (`Companies/Acme …`), from the listings alone: no file is read. */
export async function entityFolderPaths(
  root: string,
  ignore: readonly string[],
): Promise<string[]> {
  return (await entityRootEntries(root, ignore)).filter((e) => e.listed).map((e) => e.folder);
}

/**
 * Entries above the entity folders that are not synced, each with its reason: under `Companies/`
 * and `Trusts/`, links (and those two folders themselves as links), special files, names that
 * are not UTF-8 and loose files; at the root, anything but docsync's own entries.
 */
export async function skippedEntityFolders(
  root: string,
  ignore: readonly string[],
): Promise<SkippedEntry[]> {
  const under = (await entityRootEntries(root, ignore)).flatMap((entry) => entry.skipped);
  return [...(await skippedAtRoot(root, ignore)), ...under];
}

/** What the root holds besides the marker, `.docsync/`, `Companies/` and `Trusts/`. */
const ROOT_ENTRIES: ReadonlySet<string> = new Set([
  MARKER_FILE,
  STATE_DIR,
  ...Object.values(ENTITY_ROOTS),
]);

async function skippedAtRoot(root: string, ignore: readonly string[]): Promise<SkippedEntry[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const skipped: SkippedEntry[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (ROOT_ENTRIES.has(entry.name) || isIgnored(entry.name, ignore)) continue;
    const reason = entry.isFile()
      ? SKIP_REASONS.loose('root')
      : entry.isDirectory()
        ? SKIP_REASONS.outsideFolder
        : entry.isSymbolicLink()
          ? SKIP_REASONS.link('folder')
          : SKIP_REASONS.special(specialKind(entry));
    const names = undecodableNames(root, [entry.name]).get(entry.name) ?? [
      escapeControls(entry.name),
    ];
    for (const name of names) skipped.push({ path: name, reason });
  }
  return skipped;
}

interface EntityRootEntry {
  /** e.g. `Companies/Acme Pty Ltd (123 456 789)`. */
  readonly folder: string;
  /**
   * A real folder whose name opens. A name that is not UTF-8 opens nothing, and a link is never
   * followed: listed, either could be matched to an entity and written into.
   */
  readonly listed: boolean;
  /** Why it is not synced; empty for a listed folder. */
  readonly skipped: readonly SkippedEntry[];
}

/** Every entry under `Companies/` and `Trusts/` that the ignore list leaves, sorted by name. */
async function entityRootEntries(
  root: string,
  ignore: readonly string[],
): Promise<EntityRootEntry[]> {
  const found: EntityRootEntry[] = [];
  for (const top of Object.values(ENTITY_ROOTS)) {
    const dir = resolveInside(root, top);
    if ((await lstat(dir).catch(() => null))?.isSymbolicLink()) {
      const skipped = [{ path: top, reason: SKIP_REASONS.link('folder') }];
      found.push({ folder: top, listed: false, skipped });
      continue;
    }
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const undecodable = undecodableNames(
      dir,
      entries.map((e) => e.name),
    );
    const seen = new Set<string>();
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const folder = `${top}/${entry.name}`;
      if (seen.has(entry.name) || isIgnored(folder, ignore)) continue;
      seen.add(entry.name);
      const shown = undecodable.get(entry.name);
      const reason = entry.isFile()
        ? SKIP_REASONS.loose('top')
        : shown
          ? SKIP_REASONS.notUtf8
          : entry.isSymbolicLink()
            ? SKIP_REASONS.link('folder')
            : entry.isDirectory()
              ? null
              : SKIP_REASONS.special(specialKind(entry));
      const names = reason === null ? [] : (shown ?? [escapeControls(entry.name)]);
      const skipped = names.map((name) => ({ path: `${top}/${name}`, reason: reason! }));
      found.push({ folder, listed: entry.isDirectory() && !shown, skipped });
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

/** See LocalStore.ensureEntityFolder. */
export async function ensureEntityFolder(
  options: StageOptions,
  entity: Entity,
  link: string,
  known?: string | null,
  claimed: readonly string[] = [],
): Promise<string> {
  const files = {
    [ENTITY_META]: formatEntityMeta(entity, link),
    [SHORTCUT_FILE]: formatShortcut(link),
  };
  // Searching reads every entity's `.entity.json`: once per entity of a firm, that was n² reads.
  const existing =
    (known !== undefined ? known : await findEntityFolder(options.root, options.ignore, entity)) ??
    (await madeAlready(options.root, entity));
  if (existing === null) {
    const top = ENTITY_ROOTS[entity.kind];
    const names = claimed
      .filter((f) => f.startsWith(`${top}/`))
      .map((f) => f.slice(top.length + 1));
    return createFolderAtomically(options, top, entityFolderName(entity), files, names);
  }
  for (const [name, content] of Object.entries(files)) {
    await writeIfChanged(options, `${existing}/${name}`, content);
  }
  return existing;
}

/**
 * The folder docsync would make for the entity, when it is there already and its `.entity.json`
 * names the entity: made by an earlier call whose record was not kept (a crash, a listing taken
 * before it). Making the folder again would put a `… (2)` twin beside it, so making an entity
 * folder is idempotent.
 */
async function madeAlready(root: string, entity: Entity): Promise<string | null> {
  const folder = `${ENTITY_ROOTS[entity.kind]}/${entityFolderName(entity)}`;
  // A link there is never followed (nor taken for the folder), as the listing does not.
  const stats = await lstat(resolveInside(root, folder)).catch(() => null);
  if (!stats?.isDirectory()) return null;
  const found = await readEntityFolder(root, folder);
  return found.owner?.kind === entity.kind && found.owner.id === entity.id ? folder : null;
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
