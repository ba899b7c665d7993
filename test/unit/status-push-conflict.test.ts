/**
 * A status push that wins a conflict (row 23) carries its conflict in its outbox payload, and the
 * commit that completes it records the conflict: the record must say what a person reads in
 * `docsync conflicts` (the row, what was lost, where), whether the push's answer came back or the
 * push was found carried out after its answer was lost.
 */
import { describe, expect, it } from 'vitest';
import type { SyncAction } from '../../src/domain/sync-actions.js';
import { pushCompleted } from '../../src/engine/commit-agreed.js';
import { pushedStatusConflict, statusPushConflict } from '../../src/engine/record-conflict.js';
import { parsePushPayload } from '../../src/state/outbox-payloads.js';
import { baseDoc, owner } from '../helpers/plan-fixtures.js';

const base = baseDoc();
const push: SyncAction = {
  owner,
  documentId: base.id,
  documentName: base.name,
  kind: 'push-status',
  row: 23,
  folder: base.folder,
  statusTypeId: '2',
  statusName: 'DOCUMENT PREPARED',
  effectiveDate: '2030-01-07',
  replacesStatusId: 's7',
  conflict: {
    winner: 'local',
    detail: `status set on both sides: the folder's "DOCUMENT PREPARED" is newer than the service's "LODGED" and was pushed`,
    subject: { kind: 'status', lost: 'LODGED' },
  },
};

describe('the conflict a status push settles', () => {
  it('is kept with the push, and survives the outbox payload', () => {
    const kept = statusPushConflict(push);
    expect(kept).toEqual({
      detail: `row 23: status set on both sides: the folder's "DOCUMENT PREPARED" is newer than the service's "LODGED" and was pushed`,
      lost: 'LODGED',
    });
    const payload = { typeId: '2', effectiveDate: '2030-01-07', conflict: kept };
    expect(parsePushPayload('assign-status', JSON.parse(JSON.stringify(payload)))).toEqual(payload);
  });

  it('is none for a status pushed with no conflict (row 20)', () => {
    const { conflict: _, ...plain } = push as Extract<SyncAction, { kind: 'push-status' }>;
    expect(statusPushConflict({ ...plain, row: 20 })).toBeUndefined();
    expect(parsePushPayload('assign-status', { typeId: '2', effectiveDate: '2030-01-07' })).toEqual(
      {
        typeId: '2',
        effectiveDate: '2030-01-07',
      },
    );
  });

  it("is recorded by the commit that completes the push, naming the folder's status as the winner", () => {
    const conflict = pushedStatusConflict(owner, base, statusPushConflict(push)!, 1_000);
    expect(conflict).toEqual({
      owner,
      documentId: base.id,
      attachmentId: null,
      copyPath: base.folder,
      winner: 'local',
      detail: statusPushConflict(push)!.detail,
      subject: { kind: 'status', lost: 'LODGED' },
      occurredAt: 1_000,
    });
    expect(pushCompleted(7, { base, conflict })).toEqual({
      push: { id: 7 },
      put: [base],
      conflict,
    });
  });
});
