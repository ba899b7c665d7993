/**
 * The record of a new document's pull (`pulls_in_doubt`, engine/settle-pulls.ts): it survives a
 * crash, and goes in the commit that agrees on the document, or with its entity, so a folder the
 * pull left without its base is known as docsync's own after a restart, and only then.
 */
import { describe, expect, it } from 'vitest';
import type { RemoteDocument } from '../../src/domain/types.js';
import { baseDocument, TRUST, useStateStore } from '../helpers/state-store.js';

const state = useStateStore();

const pulled: RemoteDocument = {
  id: '1075468',
  owner: TRUST,
  traceNumber: null,
  name: 'Trustee Minutes or Resolutions',
  documentDate: '2020-07-03',
  asicDocNumber: null,
  lastUpdatedTimestamp: '2020-07-03T04:31:46',
  status: null,
  attachments: [{ id: 'UA1', kind: 'user', name: 'minutes.pdf', creationDate: null }],
};

describe('a pull in doubt', () => {
  it('is still recorded after a crash, as the pull read the document', () => {
    state.open().pullsInDoubt.add(pulled, 100);
    // Closed without a commit: the process died with the folder in place.
    const reopened = state.open();
    expect(reopened.pullsInDoubt.forOwner(TRUST)).toEqual([{ document: pulled, conflict: null }]);
  });

  it('keeps the conflict a download again over a deleted folder is to record (row 9)', () => {
    const conflict = {
      winner: 'remote' as const,
      detail: 'row 9: the folder was deleted while the service changed the document',
      subject: { kind: 'document' as const },
    };
    state.open().pullsInDoubt.add(pulled, 100, conflict);
    expect(state.open().pullsInDoubt.forOwner(TRUST)).toEqual([{ document: pulled, conflict }]);
  });

  it('records a conflict in the commit that agrees on the document', () => {
    const store = state.open();
    const base = baseDocument();
    store.pullsInDoubt.add(pulled, 100);
    store.commitAgreed({
      put: [base],
      conflict: {
        owner: base.owner,
        documentId: base.id,
        copyPath: base.folder,
        winner: 'remote',
        detail: 'row 9: restored',
        subject: { kind: 'document' },
        occurredAt: 100,
      },
    });
    const reopened = state.open();
    expect(reopened.pullsInDoubt.forOwner(TRUST)).toEqual([]);
    expect(reopened.conflicts.list().map((c) => [c.documentId, c.detail])).toEqual([
      [base.id, 'row 9: restored'],
    ]);
  });

  it('goes in the commit that agrees on the document', () => {
    const store = state.open();
    store.pullsInDoubt.add(pulled, 100);
    store.commitAgreed({ put: [baseDocument()] });
    expect(store.pullsInDoubt.forOwner(TRUST)).toEqual([]);
  });

  it('goes with its entity', () => {
    const store = state.open();
    store.pullsInDoubt.add(pulled, 100);
    store.forgetEntity(TRUST);
    expect(store.pullsInDoubt.forOwner(TRUST)).toEqual([]);
  });
});
