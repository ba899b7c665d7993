/**
 * The base a pull of a new document (row 1) commits, read back from the folder it built: used
 * when a crash came between the folder's appearance and the commit (engine/settle-pulls.ts).
 * Pure: the document as the pull read it, and the folder as a scan sees it now.
 */
import { baseFromDocument } from './apply-action-result.js';
import type { BaseDocument, LocalDocumentSnapshot, LocalFile, RemoteDocument } from './types.js';

/**
 * The document's name, date, status and change time are the pull's (a status typed into the
 * folder since is then the person's edit against it). Every attachment `.document.json` records
 * is agreed with the bytes it records: the folder appeared whole, so the pull placed each one.
 * A file changed or removed since is then the person's edit, judged by the ordinary rows (31,
 * 32; 35, 36 for a system form), as it would be had the commit been made. Left out of the base,
 * it would read as never placed: the service's copy unchanged since the pull, no row would look
 * at it again (a delete never sent), and a changed file would go up as a new attachment beside
 * the one it replaced. Null when the folder does not name the document.
 */
export function pulledBase(
  document: RemoteDocument,
  folder: LocalDocumentSnapshot,
): BaseDocument | null {
  if (folder.meta?.id !== document.id) return null;
  const files = new Map(folder.files.map((f) => [f.name, f]));
  const placed = new Map<string, LocalFile>();
  for (const recorded of folder.meta.attachments) {
    const file = files.get(recorded.file);
    placed.set(
      recorded.id,
      file?.sha256 === recorded.sha256
        ? file
        : // The placed file's size and time are gone with its bytes; no row plans by them.
          { name: recorded.file, sha256: recorded.sha256, size: 0, mtimeMs: 0 },
    );
  }
  return baseFromDocument(document, folder.folder, placed);
}
