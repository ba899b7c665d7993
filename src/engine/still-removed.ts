/**
 * The folder's side of the last look before a delete is sent to the service (the service's side
 * is save-service-copy.ts). A delete is planned from a scan and carried out seconds or minutes
 * later: after its hold time, after a person's approval, after the service's copy was saved to
 * the trash (large PDFs on a slow link). Putting the folder back at any moment up to the request
 * cancels the delete (docs/deletes.md), so the folder is looked for again, by the identity
 * docsync wrote into it, anywhere in its entity folder: it may come back under another name.
 * What no look can close is a folder put back after the request left; that one is created again
 * in the service from the folder (row 19).
 */
import { PutBackError } from '../domain/errors.js';
import type { ActionContext } from './execute-action.js';

/**
 * Throws PutBackError when the document's folder is in its entity folder again. Asked too
 * before a document whose folder was deleted is downloaded again (`restore`, rows 9 and 53): a
 * folder put back since the plan would otherwise get the download beside it as ` (2)`, two
 * folders of one document.
 */
export async function checkFolderStillRemoved(
  ctx: ActionContext,
  documentId: string,
  lastFolder: string,
  undone: 'delete' | 'restore' = 'delete',
): Promise<void> {
  const back = await documentFolderNow(ctx, documentId, lastFolder);
  if (back !== null) throw new PutBackError(back, 'folder', undone);
}

/**
 * Throws PutBackError when the attachment's file is in its document folder again. A file put
 * back under another name is a new file, uploaded as one (row 40): nothing is lost either way.
 */
export async function checkFileStillRemoved(
  ctx: ActionContext,
  documentId: string,
  lastFolder: string,
  file: string,
): Promise<void> {
  const folder = await documentFolderNow(ctx, documentId, lastFolder);
  if (folder === null) return;
  const path = `${folder}/${file}`;
  if ((await ctx.deps.local.lookAt(path)).kind !== 'absent') throw new PutBackError(path, 'file');
}

/**
 * Where the document's folder is now: at its last path (whatever is there, the next plan
 * judges), else wherever a `.document.json` (or a folder's `[id]`) in the entity folder names
 * it. A `.document.json` there that cannot be read may be this folder's, half copied back:
 * unsure means hold (row 18). Null: still gone.
 */
async function documentFolderNow(
  ctx: ActionContext,
  documentId: string,
  lastFolder: string,
): Promise<string | null> {
  const { local } = ctx.deps;
  if ((await local.lookAt(lastFolder)).kind !== 'absent') return lastFolder;
  const under = ctx.entityFolder === '' ? undefined : ctx.entityFolder;
  const { found, unreadable } = await local.locateDocuments(new Set([documentId]), under);
  return found.get(documentId) ?? unreadable[0] ?? null;
}
