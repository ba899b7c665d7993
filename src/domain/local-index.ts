/**
 * Which local folder is which document. Folders are identified by the id in `.document.json`,
 * never by name (daemon.md), with two fallbacks for a folder whose `.document.json` is missing
 * or broken: the folder the base last saw the document in, and the `[id]` in the folder name.
 */
import { documentIdInFolderName } from './file-names.js';
import type { BaseDocument, LocalDocumentSnapshot, LocalEntitySnapshot } from './types.js';

export interface LocalIndex {
  /** Readable document folders by id (base documents and orphans alike). */
  readonly byId: ReadonlyMap<string, LocalDocumentSnapshot>;
  /** Folders of base documents whose `.document.json` is gone; the document is still there. */
  readonly metaMissing: ReadonlyMap<string, LocalDocumentSnapshot>;
  /** Folders whose `.document.json` is broken, by the document they most likely hold. */
  readonly unreadable: ReadonlyMap<string, LocalDocumentSnapshot>;
  /** Broken folders that cannot be tied to a document: every local deletion is held (row 18). */
  readonly unattributed: readonly LocalDocumentSnapshot[];
  /** Second folders claiming an id already claimed (a copied folder). */
  readonly duplicates: readonly LocalDocumentSnapshot[];
  /** Folders a user created: no `.document.json`, not tied to any base document. */
  readonly newFolders: readonly LocalDocumentSnapshot[];
}

function byFolderPath(a: LocalDocumentSnapshot, b: LocalDocumentSnapshot): number {
  return a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0;
}

function guessId(
  snap: LocalDocumentSnapshot,
  base: ReadonlyMap<string, BaseDocument>,
  baseByFolder: ReadonlyMap<string, string>,
): string | null {
  const tagged = documentIdInFolderName(snap.folder);
  return baseByFolder.get(snap.folder) ?? (tagged !== null && base.has(tagged) ? tagged : null);
}

export function indexLocal(
  base: ReadonlyMap<string, BaseDocument>,
  snapshot: LocalEntitySnapshot,
): LocalIndex {
  const baseByFolder = new Map([...base.values()].map((d) => [d.folder, d.id] as const));
  const byId = new Map<string, LocalDocumentSnapshot>();
  const duplicates: LocalDocumentSnapshot[] = [];
  const readable = snapshot.documents.filter((d) => d.meta !== null).sort(byFolderPath);
  // The folder the base knows wins a duplicate id, so a copy never displaces the original.
  readable.sort((a, b) => Number(baseByFolder.has(b.folder)) - Number(baseByFolder.has(a.folder)));
  for (const snap of readable) {
    const id = snap.meta?.id ?? '';
    if (byId.has(id)) duplicates.push(snap);
    else byId.set(id, snap);
  }
  const metaMissing = new Map<string, LocalDocumentSnapshot>();
  const unreadable = new Map<string, LocalDocumentSnapshot>();
  const unattributed: LocalDocumentSnapshot[] = [];
  const newFolders: LocalDocumentSnapshot[] = [];
  for (const snap of snapshot.documents.filter((d) => d.meta === null).sort(byFolderPath)) {
    const id = guessId(snap, base, baseByFolder);
    const free = id !== null && !byId.has(id);
    if (snap.metaError !== undefined) {
      if (free && !unreadable.has(id)) unreadable.set(id, snap);
      else unattributed.push(snap);
    } else if (free && !metaMissing.has(id)) {
      metaMissing.set(id, snap);
    } else {
      newFolders.push(snap);
    }
  }
  return { byId, metaMissing, unreadable, unattributed, duplicates, newFolders };
}

/**
 * Base documents the entity folder no longer holds in any form (no folder names them, none is
 * theirs by path or `[id]`): the ones to look for elsewhere in the store before anything reads
 * their absence as a deletion (rows 8, 51).
 */
export function missingDocuments(
  base: ReadonlyMap<string, BaseDocument>,
  snapshot: LocalEntitySnapshot,
): string[] {
  if (base.size === 0) return [];
  // The common case, every document in its folder, without building the index.
  const named = new Set(snapshot.documents.map((d) => d.meta?.id));
  if ([...base.keys()].every((id) => named.has(id))) return [];
  const index = indexLocal(base, snapshot);
  return [...base.keys()].filter(
    (id) => !index.byId.has(id) && !index.metaMissing.has(id) && !index.unreadable.has(id),
  );
}
