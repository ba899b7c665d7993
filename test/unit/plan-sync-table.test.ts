/**
 * One case per row of docs/sync-decision-table.md: the (base, local, remote) of the row, and
 * the exact actions (kind:row) the planner must answer with.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keepLocalStatus, localStatusEdit } from '../../src/domain/local-status-kept.js';
import { type PlanPolicy, planSync } from '../../src/domain/plan-sync.js';
import type { SyncAction } from '../../src/domain/sync-actions.js';
import {
  baseDoc,
  entityFolder as E,
  file,
  folderOf,
  input,
  kindsAndRows,
  NEWER_MS,
  NOW,
  OLDER_MS,
  policy,
  remoteOf,
  type Sides,
} from '../helpers/plan-fixtures.js';

const d = baseDoc();
const newStatus = {
  id: 's2',
  typeId: '3',
  type: 'SENT TO CLIENT',
  effectiveDate: '2020-07-10',
  createdBy: null,
};
const otherStatus = {
  id: 's3',
  typeId: '20',
  type: 'CANCELLED',
  effectiveDate: '2020-07-10',
  createdBy: null,
};
const remoteAttachment = (id: string, name: string) => ({
  id,
  kind: 'user' as const,
  name,
  creationDate: '2020-07-10',
});
const withMeta = (status: string, mtime = OLDER_MS) => {
  const f = folderOf(d);
  return { ...f, metaMtimeMs: mtime, meta: f.meta && { ...f.meta, status } };
};
const withFiles = (files = folderOf(d).files) => folderOf(d, { files });
const userFile = folderOf(d).files[0]!;
const systemFile = folderOf(d).files[1]!;
const newFolder = (files = [file('loan.pdf', 'x')]) => ({
  folder: `${E}/2020-07-05 Loan Agreement`,
  meta: null,
  files,
});

interface Row {
  row: number;
  says: string;
  sides: Sides;
  policy?: Partial<PlanPolicy>;
  expected: string[];
  check?: (actions: readonly SyncAction[]) => void;
}

const rows: Row[] = [
  {
    row: 1,
    says: 'new in the service → download',
    sides: { changed: [remoteOf(d)] },
    expected: ['pull-new-document:1'],
  },
  {
    row: 2,
    says: 'new local folder → create and upload',
    sides: { folders: [newFolder()] },
    expected: ['push-new-document:2'],
    check: ([a]) => expect(a).toMatchObject({ name: 'Loan Agreement', documentDate: '2020-07-05' }),
  },
  {
    row: 3,
    says: 'new local folder on the first sync → listed, not uploaded',
    sides: { folders: [newFolder()] },
    policy: { pullOnly: true },
    expected: ['record-problem:3'],
  },
  { row: 4, says: 'empty new folder → wait', sides: { folders: [newFolder([])] }, expected: [] },
  {
    row: 5,
    says: 'folder with .document.json unknown to the base, service has it → adopt',
    sides: {
      folders: [folderOf(d)],
      changed: [
        remoteOf(d, {
          attachments: [...remoteOf(d).attachments, remoteAttachment('UA9', 'new.pdf')],
        }),
      ],
    },
    expected: ['adopt-local-folder:5', 'pull-attachment:41', 'update-base:27'],
  },
  {
    row: 6,
    says: 'folder with .document.json unknown to both → problem',
    sides: { folders: [folderOf(d)] },
    expected: ['record-problem:6'],
  },
  {
    row: 7,
    says: 'nothing changed → nothing',
    sides: { base: [d], folders: [folderOf(d)] },
    expected: [],
  },
  {
    row: 8,
    says: 'folder deleted → delete in the service',
    sides: { base: [d] },
    expected: ['push-delete-document:8'],
  },
  {
    row: 9,
    says: 'folder deleted, changed in the service → download again',
    sides: { base: [d], changed: [remoteOf(d, { status: newStatus })] },
    expected: ['restore-document:9'],
  },
  {
    row: 10,
    says: 'deleted on both sides → forget',
    sides: { base: [d], deletedIds: [d.id] },
    expected: ['forget-document:10'],
  },
  {
    row: 11,
    says: 'deleted in the service, folder unchanged → trash',
    sides: { base: [d], folders: [folderOf(d)], listedIds: ['other'] },
    expected: ['trash-local-document:11'],
    check: ([a]) => expect(a).toMatchObject({ mode: 'trash', source: 'full-listing' }),
  },
  {
    row: 12,
    says: 'deleted in the service, folder changed → create again',
    sides: {
      base: [d],
      folders: [withFiles([userFile, systemFile, file('new.pdf', 'n')])],
      deletedIds: [d.id],
    },
    expected: ['restore-document:12'],
  },
  {
    row: 13,
    says: 'broken .document.json → left alone, even if deleted in the service',
    sides: {
      base: [d],
      folders: [{ folder: d.folder, meta: null, metaError: 'Unexpected token', files: [] }],
      deletedIds: [d.id],
    },
    expected: ['record-problem:13'],
  },
  {
    row: 14,
    says: '.document.json missing → written again',
    sides: { base: [d], folders: [folderOf(d, { meta: null })] },
    expected: ['write-document-meta:14'],
  },
  {
    row: 15,
    says: 'folder renamed → base follows',
    sides: { base: [d], folders: [folderOf(d, { folder: `${E}/Minutes 2020` })] },
    expected: ['move-base-folder:15'],
  },
  {
    row: 16,
    says: 'unknown document deleted → nothing',
    sides: { deletedIds: ['999'] },
    expected: [],
  },
  {
    row: 17,
    says: 'second folder with the same id → problem',
    sides: { base: [d], folders: [folderOf(d), folderOf(d, { folder: `${E}/copy of minutes` })] },
    expected: ['record-problem:17'],
  },
  {
    row: 18,
    says: 'folder gone while an unattributed .document.json is broken → not deleted',
    sides: {
      base: [d, baseDoc('2002')],
      folders: [folderOf(d), { folder: `${E}/Something`, meta: null, metaError: 'bad', files: [] }],
    },
    expected: ['record-problem:18', 'record-problem:13'],
  },
  {
    row: 19,
    says: 'folder put back after docsync deleted its document in the service → created again from it',
    sides: { folders: [withMeta('sent to client')], deletedInService: [d.id] },
    expected: ['restore-document:19'],
    check: ([a]) => {
      const f = folderOf(d);
      expect(a).toMatchObject({
        side: 'remote',
        putBack: true,
        folder: f.folder,
        name: d.name,
        documentDate: d.documentDate,
        statusTypeId: '3',
        // Every file goes up, the system form too (as row 12): nothing of the folder is lost.
        files: f.files,
      });
      expect(a!.conflict).toBeUndefined();
    },
  },
  {
    row: 56,
    says: 'listed as changed, its details unread → nothing: a new file and a typed status wait',
    sides: {
      base: [d],
      folders: [
        {
          ...withMeta('sent to client'),
          files: [userFile, systemFile, file('letter.pdf', 'l')],
        },
      ],
      unreadIds: [d.id],
    },
    expected: [],
  },
  {
    row: 20,
    says: 'status edited locally → push, effective today',
    sides: { base: [d], folders: [withMeta('sent to client')] },
    expected: ['push-status:20'],
    check: ([a]) => expect(a).toMatchObject({ statusTypeId: '3', effectiveDate: '2020-07-10' }),
  },
  {
    row: 21,
    says: 'status changed in the service → pull',
    sides: { base: [d], folders: [folderOf(d)], changed: [remoteOf(d, { status: newStatus })] },
    expected: ['pull-status:21', 'update-base:27'],
  },
  {
    row: 22,
    says: 'same status on both sides → no conflict',
    sides: {
      base: [d],
      folders: [withMeta('SENT TO CLIENT')],
      changed: [remoteOf(d, { status: newStatus })],
    },
    expected: ['update-base:22', 'update-base:27'],
  },
  {
    row: 23,
    says: 'different statuses, local newer → push',
    sides: {
      base: [d],
      folders: [withMeta('SENT TO CLIENT', NEWER_MS)],
      changed: [remoteOf(d, { status: otherStatus })],
    },
    expected: ['push-status:23', 'update-base:27'],
  },
  {
    row: 24,
    says: 'different statuses, service newer → pull',
    sides: {
      base: [d],
      folders: [withMeta('SENT TO CLIENT', OLDER_MS)],
      changed: [remoteOf(d, { status: otherStatus })],
    },
    expected: ['pull-status:24', 'update-base:27'],
  },
  {
    row: 25,
    says: 'unknown status name → problem, nothing pushed',
    sides: { base: [d], folders: [withMeta('FINISHED')] },
    expected: ['record-problem:25'],
  },
  {
    row: 26,
    says: 'name changed in the service → pull details',
    sides: {
      base: [d],
      folders: [folderOf(d)],
      changed: [remoteOf(d, { name: 'Minutes (signed)' })],
    },
    expected: ['pull-details:26', 'update-base:27'],
  },
  {
    row: 27,
    says: 'only the timestamp moved → remember it',
    sides: { base: [d], folders: [folderOf(d)], changed: [remoteOf(d)] },
    expected: ['update-base:27'],
  },
  {
    row: 28,
    says: 'the agreed status retyped in other letters, or its date alone edited → shown as agreed',
    sides: {
      base: [d, { ...d, id: '1075469', folder: `${E}/2020-07-03 Other [1075469]` }],
      folders: [
        withMeta('Document Prepared'),
        (() => {
          const f = folderOf({ ...d, id: '1075469', folder: `${E}/2020-07-03 Other [1075469]` });
          return { ...f, meta: f.meta && { ...f.meta, statusDate: '2020-08-01' } };
        })(),
      ],
    },
    expected: ['write-document-meta:28', 'write-document-meta:28'],
  },
  {
    row: 29,
    says: 'a status the service refused, and a new attachment → pulled; the rewrite keeps the typed status',
    sides: {
      base: [d],
      folders: [withMeta('Awaiting Partner Signoff')],
      changed: [
        remoteOf(d, {
          attachments: [...remoteOf(d).attachments, remoteAttachment('UA9', 'note.pdf')],
        }),
      ],
    },
    expected: ['record-problem:25', 'pull-attachment:41', 'update-base:27'],
    check: (actions) => {
      // Nothing settles the status: the file's rewrite from the new base keeps it.
      expect(actions.filter((a) => a.kind.endsWith('-status'))).toEqual([]);
      const typed = withMeta('Awaiting Partner Signoff').meta;
      const fromBase = { ...folderOf(d).meta!, lastUpdatedTimestamp: 'newer' };
      const edit = localStatusEdit(typed, folderOf(d).meta!.status);
      expect(keepLocalStatus(fromBase, edit)).toMatchObject({
        status: 'Awaiting Partner Signoff',
        lastUpdatedTimestamp: 'newer',
      });
    },
  },
  {
    row: 55,
    says: 'status edited while status pushes wait → problem, nothing pushed, the edit stays',
    sides: { base: [d], folders: [withMeta('SENT TO CLIENT')], statusPushesWait: true },
    expected: ['record-problem:55'],
    check: ([a]) =>
      expect(a).toMatchObject({
        problem: 'status-push-waits',
        message: expect.stringContaining('"SENT TO CLIENT" is not pushed yet'),
      }),
  },
  {
    row: 30,
    says: 'attachment removed in the service → trash the file',
    sides: {
      base: [d],
      folders: [folderOf(d)],
      changed: [remoteOf(d, { attachments: [remoteOf(d).attachments[1]!] })],
    },
    expected: ['trash-local-attachment:30', 'update-base:27'],
  },
  {
    row: 31,
    says: 'user attachment replaced → upload, then delete the old',
    sides: { base: [d], folders: [withFiles([{ ...userFile, sha256: 'u2' }, systemFile])] },
    expected: ['push-replaced-attachment:31'],
  },
  {
    row: 32,
    says: 'user attachment deleted → delete in the service',
    sides: { base: [d], folders: [withFiles([systemFile])] },
    expected: ['push-delete-attachment:32'],
  },
  {
    row: 33,
    says: 'replaced locally, removed in the service → upload as new',
    sides: {
      base: [d],
      folders: [withFiles([{ ...userFile, sha256: 'u2' }, systemFile])],
      changed: [remoteOf(d, { attachments: [remoteOf(d).attachments[1]!] })],
    },
    expected: ['push-attachment:33', 'update-base:27'],
  },
  {
    row: 34,
    says: 'deleted on both sides → forget the attachment',
    sides: {
      base: [d],
      folders: [withFiles([systemFile])],
      changed: [remoteOf(d, { attachments: [remoteOf(d).attachments[1]!] })],
    },
    expected: ['update-base:34', 'update-base:27'],
  },
  {
    row: 35,
    says: 'system attachment edited → restore, keep the edit',
    sides: { base: [d], folders: [withFiles([userFile, { ...systemFile, sha256: 'edited' }])] },
    expected: ['restore-system-attachment:35'],
    check: ([a]) => expect(a).toMatchObject({ keepEditAs: 'Trustee Minutes (local edit).pdf' }),
  },
  {
    row: 36,
    says: 'system attachment deleted → restore',
    sides: { base: [d], folders: [withFiles([userFile])] },
    expected: ['restore-system-attachment:36'],
  },
  {
    row: 37,
    says: 'system attachment edited, removed in the service → keep the edit as a copy',
    sides: {
      base: [d],
      folders: [withFiles([userFile, { ...systemFile, sha256: 'edited' }])],
      changed: [remoteOf(d, { attachments: [remoteOf(d).attachments[0]!] })],
    },
    expected: ['keep-conflict-copy:37', 'update-base:27'],
  },
  {
    row: 40,
    says: 'new local file → upload',
    sides: { base: [d], folders: [withFiles([userFile, systemFile, file('letter.pdf', 'l')])] },
    expected: ['push-attachment:40'],
  },
  {
    row: 41,
    says: 'new attachment in the service → download',
    sides: {
      base: [d],
      folders: [folderOf(d)],
      changed: [
        remoteOf(d, {
          attachments: [...remoteOf(d).attachments, remoteAttachment('UA9', 'letter.pdf')],
        }),
      ],
    },
    expected: ['pull-attachment:41', 'update-base:27'],
  },
  {
    row: 42,
    says: 'same new name on both sides, service newer → local becomes the conflict copy',
    sides: {
      base: [d],
      folders: [withFiles([userFile, systemFile, file('letter.pdf', 'l', OLDER_MS)])],
      changed: [
        remoteOf(d, {
          attachments: [...remoteOf(d).attachments, remoteAttachment('UA9', 'letter.pdf')],
        }),
      ],
    },
    expected: ['keep-conflict-copy:42', 'pull-attachment:42', 'update-base:27'],
    check: ([copy, pull]) => {
      expect(copy).toMatchObject({
        file: 'letter.pdf',
        copyName: 'letter (conflict 2020-07-10 1200).pdf',
      });
      expect(pull).toMatchObject({ file: 'letter.pdf' });
    },
  },
  {
    row: 43,
    says: 'same new name on both sides, local newer → service copy downloaded to the conflict name',
    sides: {
      base: [d],
      folders: [withFiles([userFile, systemFile, file('letter.pdf', 'l', NEWER_MS)])],
      changed: [
        remoteOf(d, {
          attachments: [...remoteOf(d).attachments, remoteAttachment('UA9', 'letter.pdf')],
        }),
      ],
    },
    expected: ['pull-attachment:43', 'push-attachment:43', 'update-base:27'],
    check: ([pull]) =>
      expect(pull).toMatchObject({ file: 'letter (conflict 2020-07-10 1200).pdf' }),
  },
  {
    row: 44,
    says: 'new attachment named like a kept one → numbered name',
    sides: {
      base: [d],
      folders: [folderOf(d)],
      changed: [
        remoteOf(d, {
          attachments: [...remoteOf(d).attachments, remoteAttachment('UA9', 'minutes.pdf')],
        }),
      ],
    },
    expected: ['pull-attachment:44', 'update-base:27'],
    check: ([a]) => expect(a).toMatchObject({ file: 'minutes (2).pdf' }),
  },
  {
    row: 50,
    says: 'entity folder missing → held and reported, nothing deleted or pulled',
    sides: { base: [d], entityFolder: null, changed: [remoteOf(d, { status: newStatus })] },
    expected: ['record-problem:50'],
    check: ([a]) => expect(a).toMatchObject({ problem: 'entity-folder-missing', folder: E }),
  },
  {
    row: 51,
    says: 'folder gone, found in another entity → reported, not deleted',
    sides: { base: [d], elsewhere: { found: [[d.id, 'Trusts/Other Trust/minutes']] } },
    expected: ['record-problem:51'],
    check: ([a]) => expect(a).toMatchObject({ folder: 'Trusts/Other Trust/minutes' }),
  },
  {
    row: 52,
    says: 'folder naming a document of another entity → reported, never uploaded',
    sides: {
      folders: [
        folderOf(d, { meta: { ...folderOf(d).meta!, owner: { kind: 'company', id: '9' } } }),
      ],
    },
    expected: ['record-problem:52'],
  },
  {
    row: 53,
    says: 'folder deleted, its held delete discarded → download again',
    sides: { base: [d], changed: [remoteOf(d)] },
    policy: { discardedDeletes: new Set([`remote:${d.id}`]) },
    expected: ['restore-document:53'],
    check: ([a]) => expect(a).toMatchObject({ side: 'local' }),
  },
  {
    row: 54,
    says: 'deleted in the service, folder unchanged, its held delete discarded → create again',
    sides: { base: [d], folders: [folderOf(d)], listedIds: ['other'] },
    policy: { discardedDeletes: new Set([`local:${d.id}`]) },
    expected: ['restore-document:54'],
    check: ([a]) => expect(a).toMatchObject({ side: 'remote', name: d.name }),
  },
];

describe('planSync decision table (docs/sync-decision-table.md)', () => {
  it.each(rows)('row $row: $says', ({ sides, policy: change, expected, check }) => {
    const plan = planSync(input(sides), { ...policy, ...change }, NOW);
    expect(kindsAndRows(plan)).toEqual(expected);
    check?.(plan.actions);
  });

  // Every conflict reaches the conflict log, whichever side won (issue 15, case 11).
  const WINNERS: Record<number, 'local' | 'remote'> = {
    9: 'remote',
    12: 'local',
    23: 'local',
    24: 'remote',
    33: 'local',
    37: 'remote',
    42: 'remote',
    43: 'local',
  };
  it.each(rows.filter((r) => r.row in WINNERS))(
    'row $row settles a conflict and says who won',
    ({ row, sides, policy: change }) => {
      const plan = planSync(input(sides), { ...policy, ...change }, NOW);
      const settled = plan.actions.flatMap((a) => (a.conflict ? [[a.row, a.conflict.winner]] : []));
      expect(settled).toEqual([[row, WINNERS[row]]]);
    },
  );

  it('no other row claims a conflict', () => {
    for (const { row, sides, policy: change } of rows.filter((r) => !(r.row in WINNERS))) {
      const plan = planSync(input(sides), { ...policy, ...change }, NOW);
      expect(
        plan.actions.filter((a) => a.conflict).map((a) => a.row),
        `row ${row}`,
      ).toEqual([]);
    }
  });

  it("row 5 records a status the adopted folder showed as lost to the service's", () => {
    const sides = { folders: [withMeta('Awaiting Partner Signoff')], changed: [remoteOf(d)] };
    const plan = planSync(input(sides), policy, NOW);
    expect(kindsAndRows(plan)).toEqual(['adopt-local-folder:5', 'update-base:27']);
    expect(plan.actions[0]).toMatchObject({
      conflict: { winner: 'remote', subject: { kind: 'status', lost: 'Awaiting Partner Signoff' } },
    });
  });

  it("row 12, not 11: a kept (local edit) copy of a system form is a person's work, not trashed", () => {
    const kept = file('Trustee Minutes (local edit).pdf', 'edited');
    const folders = [withFiles([userFile, systemFile, kept])];
    const plan = planSync(input({ base: [d], folders, deletedIds: [d.id] }), policy, NOW);
    expect(kindsAndRows(plan)).toEqual(['restore-document:12']);
    // The copy stays local until the document is made again (row 35); the next cycle uploads it.
    expect(plan.actions[0]).toMatchObject({ files: [userFile, systemFile] });
    const without = { base: [d], folders: [withFiles()], deletedIds: [d.id] };
    expect(kindsAndRows(planSync(input(without), policy, NOW))).toEqual([
      'trash-local-document:11',
    ]);
  });

  it("row 44 names a new file at the numbered name as the pull's clash: it may be the pull, placed before a crash", () => {
    const placed = file('minutes (2).pdf', 'same bytes?');
    const sides = {
      base: [d],
      folders: [withFiles([userFile, systemFile, placed])],
      changed: [
        remoteOf(d, {
          attachments: [...remoteOf(d).attachments, remoteAttachment('UA9', 'minutes.pdf')],
        }),
      ],
    };
    const plan = planSync(input(sides), policy, NOW);
    expect(kindsAndRows(plan)).toEqual([
      'pull-attachment:44',
      'push-attachment:40',
      'update-base:27',
    ]);
    // The executor compares the bytes (identical-clashes.ts): the same, the file is the attachment.
    expect(plan.actions[0]).toMatchObject({
      file: 'minutes (3).pdf',
      clashesWith: 'minutes (2).pdf',
    });
  });

  it('row 18 also holds a deletion while a .document.json elsewhere in the store is unreadable', () => {
    const sides = { base: [d], elsewhere: { unreadable: ['Companies/Acme/Broken'] } };
    expect(kindsAndRows(planSync(input(sides), policy, NOW))).toEqual(['record-problem:18']);
  });

  it('row 51 comes before rows 9 and 10: a moved folder is held whatever the service did', () => {
    const found = { found: [[d.id, 'Trusts/Other Trust/minutes']] as [string, string][] };
    const deleted = { base: [d], elsewhere: found, deletedIds: [d.id] };
    const changed = { base: [d], elsewhere: found, changed: [remoteOf(d, { status: newStatus })] };
    expect(kindsAndRows(planSync(input(deleted), policy, NOW))).toEqual(['record-problem:51']);
    expect(kindsAndRows(planSync(input(changed), policy, NOW))).toEqual(['record-problem:51']);
  });

  it('row 55 also holds a name docsync does not know: it may be a type the service has', () => {
    const sides = { base: [d], folders: [withMeta('FINISHED')], statusPushesWait: true };
    const [waits] = planSync(input(sides), policy, NOW).actions;
    expect(waits).toMatchObject({ kind: 'record-problem', row: 55, problem: 'status-push-waits' });
  });

  it("row 55 with a status the service changed: the service's is pulled, the folder's edit recorded as lost", () => {
    const sides = {
      base: [d],
      folders: [withMeta('SENT TO CLIENT', NEWER_MS)],
      changed: [remoteOf(d, { status: otherStatus })],
      statusPushesWait: true,
    };
    const plan = planSync(input(sides), policy, NOW);
    expect(kindsAndRows(plan)).toEqual(['pull-status:55', 'update-base:27']);
    expect(plan.actions[0]?.conflict).toMatchObject({
      winner: 'remote',
      subject: { kind: 'status', lost: 'SENT TO CLIENT' },
    });
    // The same status on both sides (row 22) and a service change alone (row 21) are as ever.
    const same = { ...sides, changed: [remoteOf(d, { status: newStatus })] };
    const pulled = { ...same, folders: [folderOf(d)] };
    expect(kindsAndRows(planSync(input(same), policy, NOW))).toEqual([
      'update-base:22',
      'update-base:27',
    ]);
    expect(kindsAndRows(planSync(input(pulled), policy, NOW))).toEqual([
      'pull-status:21',
      'update-base:27',
    ]);
  });

  it("row 53 without the service's details does nothing, and never deletes", () => {
    const discarded = { ...policy, discardedDeletes: new Set([`remote:${d.id}`]) };
    expect(kindsAndRows(planSync(input({ base: [d] }), discarded, NOW))).toEqual([]);
  });

  it('a discard on the other side changes nothing: rows 8 and 11 still plan the delete', () => {
    const local = { ...policy, discardedDeletes: new Set([`local:${d.id}`]) };
    const remote = { ...policy, discardedDeletes: new Set([`remote:${d.id}`]) };
    expect(kindsAndRows(planSync(input({ base: [d] }), local, NOW))).toEqual([
      'push-delete-document:8',
    ]);
    const gone = { base: [d], folders: [folderOf(d)], listedIds: ['other'] };
    expect(kindsAndRows(planSync(input(gone), remote, NOW))).toEqual(['trash-local-document:11']);
  });

  it('row 51 names a subfolder of the entity folder as such', () => {
    const archived = `${E}/Archive/minutes`;
    const sides = { base: [d], elsewhere: { found: [[d.id, archived]] as [string, string][] } };
    const [held] = planSync(input(sides), policy, NOW).actions;
    expect(held).toMatchObject({ row: 51, folder: archived });
    expect(held && 'message' in held ? held.message : '').toContain('a subfolder');
  });

  it('has one case for every row of docs/sync-decision-table.md, and no other', () => {
    const table = readFileSync(
      new URL('../../docs/sync-decision-table.md', import.meta.url),
      'utf8',
    );
    const documented = [...table.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(rows.map((r) => r.row)).toEqual(documented);
  });
});
