/**
 * Entries of "Not synced" that are notes, not problems: a folder renamed here (its contents sync,
 * its name cannot), and docsync's own copy of an edited system form (it stays local on purpose).
 * They are listed so nothing goes unsaid, but nobody has to act on them, so the status page's
 * "Needs attention" does not count them.
 */

/** A renamed folder (renamed-folders.ts). */
export function renamedReason(serviceName: string): string {
  return `renamed here; the service keeps '${serviceName}': a folder's name is not sent to the service, and docsync keeps syncing it by its id`;
}

/** docsync's kept edit of a system form (rows 35, 37). */
export function keptEditReason(systemFile: string): string {
  return `your edit of the system form ${JSON.stringify(systemFile)}, kept beside it; system forms are read-only in the service, so it stays here and is not uploaded`;
}

export const isRenameNote = (reason: string): boolean => reason.startsWith('renamed here;');

/** Whether a "Not synced" reason is a note (above) rather than something to act on. */
export function isNoteOnly(reason: string): boolean {
  return isRenameNote(reason) || reason.startsWith('your edit of the system form ');
}
