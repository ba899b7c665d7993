/**
 * The base a pull of a new document (row 1) commits, read back from the folder it built: used
 * when a crash came between the folder's appearance and the commit (engine/settle-pulls.ts).
 * Pure: the document as the pull read it, and the folder as a scan sees it now.
 */
import { baseFromDocument } from './apply-action-result.js';
import type { BaseDocument, LocalDocumentSnapshot, LocalFile, RemoteDocument } from './types.js';

/**
 * The document's name, date, status and change time are the pull's (a status typed into the
 * folder since is then the person's edit against it); an attachment is agreed where its file
 * still holds the bytes `.document.json` records for it. A file changed or removed since is left
 * out, as row 5 leaves it out, and the planner reads it as the folder's own change. Null when
 * the folder does not name the document.
 */
export function pulledBase(
  document: RemoteDocument,
  folder: LocalDocumentSnapshot,
): BaseDocument | null {
  if (folder.meta?.id !== document.id) return null;
  const files = new Map(folder.files.map((f) => [f.name, f]));
  const written = new Map<string, LocalFile>();
  for (const recorded of folder.meta.attachments) {
    const file = files.get(recorded.file);
    if (file && file.sha256 === recorded.sha256) written.set(recorded.id, file);
  }
  return baseFromDocument(document, folder.folder, written);
}
