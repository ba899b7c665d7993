/**
 * The sha256 of an attachment as the service holds it, by downloading it to a scratch file that
 * is removed at once. The service tells an attachment's name and day, never its bytes' digest,
 * so telling two attachments of one name apart costs a download: done only where a wrong guess
 * would merge two versions (a name clash, a push left in doubt), which is rare.
 */
import type { OwnerRef } from '../domain/types.js';
import type { EngineDeps } from './engine-deps.js';

export async function attachmentSha256(
  deps: Pick<EngineDeps, 'remote' | 'local'>,
  owner: OwnerRef,
  documentId: string,
  attachmentId: string,
): Promise<string> {
  return deps.local.withScratchFile(
    async (scratch) =>
      (await deps.remote.downloadAttachment(owner, documentId, attachmentId, scratch)).sha256,
  );
}
