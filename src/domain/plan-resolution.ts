/**
 * What resolving a conflict does (`docsync conflicts resolve`), planned from what the conflict
 * was about (sync-actions.ts, ConflictSubject) and who won. Pure: the operator's module carries
 * the steps out on the folder, and the next sync takes each side's change to the other through
 * the ordinary rows (docs/sync-decision-table.md), so both sides agree and nothing is lost:
 * whatever a step removes goes to `.docsync/trash/`, and what a sync then deletes in the
 * service is copied to the trash first.
 *
 * "Mine" is the folder's version, "theirs" the service's. The conflict copy holds the losing
 * version; keeping the winner drops the copy, keeping the loser puts the copy in the winner's
 * place, keeping both leaves both.
 */
import { assertNever } from './assert-never.js';
import type { ConflictSubject } from './sync-actions.js';

export type ConflictChoice = 'keep-mine' | 'keep-theirs' | 'keep-both';
export const CONFLICT_CHOICES: readonly ConflictChoice[] = [
  'keep-mine',
  'keep-theirs',
  'keep-both',
];

export interface ConflictToResolve {
  readonly winner: 'local' | 'remote';
  readonly subject: ConflictSubject;
  /** The document's folder now, relative to the root. */
  readonly folder: string;
  /** The conflict copy's name in that folder, for a conflict that kept one. */
  readonly copy: string | null;
}

/** One change to the folder; paths are relative to the root. */
export type ResolutionStep =
  /** Move to `.docsync/trash/`; `required`: refuse when it is not there. */
  | { readonly kind: 'trash'; readonly path: string; readonly required: boolean }
  /** Rename a file inside its folder (a free name if taken). */
  | { readonly kind: 'rename'; readonly path: string; readonly to: string }
  /** Set `"status"` in the folder's `.document.json`, which the next sync pushes (row 20). */
  | { readonly kind: 'set-status'; readonly folder: string; readonly status: string };

export type ResolutionPlan =
  | { readonly ok: true; readonly steps: readonly ResolutionStep[]; readonly next: string }
  | { readonly ok: false; readonly why: string };

const plan = (next: string, ...steps: ResolutionStep[]): ResolutionPlan => ({
  ok: true,
  steps,
  next,
});
const refuse = (why: string): ResolutionPlan => ({ ok: false, why });

export function planResolution(c: ConflictToResolve, choice: ConflictChoice): ResolutionPlan {
  const kept = choice === 'keep-mine' ? 'local' : choice === 'keep-theirs' ? 'remote' : 'both';
  const winnerKept = kept === c.winner;
  const copyPath = c.copy === null ? null : `${c.folder}/${c.copy}`;
  const s = c.subject;
  switch (s.kind) {
    case 'file': {
      if (kept === 'both' || copyPath === null)
        return plan('both versions stay, as two files on both sides');
      if (winnerKept)
        return plan(
          `${c.copy} goes to the trash; the next sync removes it from the service (its copy kept in the trash)`,
          { kind: 'trash', path: copyPath, required: false },
        );
      return plan(
        `${s.file} goes to the trash and ${c.copy} takes its name; the next sync replaces it in the service`,
        { kind: 'trash', path: `${c.folder}/${s.file}`, required: false },
        { kind: 'rename', path: copyPath, to: s.file },
      );
    }
    case 'local-edit': {
      // The service removed the system form; the edit is the folder's alone (row 35).
      if (kept === 'both' || copyPath === null)
        return plan(`${c.copy ?? 'the edit'} stays in the folder only, as a local edit`);
      if (kept === 'remote')
        return plan(`${c.copy} goes to the trash, as the service removed the form`, {
          kind: 'trash',
          path: copyPath,
          required: false,
        });
      return plan(
        `${c.copy} takes the name ${s.file}; the next sync uploads it as an attachment of its own`,
        { kind: 'rename', path: copyPath, to: s.file },
      );
    }
    case 'attachment':
      // The folder won: its new content went up again after the service removed the file.
      if (kept !== 'remote') return plan(`${s.file} stays on both sides`);
      return plan(
        `${s.file} goes to the trash; the next sync removes it from the service, as the service had (its copy kept in the trash)`,
        { kind: 'trash', path: `${c.folder}/${s.file}`, required: true },
      );
    case 'status':
      if (kept === 'both')
        return refuse('a document has one status, so both cannot be kept: keep one of the two');
      if (winnerKept) return plan('the status stays as it is on both sides');
      if (s.lost === null)
        return refuse(
          'the service had no status to go back to; set "status" in the .document.json by hand',
        );
      return plan(`the next sync sets the status "${s.lost}" in the service, effective today`, {
        kind: 'set-status',
        folder: c.folder,
        status: s.lost,
      });
    case 'document':
      // One side deleted the document and the other changed it; it was restored (rows 9, 12).
      if (kept === 'both' || winnerKept) return plan('the document stays on both sides');
      return plan(
        `the document folder goes to the trash; the next sync deletes the document in the service (its copy kept in the trash; the safety rails apply)`,
        { kind: 'trash', path: c.folder, required: true },
      );
    default:
      return assertNever(s);
  }
}

/**
 * The choices that can be carried out for a conflict, which are all the status page offers: a
 * button that can only be refused ("Keep both" on a status) is not drawn. A conflict recorded
 * before docsync kept its subject can only be closed as it is (keep-both).
 */
export function possibleChoices(
  winner: ConflictToResolve['winner'],
  subject: ConflictSubject | null,
): ConflictChoice[] {
  if (subject === null) return ['keep-both'];
  // Where the folder and copy are changes the steps, never whether a choice is refused.
  const at = { winner, subject, folder: '.', copy: 'copy' };
  return CONFLICT_CHOICES.filter((choice) => planResolution(at, choice).ok);
}
