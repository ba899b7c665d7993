/**
 * The end held against the book (sim-book.ts): nothing of the world as the seed found it, nor
 * of what anyone made since, disappeared from either side unless a user deleted it.
 * - Every document is in the service and has its folder, unless a service user deleted it, a
 *   person deleted its folder, or a rail holds its delete for a person; its name and date in the
 *   service are those it was made with (or a service user gave it since), and its folder's
 *   `.document.json` shows them.
 * - Every attachment's bytes a user did not delete are in their document (or in the document
 *   docsync made again in its place), in the service under their name and kind, and in the
 *   document's folder; a recorded conflict's copy may carry another name, and a person's edit
 *   of a system form (or of its kept copy) stays in the folder as its `(local edit)` copy.
 * - The last status set on a document, by anyone (a service user, a person in the folder or by
 *   a decision, the service as the seed found it), is in the service and in the folder, unless a
 *   status conflict was recorded after it; a status the service does not know stays in the
 *   folder alone, its item in error; a status typed in a folder the person then deleted went
 *   with it, and statuses a person typed back, before docsync pushed them, are no edit. A
 *   status a service user set after a person deleted the folder is not deleted with it.
 */
import path from 'node:path';
import { isLocalEditCopy } from '../../src/domain/local-folder-names.js';
import { storedUploadName } from '../../src/simulator/index.js';
import { type BookFile, fileKey } from './sim-book.js';
import type { Observed } from './sim-invariants.js';
import type { Finding, SimLedger, StatusEdit } from './sim-ledger.js';

export const EDITS_KEPT =
  'every edit by either side is on both sides or in a recorded conflict copy';
export const NOTHING_LOST = 'nothing disappeared that nobody deleted';

export function lossFindings(o: Observed, ledger: SimLedger): Finding[] {
  return [
    ...documentsKept(o, ledger),
    ...attachmentsKept(o, ledger),
    ...statusesKept(o, ledger),
    ...restoresRecorded(o, ledger),
    ...statusesDeletedOver(ledger),
  ];
}

const folderOf = (o: Observed, id: string) => o.folders.get(id)?.[0];
const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? '').toLowerCase() === (b ?? '').toLowerCase();

/** Documents a user deleted: in the service, or by deleting the folder. */
function userDeleted(ledger: SimLedger, id: string): boolean {
  return ledger.book.serviceDeleted.has(id) || ledger.removedFromStore.has(id);
}

/**
 * A document whose folder a person deleted, and whose folder is there at the end, came back by
 * docsync's hand: the service changed it meanwhile (modify beats delete, row 9), which docsync
 * records as a conflict, so the person sees why the folder they deleted is back. Excused: a
 * delete the person discarded (row 53), and one a rail holds for them; and a folder a pull of
 * its new document had placed and not yet committed, whose commit never came (the daemon died,
 * or the placement failed after its rename and the next sync found no folder): docsync cannot
 * tell it from a folder never placed, and downloads the document again (row 1). A folder put
 * back from the person's bin is no longer deleted in the book.
 */
function restoresRecorded(o: Observed, ledger: SimLedger): Finding[] {
  const findings: Finding[] = [];
  const inService = new Set(o.dump.documents.map((d) => d.id));
  for (const id of ledger.book.folderDeletedAt.keys()) {
    if (!inService.has(id) || !folderOf(o, id) || o.held.has(id)) continue;
    if (ledger.book.deleteDiscarded.has(id)) continue;
    if (ledger.book.deletedUncommitted.get(id) === ledger.book.folderDeletedAt.get(id)) continue;
    if (o.conflicts.some((c) => c.documentId === id && c.subject?.kind === 'document')) continue;
    findings.push({
      invariant: EDITS_KEPT,
      detail: `document ${id}'s folder, deleted by a person, is back (${folderOf(o, id)}), and no conflict was recorded`,
    });
  }
  return findings;
}

/**
 * A document docsync made again from a folder (rows 12, 19, 54) whose folder a person deleted
 * before the create's answer came: recorded as created, it waits in the service for a folder
 * that is not coming back (docs/syncing.md). The person deleted it, by the folder it was made
 * from.
 */
function madeFromDeletedFolder(o: Observed, ledger: SimLedger, id: string): boolean {
  const replaces = o.awaitingFolder.get(id);
  return replaces != null && ledger.removedFromStore.has(replaces);
}

function documentsKept(o: Observed, ledger: SimLedger): Finding[] {
  const findings: Finding[] = [];
  const lost = (detail: string) => findings.push({ invariant: NOTHING_LOST, detail });
  const service = new Map(o.dump.documents.map((d) => [d.id, d]));
  for (const [id, doc] of ledger.book.documents) {
    if (userDeleted(ledger, id) || o.held.has(id) || madeFromDeletedFolder(o, ledger, id)) continue;
    const details = ledger.book.details.get(id)!;
    const what = `document ${id} "${details.name}" (${doc.origin === 'start' ? 'there at the start' : `made by ${doc.origin}`})`;
    const remote = service.get(id);
    const folder = folderOf(o, id);
    if (!remote) lost(`${what} is gone from the service, and nobody deleted it`);
    if (!folder) lost(`${what} has no folder, and nobody deleted it`);
    if (!remote) continue;
    if (remote.name !== details.name || remote.documentDate !== details.documentDate)
      lost(
        `${what}: the service shows it as "${remote.name}" of ${remote.documentDate}, though nobody renamed or re-dated it (${details.documentDate})`,
      );
    const meta = folder ? o.metas.get(folder) : null;
    if (meta && (meta.name !== remote.name || meta.documentDate !== remote.documentDate))
      lost(
        `${what}: its folder's .document.json says "${meta.name}" of ${meta.documentDate}, the service "${remote.name}" of ${remote.documentDate}`,
      );
  }
  return findings;
}

/** Where one content is at the end, on each side. */
interface Whereabouts {
  readonly service: { documentId: string; name: string; kind: string }[];
  readonly folder: { documentId: string | null; name: string }[];
}

function whereabouts(o: Observed): Map<string, Whereabouts> {
  const at = new Map<string, Whereabouts>();
  const get = (sha: string) => {
    const w = at.get(sha) ?? { service: [], folder: [] };
    at.set(sha, w);
    return w;
  };
  for (const doc of o.dump.documents)
    for (const a of doc.attachments)
      get(a.sha256).service.push({ documentId: doc.id, name: a.name, kind: a.kind });
  const idOfFolder = new Map<string, string>();
  for (const [id, folders] of o.folders) for (const f of folders) idOfFolder.set(f, id);
  for (const [rel, sha] of o.tree) {
    const name = path.posix.basename(rel);
    if (name === '.document.json') continue;
    get(sha).folder.push({ documentId: idOfFolder.get(path.posix.dirname(rel)) ?? null, name });
  }
  return at;
}

/**
 * Each content of the book that no user deleted is in its document on both sides: the same
 * document, under its name (or its conflict copy's) and kind in the service. The document may
 * be one docsync made in its place (restored from the folder when the service's was deleted:
 * rows 12, 19, 54), or, for a file of a folder a person made, the document docsync made of it.
 */
function attachmentsKept(o: Observed, ledger: SimLedger): Finding[] {
  const findings: Finding[] = [];
  const at = whereabouts(o);
  const inService = new Set(o.dump.documents.map((d) => d.id));
  const madeByDocsync = (id: string) => ledger.book.documents.get(id)?.origin === 'docsync';
  const copyNames = new Map<string, Set<string>>();
  for (const c of o.conflicts) {
    const names = copyNames.get(c.documentId) ?? new Set<string>();
    names.add(path.posix.basename(c.copyPath));
    copyNames.set(c.documentId, names);
  }
  const made = [...ledger.book.documents.values()].filter((d) => d.origin === 'docsync');
  // Deleted by a user from its document, or from one docsync made in its place; every content
  // of a document whose folder a person deleted; a content of a document a service user
  // deleted, if it was in the service then (the chaos ledger's record: a person's file not yet
  // up makes the document again, row 12).
  const deleted = (file: BookFile) =>
    ledger.book.deleted.has(fileKey(file.documentId, file.sha)) ||
    made.some((d) => ledger.book.deleted.has(fileKey(d.id, file.sha))) ||
    (file.documentId !== null && ledger.removedFromStore.has(file.documentId)) ||
    ((file.documentId === null || userDeleted(ledger, file.documentId)) &&
      ledger.userDeleted.has(file.sha));
  for (const file of ledger.book.files.values()) {
    // A person's write the ledger does not count as an edit (a scenario's file the service
    // refuses, the root's marker) is not held to both sides.
    if (deleted(file) || (file.origin === 'person' && !ledger.written.has(file.sha))) continue;
    const w = at.get(file.sha) ?? { service: [], folder: [] };
    // Its document at the end: its own, or one docsync made in its place.
    const home = (id: string | null) =>
      id !== null &&
      (id === file.documentId ||
        (madeByDocsync(id) && (file.documentId === null || !inService.has(file.documentId))));
    const folderHas = (id: string) => w.folder.some((f) => f.documentId === id);
    const kept = w.service.some((s) => {
      if (!home(s.documentId) || !folderHas(s.documentId)) return false;
      // In a document made again from the folder, every file is a user attachment under its
      // folder name.
      if (s.documentId !== file.documentId) return true;
      // Uploaded by docsync, it may be under the name the service stored it as.
      const names = copyNames.get(s.documentId);
      const named = [file.name, ...(names ?? [])].some(
        (n) => s.name === n || s.name === storedUploadName(n, ledger.uploadNames),
      );
      return named && s.kind === file.kind;
    });
    // A person's edit of a system form, or of the copy kept of it, stays beside it, in the
    // folder only (rows 35, 37).
    const keptAside =
      file.overSystem &&
      w.folder.some((f) => home(f.documentId) && isLocalEditCopy(f.name)) &&
      !w.service.some((s) => s.documentId === file.documentId);
    if (kept || keptAside) continue;
    findings.push({ invariant: EDITS_KEPT, detail: `${describe(file, ledger)} is ${placed(w)}` });
  }
  return findings;
}

function describe(file: BookFile, ledger: SimLedger): string {
  const by = file.origin === 'start' ? 'there at the start' : `written by a ${file.origin}`;
  const doc = file.documentId ?? 'a new folder';
  return `${ledger.written.get(file.sha) ?? `${doc}/${file.name}`} (${file.kind}, ${by}, ${file.sha.slice(0, 12)}) of document ${doc}`;
}

function placed(w: Whereabouts): string {
  const service = w.service.map((s) => `${s.documentId}/${s.name} (${s.kind})`);
  const folder = w.folder.map((f) => `${f.documentId ?? 'no document'}/${f.name}`);
  if (service.length === 0 && folder.length === 0) return 'on neither side';
  return `in the service as ${service.join(', ') || 'nothing'}; in the folder as ${folder.join(', ') || 'nothing'}`;
}

/**
 * The last status set on each document still there is on both sides: in the service, and in its
 * folder's `.document.json`. Excused: a status conflict recorded after it (either side may then
 * have won, and the conflict says so); a status a person typed that the service does not know,
 * kept in the folder alone (row 25); and the folder keeping such a status over a later one of
 * the service's, its item in error (row 29).
 */
function statusesKept(o: Observed, ledger: SimLedger): Finding[] {
  const findings: Finding[] = [];
  const known = (v: string | null) => v === null || o.dump.statusTypes.some((t) => same(t.name, v));
  const last = new Map<string, (typeof ledger.statusEdits)[number]>();
  // docsync carried this status to the service after it was typed.
  const pushed = (edit: (typeof ledger.statusEdits)[number]) =>
    ledger.serviceWrites.some(
      (w) =>
        w.ok &&
        w.seq > edit.seq &&
        w.write.kind === 'assign-status' &&
        w.write.documentId === edit.documentId &&
        same(w.statusName, edit.value),
    );
  const takenBack = takenBackEdits(ledger.statusEdits, pushed);
  findings.push(...overtakenUnrecorded(o, ledger, { known, pushed, takenBack }));
  for (const edit of ledger.statusEdits) {
    // A status typed in a folder the person deleted since went with the folder, unless docsync
    // had already carried it to the service (a sync planned before the delete).
    const folderGone = ledger.book.folderDeletedAt.get(edit.documentId) ?? 0;
    const byPerson = edit.side === 'local' || edit.side === 'operator';
    if (byPerson && edit.seq < folderGone && !pushed(edit)) continue;
    if (takenBack.has(edit.seq)) continue;
    last.set(edit.documentId, edit);
  }
  for (const doc of o.dump.documents) {
    const edit = last.get(doc.id);
    if (!edit || o.held.has(doc.id)) continue;
    const conflict = o.conflicts.some(
      (c) => c.documentId === doc.id && c.subject?.kind === 'status' && c.occurredAt >= edit.at,
    );
    if (conflict) continue;
    const folder = folderOf(o, doc.id);
    const shown = folder ? (o.metas.get(folder)?.status ?? null) : null;
    const service = doc.status?.type ?? null;
    const byPerson = edit.side === 'local' || edit.side === 'operator';
    const who =
      edit.side === 'remote'
        ? 'set by a service user'
        : edit.side === 'docsync'
          ? 'given at its making'
          : `typed (${edit.side})`;
    const lostIn: string[] = [];
    if (!(byPerson && !known(edit.value)) && !same(service, edit.value))
      lostIn.push(`the service shows "${service}"`);
    const keptTyped = !known(shown) && o.inError.has(doc.id);
    if (folder && !same(shown, edit.value) && !keptTyped)
      lostIn.push(`the folder shows "${shown}"`);
    if (lostIn.length > 0)
      findings.push({
        invariant: EDITS_KEPT,
        detail: `status "${edit.value}" ${who} on document ${doc.id} is its last, yet ${lostIn.join(' and ')}, and no conflict was recorded`,
      });
  }
  return findings;
}

/**
 * A status a person typed that a service user's later, other status overtook before docsync
 * carried it anywhere is lost to the person's side: docsync records that as a conflict (rows 24,
 * 55), so the person sees what they lost. Not the last status, invariant 1's check above does not
 * ask for it. Excused as there: a status the service does not know (kept, row 25), a folder the
 * person deleted since, a status typed back; and one the service showed already (row 22).
 */
function overtakenUnrecorded(
  o: Observed,
  ledger: SimLedger,
  seen: {
    known: (v: string | null) => boolean;
    pushed: (e: StatusEdit) => boolean;
    takenBack: ReadonlySet<number>;
  },
): Finding[] {
  const findings: Finding[] = [];
  const inService = new Set(o.dump.documents.map((d) => d.id));
  const edits = ledger.statusEdits;
  edits.forEach((typed, i) => {
    const id = typed.documentId;
    if (typed.side !== 'local' || !inService.has(id) || o.held.has(id)) return;
    if (!seen.known(typed.value) || seen.pushed(typed) || seen.takenBack.has(typed.seq)) return;
    // The service showed that status already: both sides agreed on it (row 22), nothing lost.
    if (serviceHad(edits, typed)) return;
    if ((ledger.book.folderDeletedAt.get(id) ?? 0) > typed.seq) return;
    const later = edits.slice(i + 1).filter((e) => e.documentId === id);
    const next = later[0];
    if (next?.side !== 'remote' || same(next.value, typed.value)) return;
    // The person typed over it while the folder still showed it: docsync had written nothing
    // over theirs, and what they typed since is judged in its turn.
    if (
      later.some((e) => e.side === 'local' && e.before !== undefined && same(e.before, typed.value))
    )
      return;
    const recorded = o.conflicts.some(
      (c) => c.documentId === id && c.subject?.kind === 'status' && c.occurredAt >= typed.at,
    );
    if (!recorded)
      findings.push({
        invariant: EDITS_KEPT,
        detail: `status "${typed.value}" typed (local) on document ${id}, overtaken by "${next.value}" set by a service user before docsync carried it, and no conflict was recorded`,
      });
  });
  return findings;
}

/**
 * A status a service user set on a document after a person deleted its folder is a change the
 * folder's delete must not take with it (modify beats delete): docsync brings the document back
 * instead. Sent after that status, docsync's delete of the document lost it, on both sides; the
 * checks above, which look at the documents still there, cannot see it.
 */
function statusesDeletedOver(ledger: SimLedger): Finding[] {
  const findings: Finding[] = [];
  for (const { write, ok, seq } of ledger.serviceWrites) {
    if (!ok || write.kind !== 'delete-document') continue;
    const id = write.documentId;
    const folderGone = ledger.book.folderDeletedAt.get(id);
    if (folderGone === undefined || ledger.book.serviceDeleted.has(id)) continue;
    const edit = ledger.statusEdits.find(
      (e) => e.documentId === id && e.side === 'remote' && e.seq > folderGone && e.seq < seq,
    );
    if (edit)
      findings.push({
        invariant: EDITS_KEPT,
        detail: `status "${edit.value}" set by a service user on document ${id} after its folder was deleted went with docsync's delete of the document`,
      });
  }
  return findings;
}

/**
 * Statuses a person typed and took back before docsync carried them anywhere: typing the status
 * the folder showed before their own edits (any letter case) leaves the folder as docsync last
 * agreed it, which asks for nothing (rows 7, 28), so a service user's status set meanwhile is
 * the last, and the typing back is no edit to keep over it. Each edit of the run is taken back
 * only if the folder showed it when the next was typed, docsync never pushed it, and no service
 * user set its status since (then it was agreed, row 22, and typing back is a change).
 */
function takenBackEdits(
  edits: readonly StatusEdit[],
  pushed: (e: StatusEdit) => boolean,
): Set<number> {
  const taken = new Set<number>();
  edits.forEach((typedBack, i) => {
    if (typedBack.side !== 'local' || typedBack.before === undefined) return;
    const run: StatusEdit[] = [];
    let shown: string | null = typedBack.before;
    for (let j = i - 1; j >= 0; j--) {
      const e = edits[j]!;
      if (e.documentId !== typedBack.documentId || e.side === 'remote' || e.side === 'docsync')
        continue;
      if (
        e.side !== 'local' ||
        e.value !== shown ||
        e.before === undefined ||
        pushed(e) ||
        serviceHad(edits, e)
      )
        return;
      run.push(e);
      shown = e.before;
      if (same(shown, typedBack.value)) {
        for (const t of [...run, typedBack]) taken.add(t.seq);
        return;
      }
    }
  });
  return taken;
}

/** The service showed this typed status while the folder did (a service user set it too). */
function serviceHad(edits: readonly StatusEdit[], typed: StatusEdit): boolean {
  const theirs = edits.filter((r) => r.documentId === typed.documentId && r.side === 'remote');
  const then = theirs.filter((r) => r.seq < typed.seq).at(-1);
  const since = theirs.filter((r) => r.seq > typed.seq);
  return [...(then ? [then] : []), ...since].some((r) => same(r.value, typed.value));
}
