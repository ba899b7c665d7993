import { describe, expect, it } from 'vitest';
import { detectLocalChanges } from '../../src/domain/local-changes.js';
import { detectRemoteChanges } from '../../src/domain/remote-changes.js';
import type { BaseDocument } from '../../src/domain/types.js';
import {
  baseDoc,
  entityFolder as E,
  file,
  folderOf,
  owner,
  remoteOf,
  statusTypes,
} from '../helpers/plan-fixtures.js';

const TODAY = '2020-07-10';
const baseOf = (...docs: BaseDocument[]) => new Map(docs.map((d) => [d.id, d]));

describe('detectLocalChanges', () => {
  it('recognises every user action of the local action table exactly once', () => {
    const [added, replaced, deleted, status, gone, moved, sysEdit, sysDelete] = [
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
    ].map((id) => baseDoc(id)) as [
      BaseDocument,
      BaseDocument,
      BaseDocument,
      BaseDocument,
      BaseDocument,
      BaseDocument,
      BaseDocument,
      BaseDocument,
    ];
    const docs = [added, replaced, deleted, status, gone, moved, sysEdit, sysDelete];
    const files = (d: BaseDocument) => folderOf(d).files;
    const meta = folderOf(status).meta!;
    const snapshot = {
      owner,
      folder: E,
      documents: [
        { folder: `${E}/Loan Agreement`, meta: null, files: [file('loan.pdf', 'x')] },
        folderOf(added, { files: [...files(added), file('letter.pdf', 'l')] }),
        folderOf(replaced, {
          files: [{ ...files(replaced)[0]!, sha256: 'new' }, files(replaced)[1]!],
        }),
        folderOf(deleted, { files: [files(deleted)[1]!] }),
        folderOf(status, { meta: { ...meta, status: 'sent to client' } }),
        folderOf(moved, { folder: `${E}/Renamed` }),
        folderOf(sysEdit, { files: [files(sysEdit)[0]!, { ...files(sysEdit)[1]!, sha256: 'e' }] }),
        folderOf(sysDelete, { files: [files(sysDelete)[0]!] }),
      ],
      skipped: [],
      unsettled: 0,
    };
    const changes = detectLocalChanges(baseOf(...docs), snapshot, statusTypes, TODAY);
    expect(changes.map((c) => c.kind).sort()).toEqual(
      [
        'file-added',
        'file-deleted',
        'file-replaced',
        'folder-deleted',
        'folder-moved',
        'new-folder',
        'status-edited',
        'system-file-deleted',
        'system-file-edited',
      ].sort(),
    );
    expect(changes).toContainEqual(
      expect.objectContaining({ kind: 'new-folder', name: 'Loan Agreement', documentDate: TODAY }),
    );
    expect(changes).toContainEqual(
      expect.objectContaining({ kind: 'folder-deleted', documentId: gone.id }),
    );
    expect(changes).toContainEqual(
      expect.objectContaining({ kind: 'status-edited', statusTypeId: '3', effectiveDate: TODAY }),
    );
  });

  it('takes the effective date from an edited statusDate', () => {
    const d = baseDoc();
    const meta = { ...folderOf(d).meta!, status: 'CANCELLED', statusDate: '2020-07-08' };
    const snapshot = {
      owner,
      folder: E,
      documents: [folderOf(d, { meta })],
      skipped: [],
      unsettled: 0,
    };
    const [change] = detectLocalChanges(baseOf(d), snapshot, statusTypes, TODAY);
    expect(change).toMatchObject({
      kind: 'status-edited',
      statusTypeId: '20',
      effectiveDate: '2020-07-08',
    });
  });

  it('never reads a broken .document.json as a deleted document', () => {
    const d = baseDoc();
    const broken = {
      folder: `${E}/renamed by hand`,
      meta: null,
      metaError: 'Unexpected end',
      files: [],
    };
    const snapshot = { owner, folder: E, documents: [broken], skipped: [], unsettled: 0 };
    const kinds = detectLocalChanges(baseOf(d), snapshot, statusTypes, TODAY).map((c) => c.kind);
    expect(kinds).not.toContain('folder-deleted');
    expect(kinds).toEqual(['deletion-held', 'meta-unreadable']);
  });

  it('ties a broken .document.json to its document by the [id] in the folder name', () => {
    const d = baseDoc();
    const broken = { folder: `${E}/moved [${d.id}]`, meta: null, metaError: 'bad', files: [] };
    const changes = detectLocalChanges(
      baseOf(d),
      { owner, folder: E, documents: [broken], skipped: [], unsettled: 0 },
      statusTypes,
      TODAY,
    );
    expect(changes).toEqual([
      { kind: 'meta-unreadable', documentId: d.id, folder: broken.folder, detail: 'bad' },
    ]);
  });

  it('reports nothing for an unchanged folder', () => {
    const d = baseDoc();
    expect(
      detectLocalChanges(
        baseOf(d),
        { owner, folder: E, documents: [folderOf(d)], skipped: [], unsettled: 0 },
        statusTypes,
        TODAY,
      ),
    ).toEqual([]);
  });
});

describe('detectRemoteChanges', () => {
  const d = baseDoc();
  const status = {
    id: 's9',
    typeId: '3',
    type: 'SENT TO CLIENT',
    effectiveDate: '2020-07-10',
    createdBy: null,
  };
  const extra = { id: 'UA9', kind: 'user' as const, name: 'letter.pdf', creationDate: null };

  it.each([
    ['new document', baseOf(), [remoteOf(d)], null, undefined, ['remote-new']],
    ['status changed', baseOf(d), [remoteOf(d, { status })], null, undefined, ['remote-status']],
    [
      'attachment added and removed',
      baseOf(d),
      [remoteOf(d, { attachments: [remoteOf(d).attachments[1]!, extra] })],
      null,
      undefined,
      ['remote-attachment-added', 'remote-attachment-removed'],
    ],
    [
      'name changed',
      baseOf(d),
      [remoteOf(d, { name: 'New' })],
      null,
      undefined,
      ['remote-details'],
    ],
    [
      'same content, µs vs s timestamp',
      baseOf(d),
      [remoteOf(d, { lastUpdatedTimestamp: `${d.lastUpdatedTimestamp}.108264` })],
      null,
      undefined,
      ['remote-touched'],
    ],
    [
      'absent from a full listing',
      baseOf(d),
      [],
      new Set(['other']),
      undefined,
      ['remote-deleted'],
    ],
    ['named by a deleteDocument event', baseOf(d), [], null, new Set([d.id]), ['remote-deleted']],
    ['incremental listing without it', baseOf(d), [], null, undefined, []],
    [
      'event says deleted but details were just read',
      baseOf(d),
      [remoteOf(d, { lastUpdatedTimestamp: d.lastUpdatedTimestamp })],
      null,
      new Set([d.id]),
      [],
    ],
  ] as const)('%s', (_name, base, changed, listedIds, deletedIds, expected) => {
    const remote = { changed, listedIds, ...(deletedIds ? { deletedIds } : {}) };
    expect(detectRemoteChanges(base, remote).map((c) => c.kind)).toEqual(expected);
  });

  it('says where a deletion is known from', () => {
    const viaEvent = detectRemoteChanges(baseOf(d), {
      changed: [],
      listedIds: new Set(),
      deletedIds: new Set([d.id]),
    });
    expect(viaEvent).toEqual([
      { kind: 'remote-deleted', documentId: d.id, source: 'delete-event' },
    ]);
  });
});
