import { describe, expect, it } from 'vitest';
import { StateError } from '../../src/domain/errors.js';
import type { Company, Trust } from '../../src/domain/types.js';
import { baseDocument, COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';

const state = useStateStore();

const company: Company = {
  kind: 'company',
  id: COMPANY.id,
  name: 'Acme Pty Ltd',
  number: '123456789',
  businessNumber: '12345678901',
  raw: { id: COMPANY.id, name: 'Acme Pty Ltd', registered: true },
};
const trust: Trust = {
  kind: 'trust',
  id: TRUST.id,
  name: 'Smith Family Trust',
  abn: null,
  type: 'DISCRETIONARY',
  raw: { id: 20053, name: 'Smith Family Trust', abn: null },
};

describe('entities', () => {
  it('round-trips companies and trusts with their folder, and finds them by folder', () => {
    const { entities } = state.open();
    entities.upsert({
      entity: company,
      folder: 'Companies/Acme (123 456 789)',
      matchedBy: 'number',
      updatedAt: 1,
    });
    entities.upsert({ entity: trust, folder: null, matchedBy: null, updatedAt: 2 });

    expect(entities.get(COMPANY)).toEqual({
      entity: company,
      folder: 'Companies/Acme (123 456 789)',
      matchedBy: 'number',
      updatedAt: 1,
    });
    expect(entities.get(TRUST)?.entity).toEqual(trust);
    expect(entities.findByFolder('Companies/Acme (123 456 789)')?.entity.id).toBe(COMPANY.id);
    expect(entities.findByFolder('Trusts/Nobody')).toBeNull();
    expect(entities.list().map((r) => r.entity.kind)).toEqual(['company', 'trust']);
  });

  it('updates in place and removes', () => {
    const { entities } = state.open();
    entities.upsert({ entity: trust, folder: null, matchedBy: null, updatedAt: 1 });
    entities.upsert({
      entity: { ...trust, name: 'Renamed' },
      folder: 'Trusts/Renamed',
      matchedBy: 'created',
      updatedAt: 2,
    });
    expect(entities.list()).toHaveLength(1);
    expect(entities.get(TRUST)).toMatchObject({
      folder: 'Trusts/Renamed',
      entity: { name: 'Renamed' },
    });
    expect(entities.remove(TRUST)).toBe(true);
    expect(entities.remove(TRUST)).toBe(false);
    expect(entities.get(TRUST)).toBeNull();
  });

  it('refuses to link one folder to two entities', () => {
    const { entities } = state.open();
    entities.upsert({ entity: company, folder: 'Shared', matchedBy: 'name', updatedAt: 1 });
    expect(() =>
      entities.upsert({ entity: trust, folder: 'Shared', matchedBy: 'name', updatedAt: 1 }),
    ).toThrow(/UNIQUE/);
  });

  it('keeps the latest list of local folders that match nothing', () => {
    const { entities } = state.open();
    entities.replaceUnmatchedFolders([
      {
        folder: 'Companies/Old Co',
        kind: 'company',
        reason: 'no company with that name',
        seenAt: 1,
      },
      { folder: 'Trusts/Lost', kind: 'trust', reason: 'no trust with that name', seenAt: 1 },
    ]);
    entities.replaceUnmatchedFolders([
      { folder: 'Trusts/Lost', kind: 'trust', reason: 'still nothing', seenAt: 2 },
    ]);
    expect(entities.listUnmatchedFolders()).toEqual([
      { folder: 'Trusts/Lost', kind: 'trust', reason: 'still nothing', seenAt: 2 },
    ]);
  });
});

describe('cursors', () => {
  it('moves forward only, comparing timestamps of mixed precision as instants', () => {
    const { cursors } = state.open();
    expect(cursors.get(TRUST)).toBeNull();
    expect(cursors.advance(TRUST, '2020-07-03T04:31:46')).toBe(true);
    expect(cursors.advance(TRUST, '2020-07-03T04:31:46.108264')).toBe(true);
    // The same instant with less precision, an earlier one, and the same one again: no move.
    expect(cursors.advance(TRUST, '2020-07-03T04:31:46.108264Z')).toBe(false);
    expect(cursors.advance(TRUST, '2020-07-03T04:31:46Z')).toBe(false);
    expect(cursors.advance(TRUST, '2019-12-31T23:59:59.999999')).toBe(false);
    expect(cursors.get(TRUST)?.cursor).toBe('2020-07-03T04:31:46.108264');
    expect(cursors.advance(TRUST, '2020-07-03T04:31:47Z')).toBe(true);
    expect(cursors.get(TRUST)?.cursor).toBe('2020-07-03T04:31:47Z');
  });

  it('refuses a malformed cursor instead of storing it', () => {
    const { cursors } = state.open();
    expect(() => cursors.advance(TRUST, '03/07/2020')).toThrow(StateError);
    expect(cursors.get(TRUST)).toBeNull();
  });

  it('keeps cursors per entity and records success, full reconcile and errors', () => {
    const { cursors } = state.open();
    cursors.advance(TRUST, '2020-07-03T04:31:46');
    cursors.markFailed(COMPANY, 'service unreachable', 10);
    expect(cursors.get(COMPANY)).toEqual({
      owner: COMPANY,
      cursor: null,
      lastSuccessAt: null,
      lastFullReconcileAt: null,
      lastError: 'service unreachable',
      lastErrorAt: 10,
    });
    cursors.markSynced(COMPANY, 20, { fullReconcile: true });
    cursors.markSynced(COMPANY, 30);
    expect(cursors.get(COMPANY)).toMatchObject({
      lastSuccessAt: 30,
      lastFullReconcileAt: 20,
      lastError: null,
      lastErrorAt: null,
    });
    expect(cursors.list().map((c) => c.owner)).toEqual([COMPANY, TRUST]);
  });

  it('reads several entities at once as it reads each, leaving out those without a cursor', () => {
    const { cursors } = state.open();
    const unknown = { kind: 'company', id: 'no-such' } as const;
    cursors.advance(TRUST, '2020-07-03T04:31:46');
    cursors.markSynced(COMPANY, 20);
    const many = cursors.getMany([TRUST, unknown, COMPANY]);
    expect([...many.keys()].sort()).toEqual([`company:${COMPANY.id}`, `trust:${TRUST.id}`]);
    expect(many.get(`trust:${TRUST.id}`)).toEqual(cursors.get(TRUST));
    expect(many.get(`company:${COMPANY.id}`)).toEqual(cursors.get(COMPANY));
  });

  it('says when the least recently synced entity was synced, 0 for one never synced', () => {
    const { cursors } = state.open();
    expect(cursors.oldestSuccessAt()).toBeNull();
    cursors.markSynced(COMPANY, 20);
    cursors.markSynced(TRUST, 30);
    expect(cursors.oldestSuccessAt()).toBe(20);
    cursors.advance({ kind: 'company', id: 'never' }, '2020-07-03T04:31:46');
    expect(cursors.oldestSuccessAt()).toBe(0);
  });
});

describe('base', () => {
  it('round-trips a document with its attachments, across a reopen', () => {
    const doc = baseDocument();
    const store = state.open();
    store.base.put(doc);
    store.close();
    const { base } = state.open();
    expect(base.get(doc.id)).toEqual(doc);
    expect(base.get('missing')).toBeNull();
  });

  it('lists and counts one owner only, keyed by document id', () => {
    const { base } = state.open();
    base.put(baseDocument({ id: '1' }));
    base.put(baseDocument({ id: '2', attachments: [] }));
    base.put(baseDocument({ id: '3', owner: COMPANY }));
    const trustDocs = base.listByOwner(TRUST);
    expect([...trustDocs.keys()].sort()).toEqual(['1', '2']);
    expect(trustDocs.get('2')?.attachments).toEqual([]);
    expect(base.count(TRUST)).toBe(2);
    expect(base.count(COMPANY)).toBe(1);
  });

  it('lists several owners at once as it lists each, an owner without documents included', () => {
    const { base } = state.open();
    // Same id under both kinds: the owner is the kind and the id together.
    const sameId = { kind: 'company', id: TRUST.id } as const;
    base.put(baseDocument({ id: '1' }));
    base.put(baseDocument({ id: '2', owner: COMPANY }));
    base.put(baseDocument({ id: '3', owner: sameId, attachments: [] }));
    const empty = { kind: 'trust', id: 'none' } as const;
    const all = base.listByOwners([TRUST, COMPANY, sameId, empty]);
    expect([...all.keys()]).toEqual([
      `trust:${TRUST.id}`,
      `company:${COMPANY.id}`,
      `company:${TRUST.id}`,
      'trust:none',
    ]);
    for (const owner of [TRUST, COMPANY, sameId, empty])
      expect(all.get(`${owner.kind}:${owner.id}`)).toEqual(base.listByOwner(owner));
    expect(base.listByOwners([]).size).toBe(0);
  });

  it('replaces a document whole and removes it', () => {
    const { base } = state.open();
    base.put(baseDocument());
    const moved = baseDocument({ folder: 'Trusts/Smith/moved', statusId: '78', attachments: [] });
    base.put(moved);
    expect(base.get(moved.id)).toEqual(moved);
    expect(base.remove(moved.id)).toBe(true);
    expect(base.remove(moved.id)).toBe(false);
    expect(base.count(TRUST)).toBe(0);
  });

  it('stores only the known attachment fields', () => {
    const { base } = state.open();
    const doc = baseDocument();
    const withExtra = {
      ...doc,
      attachments: [{ ...doc.attachments[0]!, content: 'not for the db' }],
    };
    base.put(withExtra);
    expect(base.get(doc.id)?.attachments).toEqual([doc.attachments[0]]);
  });
});
