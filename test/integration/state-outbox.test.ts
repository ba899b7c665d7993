import { describe, expect, it } from 'vitest';
import { StateError } from '../../src/domain/errors.js';
import type { EntryIdentity } from '../../src/domain/types.js';
import type { NewPush } from '../../src/state/outbox-repo.js';
import { baseDocument, TRUST, useStateStore } from '../helpers/state-store.js';

const state = useStateStore();

const upload: NewPush = {
  owner: TRUST,
  documentId: '1075468',
  kind: 'upload-attachment',
  payload: { fileName: 'signed.pdf', sha256: 'b'.repeat(64), size: 6, mtimeMs: 1 },
};
/** The same upload, of another content. */
const uploadOf = (sha: string): NewPush => ({
  ...upload,
  kind: 'upload-attachment',
  payload: { ...upload.payload, sha256: sha.repeat(64) },
});

describe('outbox', () => {
  it('walks a push through pending → sent → done', () => {
    const { outbox } = state.open();
    const id = outbox.record(upload, 100);
    expect(outbox.get(id)).toMatchObject({
      state: 'pending',
      attempts: 0,
      createdAt: 100,
      payload: upload.payload,
    });
    expect(outbox.pending(100).map((p) => p.id)).toEqual([id]);

    outbox.markSent(id, 110);
    expect(outbox.pending(110)).toEqual([]);
    expect(outbox.inDoubt().map((p) => p.id)).toEqual([id]);

    outbox.markDone(id, { result: { id: 'UA99' } }, 120);
    expect(outbox.get(id)).toMatchObject({
      state: 'done',
      attempts: 1,
      sentAt: 110,
      result: { id: 'UA99' },
    });
    expect(outbox.inDoubt()).toEqual([]);
    expect(outbox.counts()).toEqual({ pending: 0, sent: 0, failed: 0 });
  });

  it('keeps a sent push in doubt across a crash (closed without marking done)', () => {
    const first = state.open();
    const id = first.outbox.record(upload);
    first.outbox.markSent(id);
    first.db.close(); // no completion, no cleanup: what a crash leaves behind

    const reopened = state.open();
    expect(reopened.outbox.inDoubt()).toMatchObject([
      { id, state: 'sent', attempts: 1, payload: upload.payload },
    ]);
    expect(reopened.outbox.pending()).toEqual([]);
  });

  it('returns the open push when the same change is recorded again, a new one once done', () => {
    const { outbox } = state.open();
    const id = outbox.record(upload);
    expect(outbox.record({ ...upload, payload: { ...upload.payload, size: 7 } })).toBe(id);
    expect(outbox.record(uploadOf('c'))).not.toBe(id);
    outbox.markSent(id);
    expect(outbox.record(upload)).toBe(id);
    outbox.markDone(id);
    expect(outbox.record(upload)).not.toBe(id);
  });

  it('knows a create by its folder on disk: renamed, it is the same open push, with what it sends now', () => {
    const { outbox } = state.open();
    const create = (folder: string, name: string, folderIdentity = '64768:1234'): NewPush => ({
      owner: TRUST,
      documentId: null,
      kind: 'create-document',
      payload: {
        name,
        documentDate: '2026-10-20',
        folder,
        folderIdentity: folderIdentity as EntryIdentity,
      },
    });
    const id = outbox.record(create('Trusts/T/2026-10-20 New a', 'New a'));
    // Refused (a 4xx), waiting out its backoff: the same request again is held back.
    outbox.markSent(id, 0);
    outbox.markFailed(id, '422 name', 60_000, 1);
    expect(outbox.record(create('Trusts/T/2026-10-20 New a', 'New a'), 2)).toBe(id);
    expect(outbox.pending(2)).toEqual([]);
    // Renamed to another name: the same push, due at once, sending the new name.
    expect(outbox.record(create('Trusts/T/2026-10-20 New b', 'New b'), 3)).toBe(id);
    expect(outbox.get(id)).toMatchObject({
      state: 'pending',
      payload: { name: 'New b', folder: 'Trusts/T/2026-10-20 New b' },
    });
    // Sent, and in doubt: renamed again, it is still that push, as it was sent.
    outbox.markSent(id, 4);
    expect(outbox.record(create('Trusts/T/New c', 'New c'), 5)).toBe(id);
    expect(outbox.get(id)).toMatchObject({ state: 'sent', payload: { name: 'New b' } });
    // Another folder (another inode) is another create.
    expect(outbox.record(create('Trusts/T/New c', 'New c', '64768:99'))).not.toBe(id);
  });

  it('closes an in-doubt push the service shows no trace of; planning it again opens a new one', () => {
    const { outbox } = state.open();
    const id = outbox.record(upload);
    outbox.markSent(id);
    outbox.dropUnsent(id);
    expect(outbox.get(id)).toMatchObject({ state: 'done', result: { sent: false } });
    expect(outbox.pending()).toEqual([]);
    expect(() => outbox.dropUnsent(id)).toThrow(StateError);
    expect(outbox.record(upload)).not.toBe(id);
  });

  it('retries a failed push once it is due, and never one that needs a person', () => {
    const { outbox } = state.open();
    const retried = outbox.record(upload);
    const stuck = outbox.record({
      ...upload,
      kind: 'delete-attachment',
      payload: { attachmentId: 'F1' },
    });
    outbox.markSent(retried, 0);
    outbox.markFailed(retried, '503 Service Unavailable', 60_000, 1);
    outbox.markSent(stuck, 0);
    outbox.markFailed(stuck, '403 system attachments cannot be deleted', null, 1);

    expect(outbox.pending(59_999)).toEqual([]);
    expect(outbox.pending(60_000).map((p) => p.id)).toEqual([retried]);
    expect(outbox.failed().map((p) => [p.id, p.lastError])).toEqual([
      [retried, '503 Service Unavailable'],
      [stuck, '403 system attachments cannot be deleted'],
    ]);
    outbox.markSent(retried, 60_000);
    expect(outbox.get(retried)?.attempts).toBe(2);
    expect(outbox.counts()).toEqual({ pending: 0, sent: 1, failed: 1 });
  });

  it('closes the open pushes of one file only: a name that begins with another is another file', () => {
    const { outbox } = state.open();
    const named = (fileName: string): NewPush => ({
      ...upload,
      kind: 'upload-attachment',
      payload: { ...upload.payload, fileName },
    });
    const longer = outbox.record(named('x.pdf: y.pdf'));
    const refused = outbox.record(named('x.pdf'));
    outbox.markSent(longer);
    outbox.markFailed(longer, '413 Payload Too Large', 60_000);
    outbox.markSent(refused);
    outbox.markFailed(refused, '413 Payload Too Large', 60_000);

    expect(outbox.supersede('1075468', 'x.pdf')).toBe(1);

    expect(outbox.get(refused)).toMatchObject({ state: 'done', result: { superseded: true } });
    expect(outbox.get(longer)).toMatchObject({ state: 'failed' });
    expect(outbox.get(longer)?.idempotencyKey).not.toBe(outbox.get(refused)?.idempotencyKey);
  });

  it('refuses impossible transitions loudly', () => {
    const { outbox } = state.open();
    const id = outbox.record(upload);
    outbox.markSent(id);
    expect(() => outbox.markSent(id)).toThrow(/cannot become sent: it is sent/);
    outbox.markDone(id);
    expect(() => outbox.markDone(id)).toThrow(StateError);
    expect(() => outbox.markFailed(id, 'x', null)).toThrow(StateError);
    expect(() => outbox.markSent(999)).toThrow(/does not exist/);
  });

  it('holds uploads for a new document until its create is done, then hands them its id', () => {
    const { outbox } = state.open();
    const create = outbox.record({
      owner: TRUST,
      documentId: null,
      kind: 'create-document',
      payload: { name: 'Minutes', documentDate: '2024-05-01', folder: 'Trusts/Smith/Minutes' },
    });
    const child = outbox.record({ ...upload, documentId: null, dependsOn: create });
    expect(outbox.pending().map((p) => p.id)).toEqual([create]);

    outbox.markSent(create);
    outbox.markDone(create, { documentId: '2000001', result: { id: '2000001' } });
    expect(outbox.pending()).toMatchObject([{ id: child, documentId: '2000001' }]);
  });

  it('prunes old done pushes but keeps the parent of an open one', () => {
    const { outbox } = state.open();
    const parent = outbox.record(
      {
        ...upload,
        kind: 'create-document',
        payload: { name: 'Minutes', documentDate: '2024-05-01', folder: 'Trusts/Smith/Minutes' },
      },
      0,
    );
    const child = outbox.record({ ...uploadOf('c'), dependsOn: parent }, 0);
    const old = outbox.record(uploadOf('d'), 0);
    outbox.markDone(parent, {}, 10);
    outbox.markDone(old, {}, 10);
    expect(outbox.pruneDone(1000)).toBe(1);
    expect(outbox.get(old)).toBeNull();
    expect(outbox.get(parent)).not.toBeNull();
    outbox.markDone(child, {}, 20);
    expect(outbox.pruneDone(1000)).toBe(2);
  });
});

describe('completing a push with its base', () => {
  it('writes the outbox completion and the base in one commit', () => {
    const store = state.open();
    const id = store.outbox.record(upload);
    store.outbox.markSent(id);
    store.commitAgreed({ push: { id, result: { id: 'UA12' } }, put: [baseDocument()] });
    expect(store.outbox.get(id)?.state).toBe('done');
    expect(store.base.get('1075468')).toEqual(baseDocument());
  });

  it('leaves the push in doubt and the base untouched when the base write fails', () => {
    const store = state.open();
    const id = store.outbox.record(upload);
    store.outbox.markSent(id);
    const broken = baseDocument({ owner: { kind: 'partnership' as never, id: '1' } });
    expect(() => store.commitAgreed({ push: { id }, put: [broken] })).toThrow(/CHECK/);
    expect(store.outbox.get(id)?.state).toBe('sent');
    expect(store.base.get('1075468')).toBeNull();
  });

  it('removes the base of a deleted document with its completion', () => {
    const store = state.open();
    store.base.put(baseDocument());
    const id = store.outbox.record({
      ...upload,
      kind: 'delete-document',
      payload: { folder: 'Trusts/Smith/Minutes' },
    });
    store.outbox.markSent(id);
    store.commitAgreed({ push: { id }, remove: ['1075468'] });
    expect(store.base.get('1075468')).toBeNull();
  });
});
