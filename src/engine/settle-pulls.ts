/**
 * Settles pulls of new documents a crash left in doubt (state: `pulls_in_doubt`), before an
 * entity's plan: the new folder is built whole and appears in one rename, then the document's
 * base is committed, so a crash in between leaves a folder naming a document the base does not
 * know. Found, the pull happened: its base is committed from the folder (domain/pulled-base.ts)
 * and the plan judges what changed since on either side by the ordinary rows (a service user's
 * delete: row 11 or 12). Without it, a document the service deleted meanwhile left that folder
 * reading as one from elsewhere (row 6): never synced, for ever. Not found, the pull never
 * placed anything, and the record goes.
 */
import { pulledBase } from '../domain/pulled-base.js';
import type { BaseDocument, LocalEntitySnapshot, OwnerRef } from '../domain/types.js';
import { commitAgreed } from './commit-agreed.js';
import type { EngineDeps } from './engine-deps.js';

/**
 * Returns `base` with the bases of the pulls settled; with `commit` false (a dry run) they are
 * only planned with, and the state is left as it was.
 */
export async function settlePulls(
  deps: EngineDeps,
  owner: OwnerRef,
  base: ReadonlyMap<string, BaseDocument>,
  snapshot: LocalEntitySnapshot,
  commit = true,
): Promise<ReadonlyMap<string, BaseDocument>> {
  // No entity folder (row 50): nothing can be told yet, and the records wait for it.
  if (snapshot.folder === null) return base;
  const pulls = deps.state.pullsInDoubt.forOwner(owner);
  if (pulls.length === 0) return base;
  const settled = new Map(base);
  for (const document of pulls) {
    const folders = snapshot.documents.filter((d) => d.meta?.id === document.id);
    // None, or a base already agreed: the record is all that is left of the pull. Two (a
    // person's copy beside it): which one the pull built cannot be told, and both are judged
    // as any folder naming a document the base does not know (rows 5, 6).
    const made =
      !base.has(document.id) && folders[0] !== undefined ? pulledBase(document, folders[0]) : null;
    if (made === null || folders.length > 1) {
      if (commit) deps.state.pullsInDoubt.forget(document.id);
      continue;
    }
    settled.set(document.id, made);
    if (!commit) continue;
    await commitAgreed(
      deps,
      { put: [made] },
      {
        owner,
        documentId: document.id,
        what: 'pull-new-document settled',
      },
    );
    deps.logger.info(
      { owner, document: document.id, folder: made.folder },
      `${made.folder}: pulled before a stop, now recorded as agreed`,
    );
  }
  return settled;
}
