/** The local work's rules (src/domain/local-work.ts), one case or more per numbered rule. */
import { describe, expect, it } from 'vitest';
import type { LocalChange } from '../../src/domain/local-changes.js';
import { type LocalWorkContext, localWorkOf } from '../../src/domain/local-work.js';
import { baseDoc, entityFolder as E, file } from '../helpers/plan-fixtures.js';

const doc = baseDoc('7');
const attachment = doc.attachments[0]!;
const system = doc.attachments[1]!;
const none: LocalWorkContext = { heldFolders: new Set(), heldDocuments: new Set() };
const newFolder = (folder: string, files = 2): LocalChange => ({
  kind: 'new-folder',
  folder,
  name: 'Loan Agreement',
  documentDate: '2020-07-10',
  files: Array.from({ length: files }, (_, i) => file(`page ${i}.pdf`, `h${i}`)),
});

describe('localWorkOf', () => {
  const cases: [string, LocalChange[], LocalWorkContext, ReturnType<typeof localWorkOf>][] = [
    [
      '1: a new document folder: one document and each of its files',
      [newFolder(`${E}/Loan Agreement`, 3)],
      none,
      { documents: 1, files: 3 },
    ],
    [
      '2: a new folder the first sync held back waits for --adopt-local, not a sync',
      [newFolder(`${E}/Loan Agreement`)],
      { ...none, heldFolders: new Set([`${E}/Loan Agreement`]) },
      null,
    ],
    [
      '3: a file added, replaced, a system form edited: its document, a file each',
      [
        { kind: 'file-added', documentId: '7', file: file('letter.pdf', 'l') },
        { kind: 'file-replaced', documentId: '7', attachment, file: file('minutes.pdf', 'n') },
        { kind: 'system-file-edited', documentId: '7', attachment: system, file: file('x', 'e') },
      ],
      none,
      { documents: 1, files: 3 },
    ],
    [
      '4: a file removed, a system form removed: its document, a file each',
      [
        { kind: 'file-deleted', documentId: '7', attachment },
        { kind: 'system-file-deleted', documentId: '8', attachment: system },
      ],
      none,
      { documents: 2, files: 2 },
    ],
    [
      '5: an edited status: its document, no file',
      [
        {
          kind: 'status-edited',
          documentId: '7',
          statusTypeId: '3',
          statusName: 'LODGED',
          effectiveDate: '2020-07-10',
          changedAtMs: null,
        },
      ],
      none,
      { documents: 1, files: 0 },
    ],
    [
      '6: a removed document folder: its document',
      [{ kind: 'folder-deleted', documentId: '7', folder: doc.folder }],
      none,
      { documents: 1, files: 0 },
    ],
    [
      '6: a removed folder whose delete is held already waits for a person or its time',
      [{ kind: 'folder-deleted', documentId: '7', folder: doc.folder }],
      { ...none, heldDocuments: new Set(['7']) },
      null,
    ],
    [
      '7: a renamed folder, a missing or stale .document.json: its document each',
      [
        { kind: 'folder-moved', documentId: '7', from: doc.folder, to: `${E}/Minutes [7]` },
        { kind: 'meta-missing', documentId: '8', folder: `${E}/x [8]` },
        { kind: 'meta-stale', documentId: '9', folder: `${E}/y [9]` },
      ],
      none,
      { documents: 3, files: 0 },
    ],
    [
      '8: what waits for a person is no work for a sync',
      [
        { kind: 'status-unknown', documentId: '7', statusName: 'FILED?' },
        { kind: 'orphan-folder', documentId: '9', folder: `${E}/copy [9]` },
        { kind: 'duplicate-folder', documentId: '7', folder: `${E}/again [7]` },
        { kind: 'meta-unreadable', documentId: null, folder: `${E}/broken` },
        { kind: 'deletion-held', documentId: '8', folder: `${E}/x [8]` },
      ],
      none,
      null,
    ],
    ['no change: no work', [], none, null],
  ];

  it.each(cases)('%s', (_name, changes, context, expected) => {
    expect(localWorkOf(changes, context)).toEqual(expected);
  });

  it('counts a document once however many of its files changed, beside the rest', () => {
    const changes: LocalChange[] = [
      { kind: 'file-added', documentId: '7', file: file('a.pdf', 'a') },
      { kind: 'file-added', documentId: '7', file: file('b.pdf', 'b') },
      { kind: 'status-unknown', documentId: '7', statusName: 'FILED?' },
      newFolder(`${E}/Loan Agreement`, 1),
    ];
    expect(localWorkOf(changes, none)).toEqual({ documents: 2, files: 3 });
  });
});
