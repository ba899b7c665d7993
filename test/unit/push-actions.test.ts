/**
 * A push settled after a crash must leave the agreed state the executor would have left had the
 * push answered at once: both go through applyActionResult, the settlement with the action
 * rebuilt from the outbox payload (push-actions.ts).
 */
import { describe, expect, it } from 'vitest';
import { type ActionResult, applyActionResult } from '../../src/domain/apply-action-result.js';
import type { SyncAction } from '../../src/domain/sync-actions.js';
import { actionOfPush } from '../../src/engine/push-actions.js';
import type { TypedPush } from '../../src/state/outbox-payloads.js';
import { baseDoc, file, owner, remoteOf } from '../helpers/plan-fixtures.js';

const base = baseDoc();
const common = { owner, documentId: base.id, documentName: base.name };
const newFile = file('signed.pdf', 'abc');
const attachment = { id: 'UA9', kind: 'user' as const, name: 'signed.pdf', creationDate: null };
const status = {
  id: 's2',
  typeId: '3',
  type: 'SENT TO CLIENT',
  effectiveDate: '2020-07-10',
  createdBy: null,
};
const payloadOf = { fileName: newFile.name, sha256: 'abc', size: 1, mtimeMs: newFile.mtimeMs };

type SettledPush = Exclude<TypedPush, { kind: 'create-document' | 'delete-document' }>;

const cases: { name: string; push: SettledPush; planned: SyncAction; result: ActionResult }[] = [
  {
    name: 'upload',
    push: { kind: 'upload-attachment', payload: payloadOf },
    planned: { ...common, kind: 'push-attachment', row: 40, folder: base.folder, file: newFile },
    result: { kind: 'attachment-created', attachment },
  },
  {
    name: 'replace',
    push: {
      kind: 'replace-attachment',
      payload: { ...payloadOf, replacesAttachmentId: base.attachments[0]!.id },
    },
    planned: {
      ...common,
      kind: 'push-replaced-attachment',
      row: 31,
      folder: base.folder,
      file: newFile,
      replacesAttachmentId: base.attachments[0]!.id,
    },
    result: { kind: 'attachment-created', attachment },
  },
  {
    name: 'delete an attachment',
    push: { kind: 'delete-attachment', payload: { attachmentId: base.attachments[0]!.id } },
    planned: {
      ...common,
      kind: 'push-delete-attachment',
      row: 32,
      folder: base.folder,
      attachmentId: base.attachments[0]!.id,
      file: base.attachments[0]!.file,
    },
    result: { kind: 'done' },
  },
  {
    name: 'assign a status',
    push: { kind: 'assign-status', payload: { typeId: '3', effectiveDate: '2020-07-10' } },
    planned: {
      ...common,
      kind: 'push-status',
      row: 20,
      folder: base.folder,
      statusTypeId: '3',
      statusName: 'SENT TO CLIENT',
      effectiveDate: '2020-07-10',
    },
    result: { kind: 'status-created', status },
  },
];

describe('the action of an outbox entry', () => {
  it.each(cases)('$name: settled later, the base is what the executor makes', (c) => {
    const settled = applyActionResult(base, actionOfPush({ ...c.push, ...common }, base), c.result);
    expect(settled).toEqual(applyActionResult(base, c.planned, c.result));
    expect(settled).not.toEqual(base);
  });

  it('create: the new document with its folder and no file yet', () => {
    const document = remoteOf(baseDoc('2001'));
    const push = {
      kind: 'create-document',
      payload: { name: document.name, documentDate: document.documentDate, folder: 'T/New' },
      owner,
      documentId: null,
    } as const;
    const created = applyActionResult(null, actionOfPush(push, null), {
      kind: 'document-created',
      document,
      files: new Map(),
    });
    expect(created).toMatchObject({ id: '2001', folder: 'T/New', attachments: [] });
  });
});
