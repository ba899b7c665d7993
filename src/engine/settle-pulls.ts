/**
 * Settles pulls a crash left in doubt (state: `pulls_in_doubt`), before an entity's plan: the
 * folder is built whole and appears in one rename, then the document's base is committed, so a
 * crash in between leaves a folder naming a document the base does not know (a new document,
 * row 1), or one the base still calls deleted (a folder a person deleted, built again because
 * the service changed the document: rows 9 and 53). Found, the pull happened: its base is
 * committed from the folder (domain/pulled-base.ts), with the conflict the pull was to record
 * (row 9: why the person's deleted folder is back), and the plan judges what changed since on
 * either side by the ordinary rows (a service user's delete: row 11 or 12). Without it, a
 * document the service deleted meanwhile left that folder reading as one from elsewhere (row 6):
 * never synced, for ever; and a folder built again was back with nothing to say why. Not found,
 * the pull never placed anything (or the person deleted its folder again, which the plan then
 * sees), and the record goes.
 */
import { pulledBase } from '../domain/pulled-base.js';
import type {
  BaseDocument,
  LocalDocumentSnapshot,
  LocalEntitySnapshot,
  OwnerRef,
} from '../domain/types.js';
import type { PullInDoubt } from '../state/pull-in-doubt-repo.js';
import { commitAgreed } from './commit-agreed.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityLease } from './entity-locks.js';
import { keptConflictRecord } from './record-conflict.js';

/**
 * Returns `base` with the bases of the pulls settled, committed under `lease`, the entity's; with
 * no lease (a dry run) they are only planned with, and the state is left as it was.
 */
export async function settlePulls(
  deps: EngineDeps,
  owner: OwnerRef,
  base: ReadonlyMap<string, BaseDocument>,
  snapshot: LocalEntitySnapshot,
  lease: EntityLease | null,
): Promise<ReadonlyMap<string, BaseDocument>> {
  // No entity folder (row 50): nothing can be told yet, and the records wait for it.
  if (snapshot.folder === null) return base;
  const pulls = deps.state.pullsInDoubt.forOwner(owner);
  if (pulls.length === 0) return base;
  const settled = new Map(base);
  for (const pull of pulls) {
    const { document } = pull;
    const made = placedBy(pull, base, snapshot);
    if (made === null) {
      if (lease) deps.state.pullsInDoubt.forget(document.id);
      continue;
    }
    settled.set(document.id, made);
    if (!lease) continue;
    const conflict =
      pull.conflict &&
      keptConflictRecord(owner, document.id, made.folder, pull.conflict, deps.now());
    await commitAgreed(
      deps,
      lease,
      { put: [made], ...(conflict ? { conflict } : {}) },
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

/**
 * The base the pull would have committed, read from the folder it placed; null when no folder
 * can be told to be the pull's. Two naming the document (a person's copy beside it): which one
 * the pull built cannot be told, and both are judged as any folder naming a document the base
 * does not know (rows 5, 6). A document the base knows was being built again over a person's
 * delete: only a folder of the document as the pull read it is the pull's, not the person's own
 * put back from their bin (older, which the plan judges as it stands).
 */
function placedBy(
  { document }: PullInDoubt,
  base: ReadonlyMap<string, BaseDocument>,
  snapshot: LocalEntitySnapshot,
): BaseDocument | null {
  const folders = snapshot.documents.filter((d) => d.meta?.id === document.id);
  const [folder] = folders;
  if (folder === undefined || folders.length > 1) return null;
  if (base.has(document.id) && !sameVersion(folder, document.lastUpdatedTimestamp)) return null;
  return pulledBase(document, folder);
}

function sameVersion(folder: LocalDocumentSnapshot, lastUpdatedTimestamp: string): boolean {
  return folder.meta?.lastUpdatedTimestamp === lastUpdatedTimestamp;
}
