/**
 * What a service user removed stays removed (docs/simulation.md, invariant 12): an attachment
 * taken out of a document in the service is, at the end, neither in that document in the
 * service nor in its folder. A file that comes back is one docsync brought back: a copy left
 * in the folder after its removal was agreed (the agreed state committed before the trash),
 * later taken for a new file and uploaded again. Let go: bytes a person put back from the trash
 * themselves. A document docsync made again in the place of a deleted one (rows 12, 19, 54) has
 * another id, and holds what its folder held. And a removal in an entity the service has since
 * deleted: its folder is kept as it was (service-world.ts), a removal not yet carried out with it.
 */
import path from 'node:path';
import type { OwnerRef } from '../../src/domain/types.js';
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
