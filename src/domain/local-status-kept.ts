/**
 * Row 29 of docs/sync-decision-table.md. `.document.json` is rewritten from the agreed state
 * (after a pull, a push, a timestamp learnt), and the one field a person edits there, `"status"`
 * (with its `"statusDate"`), may hold an edit this run did not settle: a name the service has
 * no type for (row 25), an edit a first sync does not push. Such an edit is carried into every
 * rewrite, so it is never replaced silently; it goes only once the file shows it as agreed (it
 * was pushed, or the service chose the same), or when a conflict recorded it as the losing side
 * (row 24: the caller drops it then).
 */
import type { DocumentMeta } from './types.js';

/** The status a person typed into `.document.json`, as they typed it. */
export interface LocalStatusEdit {
  readonly status: string | null;
  readonly statusDate: string | null;
}

const sameName = (a: string | null, b: string | null) =>
  (a ?? '').trim().toUpperCase() === (b ?? '').trim().toUpperCase();

/**
 * The status `found` shows, when it is not `agreed` (the name of the agreed status type, null
 * for none): letter case, spaces and a date edited alone are no edit (row 28 shows the agreed
 * status again). Null when there is no edit.
 */
export function localStatusEdit(
  found: DocumentMeta | null,
  agreed: string | null,
): LocalStatusEdit | null {
  if (found === null || sameName(found.status, agreed)) return null;
  return { status: found.status, statusDate: found.statusDate };
}

/** `written` with the edit kept in it, unless `written` shows that status already. */
export function keepLocalStatus(written: DocumentMeta, edit: LocalStatusEdit | null): DocumentMeta {
  if (edit === null || sameName(written.status, edit.status)) return written;
  return { ...written, status: edit.status, statusDate: edit.statusDate };
}
