/**
 * The state's side of the status page, on a real SQLite file: the bounded activity feed, the
 * entity listing's search, filters, sorts and pages, the held deletes and the open conflicts.
 */
import { describe, expect, it } from 'vitest';
import type { Entity, OwnerRef } from '../../src/domain/types.js';
import { ACTIVITY_KEEP } from '../../src/state/activity-repo.js';
import type { EntityQuery } from '../../src/state/entity-listing.js';
import type { StateStore } from '../../src/state/state-store.js';
import { useStateStore } from '../helpers/state-store.js';

const stateStore = useStateStore();

function addEntity(state: StateStore, kind: 'company' | 'trust', id: string, name: string) {
  const entity: Entity =
    kind === 'trust'
      ? { kind, id, name, abn: null, type: null, raw: {} }
      : { kind, id, name, number: `ACN${id}`, businessNumber: null, raw: {} };
  state.entities.upsert({ entity, folder: `${kind}/${name}`, matchedBy: 'created', updatedAt: 0 });
  return { kind, id } satisfies OwnerRef;
}

const all: EntityQuery = {
  search: '',
  kind: null,
  show: 'all',
  sort: 'name',
  page: 1,
  pageSize: 10,
};
const namesOf = (state: StateStore, query: Partial<EntityQuery>) =>
  state.entityPage({ ...all, ...query }).rows.map((r) => r.name);

describe('the activity feed', () => {
  it('pages back from the newest, with the entity names as the state knows them now', () => {
    const state = stateStore.open();
    const acme = addEntity(state, 'company', '1', 'Acme Pty Ltd');
    const item = (file: string) => ({
      documentId: '9',
      documentName: 'Minutes',
      change: 'pulled' as const,
      file,
      detail: null,
    });
    state.activity.record(acme, [item('a.pdf'), item('b.pdf')], 1000);
    state.activity.record({ kind: 'trust', id: 'gone' }, [item('c.pdf')], 2000);

    const newest = state.activity.recent(2);
    expect(newest.map((a) => [a.file, a.entityName, a.at])).toEqual([
      ['c.pdf', null, 2000],
      ['b.pdf', 'Acme Pty Ltd', 1000],
    ]);
    expect(state.activity.recent(2, newest[1]!.id).map((a) => a.file)).toEqual(['a.pdf']);
  });

  it(`keeps the newest ${ACTIVITY_KEEP} lines`, () => {
    const state = stateStore.open();
    const owner = addEntity(state, 'trust', '7', 'Smith Family Trust');
    const items = Array.from({ length: ACTIVITY_KEEP + 5 }, (_, i) => ({
      documentId: String(i),
      documentName: `Document ${i}`,
      change: 'pushed' as const,
      file: null,
      detail: null,
    }));
    state.activity.record(owner, items, 1);
    const count = state.db.prepare('SELECT count(*) FROM activity').pluck().get();
    expect(count).toBe(ACTIVITY_KEEP);
    expect(state.activity.recent(1)[0]!.documentName).toBe(`Document ${ACTIVITY_KEEP + 4}`);
  });
});

describe('the entity listing', () => {
  it('searches names, ids, numbers and folders, taking % and _ literally', () => {
    const state = stateStore.open();
    addEntity(state, 'company', '11', 'A_B Holdings');
    addEntity(state, 'company', '12', 'AxB Holdings');
    addEntity(state, 'trust', '13', '100% Family Trust');
    addEntity(state, 'trust', '14', 'Other');

    expect(namesOf(state, { search: '_' })).toEqual(['A_B Holdings']);
    expect(namesOf(state, { search: '%' })).toEqual(['100% Family Trust']);
    expect(namesOf(state, { search: 'acn12' })).toEqual(['AxB Holdings']);
    expect(namesOf(state, { search: '14' })).toEqual(['Other']);
    expect(namesOf(state, { search: 'holdings', kind: 'trust' })).toEqual([]);
    expect(namesOf(state, { kind: 'trust' })).toEqual(['100% Family Trust', 'Other']);
  });

  it('sorts by errors, by lag (never synced first) and by name, and pages', () => {
    const state = stateStore.open();
    // Alpha is never synced.
    const [a, b, c] = ['Delta', 'Charlie', 'Bravo', 'Alpha'].map((name, i) =>
      addEntity(state, 'company', String(i), name),
    ) as [OwnerRef, OwnerRef, OwnerRef, OwnerRef];
    state.cursors.markSynced(a, 3000);
    state.cursors.markSynced(b, 1000);
    state.cursors.markSynced(c, 2000);
    state.cursors.markFailed(c, 'the service answered 503', 2500);
    state.problems.record({ owner: a, documentId: '1' }, 'one', 1000);
    state.problems.record({ owner: a, documentId: '2' }, 'two', 2000);

    expect(namesOf(state, { sort: 'errors' })).toEqual(['Delta', 'Bravo', 'Alpha', 'Charlie']);
    // Pages across those in error and the rest, which follow by name.
    expect(namesOf(state, { sort: 'errors', pageSize: 1, page: 2 })).toEqual(['Bravo']);
    expect(namesOf(state, { sort: 'errors', pageSize: 3, page: 1 })).toEqual([
      'Delta',
      'Bravo',
      'Alpha',
    ]);
    expect(namesOf(state, { sort: 'errors', pageSize: 1, page: 4 })).toEqual(['Charlie']);
    expect(namesOf(state, { sort: 'errors', search: 'a', pageSize: 2, page: 2 })).toEqual([
      'Alpha',
      'Charlie',
    ]);
    expect(namesOf(state, { sort: 'lag' })).toEqual(['Alpha', 'Charlie', 'Bravo', 'Delta']);
    expect(namesOf(state, { sort: 'name', pageSize: 3, page: 2 })).toEqual(['Delta']);
    expect(namesOf(state, { show: 'never-synced' })).toEqual(['Alpha']);
    expect(namesOf(state, { show: 'errors' })).toEqual(['Bravo', 'Delta']);
    const page = state.entityPage({ ...all, show: 'errors' });
    expect([page.total, page.matched]).toEqual([4, 2]);
    expect(page.rows.map((r) => [r.itemsInError, r.lastError])).toEqual([
      [0, 'the service answered 503'],
      // An entity whose sync got through but has items in error shows the newest (issue 27).
      [2, 'two'],
    ]);
  });

  it('names the stalest entity as the lag sort would: never synced first, else the oldest sync', () => {
    const state = stateStore.open();
    const [charlie, bravo, alpha] = ['Charlie', 'Bravo', 'Alpha'].map((name, i) =>
      addEntity(state, 'company', String(i), name),
    ) as [OwnerRef, OwnerRef, OwnerRef];
    // A cursor whose entity the state no longer lists is no entity of the page's.
    state.cursors.markSynced({ kind: 'trust', id: '99' }, 100);
    state.cursors.markSynced(charlie, 2000);
    state.cursors.markSynced(bravo, 2000);
    // Alpha has a cursor row that never got through.
    state.cursors.markFailed(alpha, 'the service answered 503', 2500);
    expect(state.stalestEntity()).toEqual({ owner: alpha, name: 'Alpha', lastSuccessAt: null });
    state.cursors.markSynced(alpha, 3000);
    // Entities synced at the same instant are equally stale: one of them.
    expect([charlie, bravo]).toContainEqual(state.stalestEntity()?.owner);
    expect(state.stalestEntity()?.lastSuccessAt).toBe(2000);
    state.cursors.markSynced(charlie, 4000);
    expect(state.stalestEntity()).toEqual({ owner: bravo, name: 'Bravo', lastSuccessAt: 2000 });
    addEntity(state, 'trust', '5', 'Zulu Trust');
    expect(state.stalestEntity()?.name).toBe('Zulu Trust');
  });

  it('counts what matches when nothing filters as when a filter does', () => {
    const state = stateStore.open();
    addEntity(state, 'company', '1', 'Alpha');
    addEntity(state, 'trust', '2', 'Bravo Trust');
    addEntity(state, 'trust', '3', 'Charlie Trust');
    const counts = (query: Partial<EntityQuery>) => {
      const page = state.entityPage({ ...all, ...query });
      return [page.total, page.matched];
    };
    expect(counts({})).toEqual([3, 3]);
    expect(counts({ kind: 'trust' })).toEqual([3, 2]);
    expect(counts({ kind: 'company', search: 'alp' })).toEqual([3, 1]);
  });
});

describe('what the status page shows of held deletes and conflicts', () => {
  const hold = (owner: OwnerRef, documentId: string) => ({
    owner,
    documentId,
    side: 'local' as const,
    folder: `${owner.id}/doc ${documentId}`,
    documentName: `Document ${documentId}`,
    reason: 'more than safety.maxDeleteCount 2',
  });

  it("lists the held deletes nobody decided on, an entity's together, and counts the decided", () => {
    const state = stateStore.open();
    const a = addEntity(state, 'company', '1', 'A');
    const b = addEntity(state, 'trust', '2', 'B');
    state.heldDeletes.hold([hold(b, '20'), hold(b, '21')], 1000);
    state.heldDeletes.hold([hold(a, '10'), hold(a, '11'), hold(a, '12')], 2000);
    state.heldDeletes.hold([hold(b, '22')], 3000);
    state.heldDeletes.decide([{ documentId: '11', side: 'local' }], 'approve', 4000);

    const { held } = state.pageProblems();

    expect(held.waitingRows.map((h) => [h.documentId, h.entityWaiting, h.entityNewest])).toEqual([
      ['20', 3, 3000],
      ['21', 3, 3000],
      ['22', 3, 3000],
      ['10', 2, 2000],
      ['12', 2, 2000],
    ]);
    expect([held.waiting, held.entities, held.newest, held.decided]).toEqual([5, 2, 3000, 1]);
    // `docsync status` lists every held delete, the decided one marked: the same total.
    expect(state.statusReport().heldDeletes).toHaveLength(held.waiting + held.decided);
  });

  it('keeps deletes in their hold time apart: not waiting for a decision, counted with when the last ends', () => {
    const state = stateStore.open();
    const a = addEntity(state, 'company', '1', 'A');
    state.heldDeletes.hold([hold(a, '10')], 1000);
    const removed = (documentId: string, dueAt: number) => ({
      ...hold(a, documentId),
      side: 'remote' as const,
      reason: 'removed',
      dueAt,
    });
    state.heldDeletes.wait([removed('11', 61_000), removed('12', 62_000)], 2000);

    const { held } = state.pageProblems();
    expect(held.waitingRows.map((h) => h.documentId)).toEqual(['10']);
    expect(held).toMatchObject({ waiting: 1, entities: 1, decided: 0, inHold: 2 });
    expect(held.inHoldUntil).toBe(62_000);
    const report = state.statusReport().heldDeletes;
    expect(report.map((h) => [h.documentId, h.waitingUntil])).toEqual([
      ['10', null],
      ['11', new Date(61_000).toISOString()],
      ['12', new Date(62_000).toISOString()],
    ]);
  });

  it('shows the open conflicts only: a resolved one stays in the table, marked', () => {
    const state = stateStore.open();
    const a = addEntity(state, 'company', '1', 'A');
    const conflict = (copyPath: string) =>
      state.conflicts.record({
        owner: a,
        documentId: '1',
        copyPath,
        winner: 'remote',
        occurredAt: 1000,
      });
    conflict('a (conflict).pdf');
    const resolved = conflict('b (conflict).pdf');
    state.conflicts.markResolved(resolved, 'keep-both', 2000);

    const { conflicts } = state.pageProblems();

    expect(conflicts.total).toBe(1);
    expect(conflicts.recent.map((c) => c.copyPath)).toEqual(['a (conflict).pdf']);
  });
});
