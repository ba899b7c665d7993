/**
 * What a service user removed stays removed (docs/simulation.md, invariant 12): an attachment
 * taken out of a document in the service is, at the end, neither in that document in the
 * service nor in its folder. A file that comes back is one docsync brought back: a copy left
 * in the folder after its removal was agreed (the agreed state committed before the trash),
 * later taken for a new file and uploaded again. Let go: bytes a person put back from the trash
 * themselves. A document docsync made again in the place of a deleted one (rows 12, 19, 54) has
 * another id, and holds what its folder held. And a removal in an entity the service has since
 * deleted: its folder is kept as it was (service-world.ts), a removal not yet carried out with it.
 * What a person's edit brings back (modify beats delete: an attachment's new bytes, row 33; a
 * deleted document made again from its changed folder, row 12) comes with a recorded conflict.
 */
import path from 'node:path';
import type { OwnerRef } from '../../src/domain/types.js';
import type { SimBook } from './sim-book.js';
import type { Observed } from './sim-invariants.js';
import type { Finding, SimLedger } from './sim-ledger.js';

export const REMOVALS_KEPT = 'what a service user removed stays removed';

/** The service lists the document's entity no more. */
function entityGone(o: Observed, owner: OwnerRef | undefined): boolean {
  const listed = owner?.kind === 'trust' ? o.dump.trusts : o.dump.companies;
  return (
    owner !== undefined && listed !== undefined && !listed.some((e) => String(e.id) === owner.id)
  );
}

export function removalFindings(o: Observed, ledger: SimLedger): Finding[] {
  return [
    ...removalsKept(o, ledger),
    ...editsOverRemovals(o, ledger),
    ...remakesRecorded(o, ledger),
  ];
}

function removalsKept(o: Observed, ledger: SimLedger): Finding[] {
  const { book } = ledger;
  const findings: Finding[] = [];
  const folderOf = new Map<string, string>();
  for (const [id, folders] of o.folders) for (const f of folders) folderOf.set(f, id);
  for (const key of book.serviceRemoved) {
    const cut = key.indexOf(':');
    const documentId = key.slice(0, cut);
    const sha = key.slice(cut + 1);
    if (book.broughtBack.has(sha) || entityGone(o, book.documents.get(documentId)?.owner)) continue;
    const remote = o.dump.documents.find((d) => d.id === documentId);
    const there: string[] = [];
    for (const a of remote?.attachments ?? [])
      if (a.sha256 === sha) there.push(`in the service as ${a.name}`);
    for (const [rel, s] of o.tree)
      if (s === sha && folderOf.get(path.posix.dirname(rel)) === documentId)
        there.push(`in the folder as ${rel}`);
    if (there.length > 0)
      findings.push({
        invariant: REMOVALS_KEPT,
        detail: `${book.files.get(key)?.name ?? 'an attachment'} (${sha.slice(0, 12)}), removed from document ${documentId} by a service user, is back: ${there.join('; ')}`,
      });
  }
  return findings;
}

const split = (key: string) => {
  const cut = key.indexOf(':');
  return { documentId: key.slice(0, cut), sha: key.slice(cut + 1) };
};

/**
 * An attachment a service user removed whose file a person replaced in the folder, before
 * docsync carried the new bytes up, comes back in the service as the person's edit (modify
 * beats delete, row 33): docsync records that as a conflict, so the service user sees why what
 * they removed is back. The person's edits over edits of it count too. Excused: bytes docsync
 * uploaded before the removal (the edit reached the service first, and the removal took the
 * old bytes only), edits that are not in their document in the service at the end, and a
 * service user's replace (a removal with an attachment of the same name: its conflict is the
 * copy's, rows 42 and 43).
 */
function editsOverRemovals(o: Observed, ledger: SimLedger): Finding[] {
  const { book } = ledger;
  const findings: Finding[] = [];
  for (const [key, firstOver] of book.writtenOver) {
    let over: string | undefined = firstOver;
    const seen = new Set<string>([key]);
    while (over !== undefined && !book.serviceRemovedAt.has(over) && !seen.has(over)) {
      seen.add(over);
      over = book.writtenOver.get(over);
    }
    const removedAt = over === undefined ? undefined : book.serviceRemovedAt.get(over);
    if (over === undefined || removedAt === undefined) continue;
    const { documentId, sha } = split(key);
    const removed = book.files.get(over)?.name ?? '';
    if (replacedByServiceUser(book, documentId, removed)) continue;
    const remote = o.dump.documents.find((d) => d.id === documentId);
    const up = remote?.attachments.find((a) => a.sha256 === sha);
    if (!up) continue;
    const upFirst = ledger.serviceWrites.some(
      ({ write, ok, seq }) =>
        ok &&
        seq < removedAt &&
        write.kind === 'upload-attachment' &&
        write.documentId === documentId &&
        write.sha256 === sha,
    );
    if (upFirst) continue;
    if (o.conflicts.some((c) => c.documentId === documentId && c.subject?.kind === 'attachment'))
      continue;
    findings.push({
      invariant: REMOVALS_KEPT,
      detail: `${removed} (${split(over).sha.slice(0, 12)}), removed from document ${documentId} by a service user, is back as a person's edit of it (${up.name}, ${sha.slice(0, 12)}), and no conflict was recorded`,
    });
  }
  return findings;
}

/**
 * A service user's replace is a removal and an attachment of the same name: with a person's
 * edit, both sides changed one file (rows 42, 43), its conflict the copy's.
 */
function replacedByServiceUser(book: SimBook, documentId: string, name: string): boolean {
  const lower = name.toLowerCase();
  return [...book.files.values()].some(
    (f) =>
      f.origin === 'service user' && f.documentId === documentId && f.name.toLowerCase() === lower,
  );
}

/**
 * A document a service user deleted that docsync made again from its folder (a person changed
 * the folder meanwhile: modify beats delete, row 12) is back in the service under a new id:
 * docsync records that as a conflict, so the service user sees why what they deleted is back.
 * Excused: a folder the person deleted (put back, row 19, it is theirs), a held delete the
 * person discarded (row 54: they said the folder stays), and a new document deleted since.
 */
function remakesRecorded(o: Observed, ledger: SimLedger): Finding[] {
  const { book } = ledger;
  const findings: Finding[] = [];
  for (const [made, replaced] of book.madeAgain) {
    if (!book.serviceDeleted.has(replaced) || book.folderDeletedAt.has(replaced)) continue;
    if (book.deleteDiscarded.has(replaced) || !o.dump.documents.some((d) => d.id === made))
      continue;
    const recorded = o.conflicts.some(
      (c) => (c.documentId === made || c.documentId === replaced) && c.subject?.kind === 'document',
    );
    if (!recorded)
      findings.push({
        invariant: REMOVALS_KEPT,
        detail: `document ${replaced}, deleted by a service user, is back in the service as ${made}, made again from its folder, and no conflict was recorded`,
      });
  }
  return findings;
}
