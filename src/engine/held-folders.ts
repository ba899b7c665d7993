/**
 * Local document folders the first sync held back (pull-only: they matched nothing in the
 * service). They are kept in the state's unmatched-folder list, which `docsync status` shows,
 * and stay held in every later cycle until a run with --adopt-local uploads them. Entity-level
 * rows of that list (written by refresh-entities) live beside them and are left alone.
 */

import type { UnmatchedFolder } from '../state/entity-repo.js';
import type { EngineState } from './engine-state.js';

/** `Companies/<entity>/<document>`: three segments or more. */
export const isDocumentFolder = (folder: string) => folder.split('/').length >= 3;

export const HELD_REASON =
  'held at the first sync: nothing in the service matches it; run `docsync run --once --adopt-local` to upload it';

export function heldFolders(state: Pick<EngineState, 'entities'>): Set<string> {
  return new Set(
    state.entities
      .listUnmatchedFolders()
      .filter((f) => isDocumentFolder(f.folder))
      .map((f) => f.folder),
  );
}

/**
 * Replaces the held rows of the entity folders a cycle covered with what it held this time
 * (a held folder the user removed, or one just adopted, drops out).
 */
export function recordHeldFolders(
  state: EngineState,
  coveredEntityFolders: readonly string[],
  held: readonly string[],
  now: number,
): void {
  const covered = (folder: string) =>
    coveredEntityFolders.some((entity) => folder.startsWith(`${entity}/`));
  const kept = state.entities
    .listUnmatchedFolders()
    .filter((f) => !isDocumentFolder(f.folder) || !covered(f.folder));
  const added: UnmatchedFolder[] = held.map((folder) => ({
    folder,
    kind: folder.startsWith('Companies/') ? 'company' : 'trust',
    reason: HELD_REASON,
    seenAt: now,
  }));
  state.entities.replaceUnmatchedFolders([...kept, ...added]);
}
