/**
 * Folders a user renamed. docsync knows a folder by the id in its
 * `.document.json` or `.entity.json`, so a renamed folder keeps syncing (row 15), but its new name
 * goes nowhere: the service has no way to take it, and keeps its own. That used to pass in
 * silence; now the folder is noted under "Not synced" ("renamed here; the service keeps 'Member
 * Statement'") from the sync that sees the rename, for as long as the name says something else
 * than the service's.
 *
 * A rename is seen when a folder is found under another path than the agreed one; from then on
 * the note is carried while the name differs (`noted`). A name the service changed is no rename
 * here: the folder keeps its old name, but no move was seen, so nothing is noted. Pure.
 */
import { renamedReason } from './folder-notes.js';
import { parseDocumentFolderName } from './local-folder-names.js';
import { toLocalName } from './local-names.js';
import type { OwnerRef, SkippedEntry } from './types.js';

export interface RenameInput {
  readonly owner: OwnerRef;
  /** The entity's name in the service. */
  readonly entityName: string;
  /** Where docsync last agreed the entity folder is, and where the scan found it. */
  readonly knownFolder: string | null;
  readonly folder: string | null;
  /** Agreed documents: their name in the service and their agreed folder. */
  readonly base: ReadonlyMap<string, { readonly name: string; readonly folder: string }>;
  /** The folders the scan found, with the document their `.document.json` names. */
  readonly documents: readonly {
    readonly folder: string;
    readonly meta: { readonly id: string; readonly owner: OwnerRef } | null;
  }[];
  /** Paths noted as renamed by an earlier sync. */
  readonly noted: ReadonlySet<string>;
}

export function renamedFolders(input: RenameInput): SkippedEntry[] {
  const notes: SkippedEntry[] = [];
  const { folder, knownFolder } = input;
  if (folder !== null) {
    const seen = (knownFolder !== null && folder !== knownFolder) || input.noted.has(folder);
    if (seen && !sameName(entityNameIn(folder), input.entityName))
      notes.push({ path: folder, reason: renamedReason(input.entityName) });
  }
  for (const doc of input.documents) {
    const meta = doc.meta;
    if (meta === null || meta.owner.kind !== input.owner.kind || meta.owner.id !== input.owner.id)
      continue;
    const agreed = input.base.get(meta.id);
    if (agreed === undefined) continue;
    const seen = doc.folder !== agreed.folder || input.noted.has(doc.folder);
    if (seen && !sameName(documentNameIn(doc.folder), agreed.name))
      notes.push({ path: doc.folder, reason: renamedReason(agreed.name) });
  }
  return notes;
}

const lastSegment = (path: string) => path.slice(path.lastIndexOf('/') + 1);
/** ` (2)`: the mark a clash of names gets. */
const CLASH = /\s+\(\d+\)$/u;

/** The name a document folder says: `2024-06-30 Minutes [123]` and `Minutes (2)` say Minutes. */
function documentNameIn(folder: string): string {
  const bare = lastSegment(folder)
    .replace(/\s*\[[^\]]*\]\s*$/u, '')
    .replace(CLASH, '');
  return parseDocumentFolderName(bare).name;
}

/** The name an entity folder says: `Acme Pty Ltd (123 456 789)` says Acme Pty Ltd. */
function entityNameIn(folder: string): string {
  return lastSegment(folder)
    .replace(CLASH, '')
    .replace(/\s*\([\d\s]+\)\s*$/u, '');
}

/** The same name once made legal for a folder, whatever the letter case. */
function sameName(here: string, service: string): boolean {
  const norm = (s: string) => s.normalize('NFC').trim().toLowerCase();
  return norm(here) === norm(toLocalName(service, 'folder'));
}
