/**
 * The end checks that see every loss (sim-losses.ts, sim-removals.ts, convergence.ts), on worlds written out by
 * hand: each must name the loss it is for, and stay silent when nothing was lost. A seed reaches
 * them only when docsync has a bug; these say they would see it.
 */
import { describe, expect, it } from 'vitest';
import { convergenceFindings, roundsPicture } from './convergence.js';
import type { Observed } from './sim-invariants.js';
import { SimLedger } from './sim-ledger.js';
import { lossFindings } from './sim-losses.js';
import { removalFindings } from './sim-removals.js';

const owner = { kind: 'company' as const, id: 'c1' };
const types = [
  { id: 1, name: 'LODGED' },
  { id: 2, name: 'SIGNED' },
];
const form = { id: 'F1', kind: 'system' as const, name: 'form.pdf', sha256: 'aaa' };
const letter = { id: 'UA1', kind: 'user' as const, name: 'letter.pdf', sha256: 'bbb' };

function doc(id: string, attachments = [form, letter], status = 'LODGED') {
  return {
    id,
    owner,
    name: `Minutes ${id}`,
    documentDate: '2029-01-01',
    status: { type: status, typeId: status === 'LODGED' ? 1 : 2 },
    attachments,
  };
}

/** The world as it began: documents 1 and 2, each with its form and letter, in step. */
function start(): SimLedger {
  const ledger = new SimLedger();
  const dump = { documents: [doc('1'), doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }])] };
  ledger.book.startWorld(dump as never);
  for (const d of dump.documents) ledger.statusEdit(d.id, d.status.type, 'remote');
  return ledger;
}

/** Both sides at the end: the service's documents, and each one's folder with its files. */
function observed(documents: ReturnType<typeof doc>[], folders = documents): Observed {
  const tree = new Map<string, string>();
  const metas = new Map();
  const byId = new Map<string, string[]>();
  for (const d of folders) {
    const folder = `Companies/Acme/${d.name}`;
    byId.set(d.id, [folder]);
    tree.set(`${folder}/.document.json`, `meta ${d.id}`);
    for (const a of d.attachments) tree.set(`${folder}/${a.name}`, a.sha256);
    const meta = { name: d.name, documentDate: d.documentDate, status: d.status.type };
    metas.set(folder, { ...meta, owner: `${owner.kind}:${owner.id}` });
  }
  return {
    dump: { documents, statusTypes: types },
    tree,
    folders: byId,
    base: [],
    conflicts: [],
    inError: new Set(),
    held: new Set(),
    metas,
    awaitingFolder: new Map(),
  } as unknown as Observed;
}

const details = (ledger: SimLedger, o: Observed) => lossFindings(o, ledger).map((f) => f.detail);

describe('the end held against the world as the seed found it', () => {
  it('finds nothing when everything is where it began', () => {
    const o = observed([doc('1'), doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }])]);
    expect(details(start(), o)).toEqual([]);
  });

  it('sees a document gone that nobody deleted, and lets one a service user deleted go', () => {
    const ledger = start();
    const o = observed([doc('1')]);
    expect(details(ledger, o)).toEqual([
      expect.stringContaining(
        'document 2 "Minutes 2" (there at the start) is gone from the service',
      ),
      expect.stringContaining('document 2 "Minutes 2" (there at the start) has no folder'),
      '2/letter.pdf (user, there at the start, ccc) of document 2 is on neither side',
    ]);
    ledger.book.serviceDeleted.add('2');
    ledger.deleted('ccc');
    expect(details(ledger, o)).toEqual([]);
  });

  it('lets a document made again go whose folder a person deleted while its create waits (seed 6520)', () => {
    const ledger = start();
    // The service deleted document 2; docsync made it again from its folder as 3 (row 12), the
    // answer lost; the person deleted the folder before the create was settled.
    ledger.book.serviceDeleted.add('2');
    ledger.deleted('ccc');
    ledger.book.document(doc('3'), 'docsync');
    const o = observed([doc('1'), doc('3', [])], [doc('1')]);
    expect(details(ledger, o)).toEqual([
      expect.stringContaining('document 3 "Minutes 3" (made by docsync) has no folder'),
    ]);
    const waiting = { ...o, awaitingFolder: new Map([['3', '2']]) };
    expect(details(ledger, waiting)).toEqual([
      expect.stringContaining('document 3 "Minutes 3" (made by docsync) has no folder'),
    ]);
    ledger.removedFromStore.add('2');
    expect(details(ledger, waiting)).toEqual([]);
  });

  it('sees an attachment in the wrong document, under another name, or of another kind', () => {
    const moved = observed([
      doc('1', [form]),
      doc('2', [
        { ...letter, id: 'UA2', sha256: 'ccc' },
        { ...letter, name: 'moved.pdf' },
      ]),
    ]);
    expect(details(start(), moved)).toEqual([
      '1/letter.pdf (user, there at the start, bbb) of document 1 is in the service as 2/moved.pdf (user); in the folder as 2/moved.pdf',
    ]);
    const renamed = observed([
      doc('1', [form, { ...letter, name: 'other.pdf' }]),
      doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }]),
    ]);
    expect(details(start(), renamed)).toHaveLength(1);
    const kind = observed([
      doc('1', [{ ...form, kind: 'user' }, letter]),
      doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }]),
    ]);
    expect(details(start(), kind)).toHaveLength(1);
  });

  it("keeps a service user's status as a typed one: the last set must be on both sides", () => {
    const ledger = start();
    ledger.statusEdit('1', 'SIGNED', 'remote');
    const o = observed([doc('1'), doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }])]);
    expect(details(ledger, o)).toEqual([
      'status "SIGNED" set by a service user on document 1 is its last, yet the service shows "LODGED" and the folder shows "LODGED", and no conflict was recorded',
    ]);
    ledger.statusEdit('1', 'LODGED', 'local');
    expect(details(ledger, o)).toEqual([]);
  });

  it("takes a status a person typed back to the agreed one as no edit over a service user's since (seed 4199)", () => {
    const signed = () => [
      doc('1', [form, letter], 'SIGNED'),
      doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }]),
    ];
    const ledger = start();
    ledger.statusEdit('1', 'Not A Type', 'local', 'LODGED');
    ledger.statusEdit('1', 'SIGNED', 'remote');
    ledger.statusEdit('1', 'lodged', 'local', 'Not A Type');
    expect(details(ledger, observed(signed()))).toEqual([]);
    // Typed back over a status the service user gave too, it is a change: it must hold.
    const agreed = start();
    agreed.statusEdit('1', 'SIGNED', 'local', 'LODGED');
    agreed.statusEdit('1', 'SIGNED', 'remote');
    agreed.statusEdit('1', 'lodged', 'local', 'SIGNED');
    expect(details(agreed, observed(signed()))).toEqual([
      'status "lodged" typed (local) on document 1 is its last, yet the service shows "SIGNED" and the folder shows "SIGNED", and no conflict was recorded',
    ]);
  });

  it('takes a status the person typed over while the folder still showed it as theirs to replace, not one docsync overtook (seed 1255)', () => {
    const service = [doc('1'), doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }])];
    const folders = [doc('1', [form, letter], 'Not A Type'), service[1]!];
    const typedOver = (shownThen: string) => {
      const ledger = start();
      ledger.statusEdit('1', 'SIGNED', 'local', 'LODGED');
      ledger.statusEdit('1', 'LODGED', 'remote');
      ledger.statusEdit('1', 'Not A Type', 'local', shownThen);
      return details(ledger, observed(service, folders));
    };
    expect(typedOver('SIGNED')).toEqual([]);
    // The folder showed the service's status when the person typed again: docsync had written
    // it over theirs, and that needs its conflict.
    expect(typedOver('LODGED')).toEqual([
      'status "SIGNED" typed (local) on document 1, overtaken by "LODGED" set by a service user before docsync carried it, and no conflict was recorded',
    ]);
  });

  it("sees a service user's status, set after the folder was deleted, go with docsync's delete", () => {
    const ledger = start();
    const deleteOf = (id: string) =>
      ledger.wroteToService({ kind: 'delete-document', owner, documentId: id }, true);
    ledger.removedFromStore.add('2');
    ledger.book.folderDeletedAt.set('2', ledger.nextSeq());
    ledger.statusEdit('2', 'SIGNED', 'remote');
    const o = observed([doc('1')]);
    expect(details(ledger, o)).toEqual([]);
    deleteOf('2');
    expect(details(ledger, o)).toEqual([
      `status "SIGNED" set by a service user on document 2 after its folder was deleted went with docsync's delete of the document`,
    ]);
    // Set before the folder was deleted, or the delete refused: nothing lost by it.
    const before = start();
    before.statusEdit('2', 'SIGNED', 'remote');
    before.removedFromStore.add('2');
    before.book.folderDeletedAt.set('2', before.nextSeq());
    before.wroteToService({ kind: 'delete-document', owner, documentId: '2' }, true);
    before.wroteToService({ kind: 'delete-document', owner, documentId: '1' }, false);
    expect(details(before, o)).toEqual([]);
  });

  it("sees a person's deleted folder back with no conflict, unless its new document's pull never committed", () => {
    const back =
      "document 2's folder, deleted by a person, is back (Companies/Acme/Minutes 2), and no conflict was recorded";
    const o = observed([doc('1'), doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }])]);
    const deleted = (ledger: SimLedger) => ledger.book.folderDeleted('2', ledger.nextSeq(), 0);
    // Deleted while its pull was parked before the commit, and the daemon died: excused.
    const died = start();
    died.book.placed('2', 'parked');
    deleted(died);
    died.book.crashed();
    died.book.placed('2', 'parked');
    died.book.placeCommitted('2');
    expect(details(died, o)).toEqual([]);
    // The daemon died first, and the person deleted the folder before the restart's sync: excused.
    const diedFirst = start();
    diedFirst.book.placed('2', 'parked');
    diedFirst.book.crashed();
    deleted(diedFirst);
    diedFirst.book.placed('2', 'parked');
    diedFirst.book.placeCommitted('2');
    expect(details(diedFirst, o)).toEqual([]);
    // The restart's sync found the folder and settled the pull; deleted after: no excuse.
    const settled = start();
    settled.book.placed('2', 'parked');
    settled.book.crashed();
    settled.book.placeCommitted('2');
    deleted(settled);
    expect(details(settled, o)).toEqual([back]);
    // The placement failed after its rename; the next sync found no folder and pulled it again.
    const failed = start();
    failed.book.placed('2', 'failed');
    deleted(failed);
    failed.book.placed('2', 'parked');
    failed.book.placeCommitted('2');
    expect(details(failed, o)).toEqual([]);
    // The pull committed after the delete: docsync knew the folder, and must say why it is back.
    const committed = start();
    committed.book.placed('2', 'parked');
    deleted(committed);
    committed.book.placeCommitted('2');
    committed.book.crashed();
    expect(details(committed, o)).toEqual([back]);
    // Deleted before the pull placed it, or deleted again after the download again: no excuse.
    const before = start();
    deleted(before);
    before.book.placed('2', 'parked');
    before.book.crashed();
    expect(details(before, o)).toEqual([back]);
    const again = start();
    again.book.placed('2', 'parked');
    deleted(again);
    again.book.crashed();
    again.book.placed('2', 'parked');
    again.book.placeCommitted('2');
    deleted(again);
    expect(details(again, o)).toEqual([back]);
  });

  it('sees a document renamed in the service that nobody renamed', () => {
    const o = observed([
      { ...doc('1'), name: 'Other' },
      doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }]),
    ]);
    expect(details(start(), o)).toContainEqual(
      expect.stringContaining('the service shows it as "Other"'),
    );
  });
});

describe('once quiet, poll rounds alone have converged', () => {
  const cursor = (at: string) => [{ owner, cursor: at }] as never;

  it('finds a full round that moved a cursor or changed a document', () => {
    const o = observed([doc('1')]);
    const polled = roundsPicture(o, cursor('2030-01-07T09:00:00.1'));
    const later = roundsPicture(observed([doc('1', [form])]), cursor('2030-01-07T09:05:00.1'));
    expect(convergenceFindings(polled, later).map((f) => f.detail)).toEqual([
      'the full round changed document 1 (Companies/Acme/Minutes 1): the service, the files in its folder',
      'the full round moved the cursor of company:c1 from 2030-01-07T09:00:00.1 to 2030-01-07T09:05:00.1',
    ]);
    expect(convergenceFindings(polled, polled)).toEqual([]);
  });

  it('excuses a document the service deleted, which only a whole listing sees', () => {
    const polled = roundsPicture(observed([], [doc('1')]), cursor('2030-01-07T09:00:00.1'));
    const full = roundsPicture(observed([]), cursor('2030-01-07T09:05:00.1'));
    expect(convergenceFindings(polled, full)).toEqual([]);
  });

  it("excuses the cursor of an entity the service no longer has, dropped with it by the full round's catalogue, and no other move of it", () => {
    const polled = roundsPicture(observed([]), cursor('2030-01-07T09:00:00.1'));
    const forgotten = roundsPicture(observed([]), []);
    const gone = new Set(['company:c1']);
    const none = new Set<string>();
    expect(convergenceFindings(polled, forgotten, none, none, gone)).toEqual([]);
    expect(convergenceFindings(polled, forgotten).map((f) => f.detail)).toEqual([
      'the full round moved the cursor of company:c1 from 2030-01-07T09:00:00.1 to null',
    ]);
    const moved = roundsPicture(observed([]), cursor('2030-01-07T09:05:00.1'));
    expect(convergenceFindings(polled, moved, none, none, gone)).toHaveLength(1);
  });
});

describe('what a service user removed stays removed', () => {
  const second = doc('2', [{ ...letter, id: 'UA2', sha256: 'ccc' }]);
  const removals = (ledger: SimLedger, o: Observed) =>
    removalFindings(o, ledger).map((f) => f.detail);

  it('sees an attachment a service user removed back in its document, on either side', () => {
    const ledger = start();
    ledger.book.attachmentDeleted('UA1', ledger.nextSeq());
    // The folder's copy was never trashed, taken for a new file, and uploaded again.
    expect(removals(ledger, observed([doc('1'), second]))).toEqual([
      'letter.pdf (bbb), removed from document 1 by a service user, is back: in the service as letter.pdf; in the folder as Companies/Acme/Minutes 1/letter.pdf',
    ]);
    // Only the folder kept it.
    expect(removals(ledger, observed([doc('1', [form]), second], [doc('1'), second]))).toEqual([
      'letter.pdf (bbb), removed from document 1 by a service user, is back: in the folder as Companies/Acme/Minutes 1/letter.pdf',
    ]);
    expect(removals(ledger, observed([doc('1', [form]), second]))).toEqual([]);
  });

  it('lets a removal not yet carried out stay in the kept folder of an entity the service deleted', () => {
    const ledger = start();
    ledger.book.attachmentDeleted('UA1', ledger.nextSeq());
    const o = observed([second], [doc('1'), second]);
    const withEntities = (companies: { id: string }[]) =>
      ({ ...o, dump: { ...o.dump, companies, trusts: [] } }) as unknown as Observed;
    expect(removals(ledger, withEntities([]))).toEqual([]);
    expect(removals(ledger, withEntities([{ id: 'c1' }]))).toEqual([
      'letter.pdf (bbb), removed from document 1 by a service user, is back: in the folder as Companies/Acme/Minutes 1/letter.pdf',
    ]);
  });

  it('lets bytes a person put back from the trash come back', () => {
    const ledger = start();
    ledger.book.attachmentDeleted('UA1', ledger.nextSeq());
    ledger.book.broughtBack.add('bbb');
    expect(removals(ledger, observed([doc('1'), second]))).toEqual([]);
  });

  it("sees a person's edit of a removed attachment back in the service with no conflict (row 33)", () => {
    const ledger = start();
    ledger.book.attachmentDeleted('UA1', ledger.nextSeq());
    // The person replaced letter.pdf in the folder; docsync uploaded their bytes as a new
    // attachment (modify beats delete), and a second edit of theirs over the first.
    ledger.book.file({ sha: 'ddd', documentId: '1', name: 'letter.pdf', kind: 'user' }, 'person');
    ledger.book.writtenOver.set('1:ddd', '1:bbb');
    const edited = { ...letter, id: 'UA9', sha256: 'ddd' };
    const o = observed([doc('1', [form, edited]), second]);
    const unrecorded =
      "letter.pdf (bbb), removed from document 1 by a service user, is back as a person's edit of it (letter.pdf, ddd), and no conflict was recorded";
    expect(removals(ledger, o)).toEqual([unrecorded]);
    ledger.book.writtenOver.set('1:eee', '1:ddd');
    const again = observed([doc('1', [form, { ...edited, sha256: 'eee' }]), second]);
    expect(removals(ledger, again)).toEqual([unrecorded.replace('ddd', 'eee')]);
    const conflict = { documentId: '1', subject: { kind: 'attachment', file: 'letter.pdf' } };
    expect(removals(ledger, { ...o, conflicts: [conflict] } as unknown as Observed)).toEqual([]);
    // Not up in the service: nothing came back (invariant 1 asks where the edit is).
    expect(removals(ledger, observed([doc('1', [form]), second]))).toEqual([]);
  });

  it('lets an edit docsync uploaded before the removal be', () => {
    const ledger = start();
    const upload = { kind: 'upload-attachment', owner, documentId: '1', sha256: 'ddd' } as const;
    ledger.wroteToService(upload as never, true);
    ledger.book.attachmentDeleted('UA1', ledger.nextSeq());
    ledger.book.writtenOver.set('1:ddd', '1:bbb');
    const edited = { ...letter, id: 'UA9', sha256: 'ddd' };
    expect(removals(ledger, observed([doc('1', [form, edited]), second]))).toEqual([]);
  });

  it('sees a deleted document made again from its folder with no conflict (row 12)', () => {
    const ledger = start();
    ledger.book.serviceDeleted.add('2');
    ledger.book.document(doc('3'), 'docsync');
    ledger.book.madeAgain.set('3', '2');
    const o = observed([doc('1'), doc('3', [{ ...letter, id: 'UA3', sha256: 'ccc' }])]);
    expect(removals(ledger, o)).toEqual([
      'document 2, deleted by a service user, is back in the service as 3, made again from its folder, and no conflict was recorded',
    ]);
    const conflict = { documentId: '3', subject: { kind: 'document' } };
    expect(removals(ledger, { ...o, conflicts: [conflict] } as unknown as Observed)).toEqual([]);
    // The person said the folder stays (row 54), or put back a folder they deleted (row 19).
    ledger.book.deleteDiscarded.add('2');
    expect(removals(ledger, o)).toEqual([]);
    ledger.book.deleteDiscarded.clear();
    ledger.book.folderDeleted('2', ledger.nextSeq(), 0);
    expect(removals(ledger, o)).toEqual([]);
  });
});
