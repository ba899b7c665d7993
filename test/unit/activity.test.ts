import { describe, expect, it } from 'vitest';
import { type ActivityItem, activityOf, describeChange } from '../../src/domain/activity.js';
import type { SyncAction } from '../../src/domain/sync-actions.js';
import type { BaseDocument } from '../../src/domain/types.js';
import { baseDoc, file, owner, remoteOf } from '../helpers/plan-fixtures.js';

const base = baseDoc('500');
const common = { row: 1, owner, documentId: base.id, documentName: base.name } as const;
const folder = base.folder;
const remote = remoteOf(base);
/** The base after a pull that placed the user attachment under another name (a name taken). */
const placed: BaseDocument = {
  ...base,
  attachments: base.attachments.map((a) =>
    a.kind === 'user' ? { ...a, file: 'minutes (2).pdf' } : a,
  ),
};

const line = (over: Partial<ActivityItem>): ActivityItem => ({
  documentId: base.id,
  documentName: base.name,
  change: 'pulled',
  file: null,
  detail: null,
  ...over,
});

const cases: readonly [string, SyncAction, BaseDocument | null, ActivityItem[]][] = [
  [
    'a new document: one line per file, as placed',
    {
      ...common,
      kind: 'pull-new-document',
      document: remote,
      folder: null,
      files: remote.attachments.map((a) => ({ attachment: a, file: a.name })),
    },
    placed,
    [
      line({ file: 'minutes (2).pdf', detail: 'new document' }),
      line({ file: 'Trustee Minutes.pdf', detail: 'new document' }),
    ],
  ],
  [
    'a file pulled into a name taken locally',
    {
      ...common,
      kind: 'pull-attachment',
      folder,
      attachment: remote.attachments[0]!,
      file: 'minutes.pdf',
    },
    placed,
    [line({ file: 'minutes (2).pdf' })],
  ],
  [
    'a file pushed',
    { ...common, kind: 'push-attachment', folder, file: file('notes.txt', 'n1') },
    base,
    [line({ change: 'pushed', file: 'notes.txt' })],
  ],
  [
    'a new local document pushed, its id learnt',
    {
      ...common,
      documentId: null,
      kind: 'push-new-document',
      folder,
      name: base.name,
      documentDate: base.documentDate,
      files: [],
    },
    { ...base, attachments: [] },
    [line({ change: 'pushed', detail: 'new document' })],
  ],
  [
    'a status pushed',
    {
      ...common,
      kind: 'push-status',
      folder,
      statusTypeId: '3',
      statusName: 'SENT TO CLIENT',
      effectiveDate: '2020-07-10',
    },
    base,
    [line({ change: 'pushed', detail: 'status SENT TO CLIENT, from 2020-07-10' })],
  ],
  [
    'a document deleted in the service',
    { ...common, kind: 'push-delete-document', folder },
    null,
    [line({ change: 'deleted-in-service', detail: 'its copy is in .docsync/trash' })],
  ],
  [
    'a folder moved to the trash',
    {
      ...common,
      kind: 'trash-local-document',
      folder,
      mode: 'trash',
      source: 'full-listing',
    },
    null,
    [line({ change: 'trashed-locally', detail: 'deleted in the service' })],
  ],
  [
    'a folder deleted (onRemoteDelete: delete)',
    {
      ...common,
      kind: 'trash-local-document',
      folder,
      mode: 'delete',
      source: 'delete-event',
    },
    null,
    [line({ change: 'deleted-locally', detail: 'deleted in the service' })],
  ],
  [
    'a conflict copy kept',
    {
      ...common,
      kind: 'keep-conflict-copy',
      folder,
      file: 'minutes.pdf',
      copyName: 'minutes (conflict 2020-07-10 1200).pdf',
    },
    base,
    [
      line({
        change: 'conflict',
        file: 'minutes.pdf',
        detail: 'changed on both sides; kept as minutes (conflict 2020-07-10 1200).pdf',
      }),
    ],
  ],
  ['bookkeeping', { ...common, kind: 'update-base', patch: { name: 'x' } }, base, []],
];

describe('activityOf: what the feed shows for a finished action', () => {
  it.each(cases)('%s', (_name, action, after, expected) => {
    expect(activityOf(action, after)).toEqual(expected);
  });

  it('says each direction in words', () => {
    expect(describeChange('trashed-locally')).toBe('moved to the trash');
    expect(describeChange('deleted-in-service')).toBe('deleted in the service');
  });
});
