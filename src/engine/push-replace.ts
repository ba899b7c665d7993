/**
 * New content for a user attachment (row 31; daemon.md: "upload of the new content, then delete
 * of the old attachment"). Two requests, one outbox entry: the upload's answer is written into
 * the entry before the old attachment is touched, so a crash between the two resumes at the
 * second step (resolve-in-doubt.ts calls `finishReplace`) instead of leaving both versions in
 * the service, where the old one would come back to the folder as `name (2).ext`. The base
 * changes once, when both steps are done, in the commit that marks the entry done.
 */
import { applyActionResult } from '../domain/apply-action-result.js';
import type { BaseDocument, LocalFile, RemoteAttachment } from '../domain/types.js';
import type { PushPayload } from '../state/outbox-payloads.js';
import { commitAgreed, pushCompleted } from './commit-agreed.js';
import type { EngineDeps } from './engine-deps.js';
import type { EntityLease } from './entity-locks.js';
import { closeSupersededPushes, isGone, openPush, sendPush, sentFile } from './push.js';
import { actionOfPush } from './push-actions.js';
import { saveAttachmentCopy } from './save-service-copy.js';
import { noteStoredName } from './stored-name.js';

type ReplacePayload = PushPayload<'replace-attachment'>;

export async function pushReplace(
  deps: EngineDeps,
  lease: EntityLease,
  base: BaseDocument,
  folder: string,
  file: LocalFile,
  replacesAttachmentId: string,
): Promise<BaseDocument> {
  const { outbox } = deps.state;
  const payload: ReplacePayload = {
    fileName: file.name,
    sha256: file.sha256,
    size: file.size,
    mtimeMs: file.mtimeMs,
    replacesAttachmentId,
  };
  const id = openPush(deps, {
    kind: 'replace-attachment',
    owner: base.owner,
    documentId: base.id,
    payload,
  });
  const source = deps.local.uploadSource(`${folder}/${file.name}`, file);
  const uploaded = await sendPush(deps, id, () =>
    deps.remote.uploadAttachment(base.owner, base.id, source, file.name),
  );
  noteStoredName(deps.logger, { folder, documentId: base.id }, file.name, uploaded);
  // From here on the entry describes the bytes sent, which the base takes when both steps are done.
  const { sha256, size, mtimeMs } = sentFile(source);
  const halfway = { ...payload, sha256, size, mtimeMs, uploaded };
  outbox.markStep(id, 'replace-attachment', halfway, deps.now());
  const site = deps.failpoint && { owner: base.owner, documentId: base.id, what: file.name };
  if (site) await deps.failpoint?.('between-upload-and-delete', site);
  const next = await finishReplace(deps, base, halfway);
  await commitAgreed(deps, lease, pushCompleted(id, { base: next, result: { id: uploaded.id } }), {
    owner: base.owner,
    documentId: base.id,
    what: `replace-attachment ${file.name}`,
  });
  closeSupersededPushes(deps, base.id, file.name);
  return next;
}

/**
 * The second step, once the new content is up: the service's copy of the old attachment goes to
 * the trash, then the attachment itself (already gone counts as done). Returns the new base.
 * A failure leaves the entry in doubt, to be finished by the next cycle's settlement.
 */
export async function finishReplace(
  deps: Pick<EngineDeps, 'local' | 'remote'>,
  base: BaseDocument,
  payload: ReplacePayload & { readonly uploaded: RemoteAttachment },
): Promise<BaseDocument> {
  await saveAttachmentCopy(deps, base, payload.replacesAttachmentId);
  await deps.remote
    .deleteAttachment(base.owner, base.id, payload.replacesAttachmentId)
    .catch((error: unknown) => {
      if (!isGone(error)) throw error;
    });
  const replaced = actionOfPush(
    { kind: 'replace-attachment', payload, owner: base.owner, documentId: base.id },
    base,
  );
  return applyActionResult(base, replaced, {
    kind: 'attachment-created',
    attachment: payload.uploaded,
  })!;
}
