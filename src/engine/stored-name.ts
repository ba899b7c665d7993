/**
 * The name the service stored an upload under, against the name docsync sent. A service that
 * decodes the multipart file name in another charset (latin1 makes `Résumé.pdf` into
 * `RÃ©sumÃ©.pdf`), or cleans it, keeps the bytes under a name the firm's users will not
 * recognise. docsync knows the attachment by its id, so the file in the folder keeps its name
 * and nothing is uploaded again; the difference is said once, when the upload's answer shows it.
 */
import type { Logger } from '../log/create-logger.js';

export function noteStoredName(
  logger: Logger,
  /** The document's folder, relative to the root (the entity's folder first). */
  where: { readonly folder: string; readonly documentId: string },
  sent: string,
  stored: { readonly id: string; readonly name: string },
): void {
  if (sent.normalize('NFC') === stored.name.normalize('NFC')) return;
  logger.warn(
    { documentId: where.documentId, attachmentId: stored.id, sent, stored: stored.name },
    `${where.folder}: uploaded ${JSON.stringify(sent)}, but the service stored it as ${JSON.stringify(stored.name)}; the folder keeps ${JSON.stringify(sent)}, and both name the same attachment`,
  );
}
