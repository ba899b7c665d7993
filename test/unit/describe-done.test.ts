import { describe, expect, it } from 'vitest';
import { describeDone, documentLabel } from '../../src/domain/describe-done.js';
import type { SyncAction } from '../../src/domain/sync-actions.js';
import type { BaseDocument } from '../../src/domain/types.js';
import { baseDoc, file, owner } from '../helpers/plan-fixtures.js';

const before = baseDoc('1075468', { attachments: [] });
const folder = before.folder;
const common = { owner, documentId: before.id, documentName: before.name };
const placed = (id: string, name: string, size: number) => ({
  id,
  kind: 'user' as const,
  file: name,
  sha256: 'x',
  size,
  mtimeMs: 1,
});
const withFiles = (...files: ReturnType<typeof placed>[]) => ({ ...before, attachments: files });
const attachment = (id: string, name: string) => ({
  id,
  kind: 'user' as const,
  name,
  creationDate: null,
});

describe('describeDone', () => {
  it.each<[string, SyncAction, BaseDocument | null, unknown]>([
    [
      'a pulled file, under the name it was placed with',
      {
        ...common,
        kind: 'pull-attachment',
        row: 3,
        folder,
        attachment: attachment('UA1', 'minutes.pdf'),
        file: 'minutes.pdf',
      },
      withFiles(placed('UA1', 'minutes (2).pdf', 1200)),
      { sentence: 'pulled minutes (2).pdf', direction: 'pulled', count: 1, bytes: 1200 },
    ],
    [
      'a new document, its files counted',
      {
        ...common,
        kind: 'pull-new-document',
        row: 1,
        folder: null,
        document: {
          ...before,
          traceNumber: null,
          asicDocNumber: null,
          status: null,
          attachments: [],
        },
        files: [
          { attachment: attachment('UA1', 'a.pdf'), file: 'a.pdf' },
          { attachment: attachment('UA2', 'b.pdf'), file: 'b.pdf' },
        ],
      },
      withFiles(placed('UA1', 'a.pdf', 10), placed('UA2', 'b.pdf', 20)),
      { sentence: 'pulled a.pdf, b.pdf (new document)', direction: 'pulled', count: 2, bytes: 30 },
    ],
    [
      'a new document without files',
      {
        ...common,
        kind: 'push-new-document',
        row: 2,
        documentId: null,
        folder,
        name: before.name,
        documentDate: before.documentDate,
        files: [],
      },
      withFiles(),
      {
        sentence: 'pushed the new document, with no files',
        direction: 'pushed',
        count: 1,
        bytes: 0,
      },
    ],
    [
      'a pushed file',
      { ...common, kind: 'push-attachment', row: 40, folder, file: file('reply.pdf', 'r') },
      withFiles(placed('UA9', 'reply.pdf', 1)),
      { sentence: 'pushed reply.pdf', direction: 'pushed', count: 1, bytes: 1 },
    ],
    [
      'a status sent',
      {
        ...common,
        kind: 'push-status',
        row: 20,
        folder,
        statusTypeId: '3',
        statusName: 'SENT TO CLIENT',
        effectiveDate: '2020-07-10',
      },
      before,
      { sentence: 'pushed status SENT TO CLIENT, effective 2020-07-10', direction: 'pushed' },
    ],
    [
      'a folder moved to the trash',
      {
        ...common,
        kind: 'trash-local-document',
        row: 7,
        folder,
        mode: 'trash',
        source: 'full-listing',
      },
      null,
      {
        sentence: 'moved the folder to .docsync/trash (deleted in the service)',
        direction: 'deleted',
        count: 1,
      },
    ],
    [
      'a conflict copy, which moves nothing',
      {
        ...common,
        kind: 'keep-conflict-copy',
        row: 42,
        folder,
        file: 'minutes.pdf',
        copyName: 'minutes (conflict 2020-07-10).pdf',
      },
      before,
      {
        sentence: 'kept minutes.pdf as minutes (conflict 2020-07-10).pdf (changed on both sides)',
        direction: null,
        count: 0,
      },
    ],
  ])('says %s', (_case, action, after, expected) => {
    expect(describeDone(action, after)).toMatchObject(expected as object);
  });

  it('says nothing of bookkeeping', () => {
    const action: SyncAction = { ...common, kind: 'update-base', row: 27, patch: {} };
    expect(describeDone(action, before)).toBeNull();
  });

  it('labels a document by its date and name, as its folder starts', () => {
    const action: SyncAction = { ...common, kind: 'forget-document', row: 9 };
    expect(documentLabel(action, before, null)).toBe('2020-07-03 Trustee Minutes');
  });
});
