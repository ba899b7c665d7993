/**
 * Invariant 11: once quiet, poll rounds alone have converged. The world is first brought to rest
 * by poll rounds (each entity listed since its cursor); a picture is taken of the agreed rows,
 * the cursors and both sides' files; the full rounds that follow (every entity listed whole)
 * must change none of it. A full round that repairs what the poll rounds left is the sign of a
 * cursor that moved past a change, or of a change no poll round looks at: the closing full
 * rounds would otherwise hide every such bug.
 *
 * Excused, as only a whole listing can see them: a document the service deleted (an incremental
 * listing does not show what is gone; a `deleteDocument` webhook never sent is the daemon's to
 * find in its daily full round), what docsync then does to it, the document it makes again in
 * its folder (rows 12, 19, 54), and the cursor of its entity; and a document the service left
 * out of a listing (`missed`): once a cursor moved past it, only the daily whole listing sees it
 * (docsync cannot tell a page that skipped it from one that had nothing); and the documents of an
 * entity the service entered anew (`entered`, a renumbered one) while no poll round knew it
 * (no cursor): the catalogue is read by the full round, or on a webhook the daemon took; the
 * cursor of an entity the service no longer has (`vanished`, deleted or renumbered), dropped by
 * that same read of the catalogue (a poll round's listing of it only fails, and is tried again);
 * and a status push that waited for the status types, never read, which only a full round asks
 * for.
 */
import path from 'node:path';
import type { CursorRecord } from '../../src/state/cursor-repo.js';
import type { Observed } from './sim-invariants.js';
import type { Finding } from './sim-ledger.js';

export const POLLS_CONVERGE = 'once quiet, poll rounds alone have converged';

export interface RoundsPicture {
  /** Per document: what the service, the agreed row and its folder hold, as one string each. */
  readonly documents: ReadonlyMap<string, DocumentPicture>;
  /** Files in no document folder (an entity's own files aside): path → sha256. */
  readonly loose: ReadonlyMap<string, string>;
  /** Cursor by entity (`kind:id`). */
  readonly cursors: ReadonlyMap<string, string | null>;
  /**
   * The status types were never read: status pushes wait for the next full round, the only one
   * that asks for the list again (engine/catalogue.ts).
   */
  readonly statusPushesWait: boolean;
}

interface DocumentPicture {
  readonly owner: string;
  readonly folder: string | null;
  readonly service: string | null;
  readonly agreed: string | null;
  readonly files: string | null;
}

const ownerKey = (owner: { kind: string; id: string }) => `${owner.kind}:${owner.id}`;

export function roundsPicture(
  o: Observed,
  cursors: readonly CursorRecord[],
  statusPushesWait = false,
): RoundsPicture {
  const documents = new Map<string, DocumentPicture>();
  const folderIds = new Map<string, string>();
  for (const [id, folders] of o.folders) for (const f of folders) folderIds.set(f, id);
  const filesOf = new Map<string, [string, string][]>();
  const loose = new Map<string, string>();
  for (const [rel, sha] of o.tree) {
    const id = folderIds.get(path.posix.dirname(rel));
    if (id) filesOf.set(id, [...(filesOf.get(id) ?? []), [path.posix.basename(rel), sha]]);
    // An entity's `.entity.json` and link are the catalogue's, which only a full round reads.
    else if (rel.split('/').length !== 3) loose.set(rel, sha);
  }
  const service = new Map(o.dump.documents.map((d) => [d.id, d]));
  const rows = new Map(o.base.map((b) => [b.id, b]));
  for (const id of new Set([...service.keys(), ...rows.keys(), ...o.folders.keys()])) {
    const doc = service.get(id);
    const row = rows.get(id);
    const owner = doc?.owner ?? row?.owner;
    const files = filesOf.get(id);
    const folder = o.folders.get(id)?.[0];
    documents.set(id, {
      owner: owner ? ownerKey(owner) : ((folder && o.metas.get(folder)?.owner) ?? ''),
      folder: o.folders.get(id)?.join(', ') ?? null,
      service: doc
        ? JSON.stringify({
            name: doc.name,
            date: doc.documentDate,
            status: doc.status?.type ?? null,
            files: doc.attachments.map((a) => `${a.id}:${a.name}:${a.kind}:${a.sha256}`).sort(),
          })
        : null,
      agreed: row ? JSON.stringify(row) : null,
      files: files ? JSON.stringify(files.sort()) : null,
    });
  }
  const byOwner = new Map(cursors.map((c) => [ownerKey(c.owner), c.cursor]));
  return { documents, loose, cursors: byOwner, statusPushesWait };
}

/** What the full rounds changed of what the poll rounds left at rest, less what is excused. */
export function convergenceFindings(
  polled: RoundsPicture,
  full: RoundsPicture,
  missed: ReadonlySet<string> = new Set(),
  entered: ReadonlySet<string> = new Set(),
  vanished: ReadonlySet<string> = new Set(),
): Finding[] {
  const findings: Finding[] = [];
  const changed = (detail: string) => findings.push({ invariant: POLLS_CONVERGE, detail });
  // Documents the service had deleted when the poll rounds came to rest, and their folders.
  const gone = new Set<string>();
  const goneFolders = new Set<string>();
  for (const [id, doc] of polled.documents)
    if (doc.service === null) {
      gone.add(id);
      if (doc.folder) goneFolders.add(doc.folder);
    }
  const excusedOwners = new Set<string>();
  for (const id of new Set([...polled.documents.keys(), ...full.documents.keys()])) {
    const before = polled.documents.get(id);
    const after = full.documents.get(id);
    const parts = (['service', 'agreed', 'folder', 'files'] as const).filter(
      (k) => (before?.[k] ?? null) !== (after?.[k] ?? null),
    );
    if (parts.length === 0) continue;
    // Made again in a deleted document's folder (modify beats delete).
    const remade = !before && after?.folder !== null && goneFolders.has(after?.folder ?? '');
    const owner = before?.owner || after?.owner || '';
    const unknownEntity = entered.has(owner) && (polled.cursors.get(owner) ?? null) === null;
    const waitedPush = polled.statusPushesWait && onlyStatus(before, after);
    if (gone.has(id) || remade || missed.has(id) || unknownEntity || waitedPush) {
      excusedOwners.add(owner);
      continue;
    }
    const precision = onlyPrecision(before, after);
    if (precision) {
      changed(`the full round changed document ${id} only in ${precision}`);
      continue;
    }
    changed(
      `the full round changed document ${id} (${after?.folder ?? before?.folder ?? 'no folder'}): ${parts.map((p) => PART_WORDS[p]).join(', ')}`,
    );
  }
  for (const rel of new Set([...polled.loose.keys(), ...full.loose.keys()]))
    if (polled.loose.get(rel) !== full.loose.get(rel))
      changed(`the full round changed ${rel}, in no document's folder`);
  for (const owner of new Set([...polled.cursors.keys(), ...full.cursors.keys()])) {
    const before = polled.cursors.get(owner) ?? null;
    const after = full.cursors.get(owner) ?? null;
    // Forgotten with its entity: only the cursor's removal, never a cursor moved elsewhere.
    const forgotten = vanished.has(owner) && after === null;
    if (before !== after && !excusedOwners.has(owner) && !forgotten)
      changed(`the full round moved the cursor of ${owner} from ${before} to ${after}`);
  }
  return findings;
}

const PART_WORDS = {
  service: 'the service',
  agreed: 'its agreed row',
  folder: 'where its folder is',
  files: 'the files in its folder',
} as const;

/**
 * A change of the agreed change time from the details' whole seconds to the list's microseconds
 * of the same instant (and the `.document.json` that shows it): named apart, as it loses nothing
 * and would mask any other change of the same document. Null when anything else changed.
 */
function onlyPrecision(
  before: DocumentPicture | undefined,
  after: DocumentPicture | undefined,
): string | null {
  if (!before?.agreed || !after?.agreed || before.service !== after.service) return null;
  if (before.folder !== after.folder) return null;
  const a = JSON.parse(before.agreed) as Record<string, unknown>;
  const b = JSON.parse(after.agreed) as Record<string, unknown>;
  const ta = String(a.lastUpdatedTimestamp);
  const tb = String(b.lastUpdatedTimestamp);
  if (ta === tb || ta.slice(0, 19) !== tb.slice(0, 19)) return null;
  if (
    JSON.stringify({ ...a, lastUpdatedTimestamp: '' }) !==
    JSON.stringify({ ...b, lastUpdatedTimestamp: '' })
  )
    return null;
  const files = (p: DocumentPicture) =>
    JSON.stringify(
      (JSON.parse(p.files ?? '[]') as [string, string][]).filter(([n]) => n !== '.document.json'),
    );
  if (files(before) !== files(after)) return null;
  return `its agreed change time, ${ta} to ${tb} (the same second)`;
}

/** The service's copy changed in its status alone (what a status push changes). */
function onlyStatus(before: DocumentPicture | undefined, after: DocumentPicture | undefined) {
  if (!before?.service || !after?.service || before.folder !== after.folder) return false;
  const strip = (service: string) => JSON.stringify({ ...JSON.parse(service), status: null });
  return strip(before.service) === strip(after.service);
}
