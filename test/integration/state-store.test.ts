import { describe, expect, it } from 'vitest';
import type { Trust } from '../../src/domain/types.js';
import { MIGRATIONS } from '../../src/state/migrations.js';
import { baseDocument, COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';

const state = useStateStore();

const trust: Trust = {
  kind: 'trust',
  id: TRUST.id,
  name: 'Smith Family Trust',
  abn: null,
  type: 'UNIT',
  raw: {},
};
const NOW = Date.UTC(2024, 4, 1, 9, 30);

describe('StateStore', () => {
  it('closes idempotently', () => {
    const store = state.open();
    store.close();
    store.close();
    expect(store.closed).toBe(true);
  });

  it('commits a transaction across repositories whole, or not at all', () => {
    const store = state.open();
    expect(() =>
      store.transaction(() => {
        store.base.put(baseDocument());
        store.cursors.advance(TRUST, '2020-07-03T04:31:46');
        throw new Error('crash mid-way');
      }),
    ).toThrow('crash mid-way');
    expect(store.base.get('1075468')).toBeNull();
    expect(store.cursors.get(TRUST)).toBeNull();
    expect(store.transaction(() => store.cursors.advance(TRUST, '2020-07-03T04:31:46'))).toBe(true);
  });

  it('forgets an entity with its cursor, base, problems and entries not synced, and nothing else', () => {
    const store = state.open();
    store.entities.upsert({
      entity: trust,
      folder: 'Trusts/Smith',
      matchedBy: 'name',
      updatedAt: 1,
    });
    store.cursors.advance(TRUST, '2020-07-03T04:31:46');
    store.base.put(baseDocument());
    store.base.put(baseDocument({ id: 'c1', owner: COMPANY }));
    store.problems.record({ owner: TRUST, documentId: '1075468' }, 'x', 0);
    store.skipped.replaceForOwner(TRUST, [{ path: 'Trusts/Smith/a', reason: 'a link' }], 0);
    store.skipped.replaceForOwner(COMPANY, [{ path: 'Companies/C/b', reason: 'a link' }], 0);
    store.work.noteLocal(TRUST, { documents: 1, files: 2 }, 0);
    store.work.noteLocal(COMPANY, { documents: 1, files: 1 }, 0);
    store.forgetEntity(TRUST);
    expect(store.entities.get(TRUST)).toBeNull();
    expect(store.cursors.get(TRUST)).toBeNull();
    expect(store.base.count(TRUST)).toBe(0);
    expect(store.problems.list()).toEqual([]);
    expect(store.skipped.list().map((s) => s.path)).toEqual(['Companies/C/b']);
    expect(store.work.localWork(10).map((w) => w.owner)).toEqual([COMPANY]);
    expect(store.work.all().map((w) => w.owner)).toEqual([COMPANY]);
    expect(store.base.count(COMPANY)).toBe(1);
  });

  it('reports an empty store plainly', () => {
    const report = state.open().statusReport(NOW);
    expect(report).toEqual({
      generatedAt: '2024-05-01T09:30:00.000Z',
      schemaVersion: MIGRATIONS.at(-1)!.version,
      initialSyncDone: false,
      lastCycle: null,
      lastSuccessfulCycle: null,
      entities: [],
      localWork: { entities: 0, documents: 0, files: 0, since: null, items: [] },
      syncsWaiting: { entities: 0, failingEntities: 0, failing: [] },
      pushes: { pending: 0, inDoubt: 0, failed: 0, failedItems: [] },
      conflicts: { total: 0, recent: [] },
      itemsInError: [],
      recordsInError: [],
      unmatchedFolders: [],
      notSynced: [],
      pendingWebhookEvents: 0,
      heldDeletes: [],
    });
  });

  it('reports cycles, per-entity cursors and lag, pushes, conflicts, errors and unmatched folders', () => {
    const store = state.open();
    store.entities.upsert({
      entity: trust,
      folder: 'Trusts/Smith',
      matchedBy: 'name',
      updatedAt: 1,
    });
    store.cursors.advance(TRUST, '2024-05-01T09:00:00.123456');
    store.cursors.markSynced(TRUST, NOW - 60_000, { fullReconcile: true });
    store.cursors.markFailed(COMPANY, 'service unreachable', NOW - 1000);
    const cycle = store.cycles.start({ trigger: 'cron', startedAt: NOW - 61_000 });
    store.cycles.finish(cycle, {
      result: 'partial',
      counts: { failed: 1 },
      finishedAt: NOW - 60_000,
    });
    const sent = store.outbox.record({
      owner: TRUST,
      documentId: '1',
      kind: 'assign-status',
      payload: { typeId: '2', effectiveDate: '2024-05-01' },
    });
    store.outbox.markSent(sent);
    store.outbox.record({
      owner: TRUST,
      documentId: '2',
      kind: 'assign-status',
      payload: { typeId: '2', effectiveDate: '2024-05-01' },
    });
    const failed = store.outbox.record({
      owner: TRUST,
      documentId: '3',
      kind: 'delete-document',
      payload: { folder: 'Trusts/Smith/Minutes' },
    });
    store.outbox.markFailed(failed, '403 forbidden', null);
    store.conflicts.record({
      owner: TRUST,
      documentId: '1',
      copyPath: 'x (conflict).pdf',
      winner: 'remote',
      occurredAt: NOW,
    });
    store.problems.record({ owner: TRUST, path: 'Trusts/Smith/new folder' }, 'name too long', NOW);
    store.entities.replaceUnmatchedFolders([
      { folder: 'Trusts/Ghost', kind: 'trust', reason: 'no trust named Ghost', seenAt: NOW },
    ]);
    store.receiveWebhookEvent({
      eventId: 'e',
      entityId: '20053',
      subType: 'newStatus',
      documentIds: [],
      rawBody: '{}',
      receivedAt: NOW,
    });

    const report = store.statusReport(NOW);
    expect(report.lastCycle).toMatchObject({
      result: 'partial',
      finishedAt: '2024-05-01T09:29:00.000Z',
      counts: { failed: 1 },
    });
    expect(report.lastSuccessfulCycle).toBeNull();
    expect(report.entities).toEqual([
      {
        owner: TRUST,
        name: 'Smith Family Trust',
        folder: 'Trusts/Smith',
        cursor: '2024-05-01T09:00:00.123456',
        lastSuccessAt: '2024-05-01T09:29:00.000Z',
        lagMs: 60_000,
        lastFullReconcileAt: '2024-05-01T09:29:00.000Z',
        lastError: null,
      },
      {
        owner: COMPANY,
        name: null,
        folder: null,
        cursor: null,
        lastSuccessAt: null,
        lagMs: null,
        lastFullReconcileAt: null,
        lastError: 'service unreachable',
      },
    ]);
    expect(report.pushes).toMatchObject({ pending: 1, inDoubt: 1, failed: 1 });
    expect(report.pushes.failedItems).toMatchObject([
      { id: failed, lastError: '403 forbidden', nextAttemptAt: null },
    ]);
    expect(report.conflicts).toMatchObject({
      total: 1,
      recent: [{ copyPath: 'x (conflict).pdf', winner: 'remote' }],
    });
    expect(report.itemsInError).toMatchObject([
      { path: 'Trusts/Smith/new folder', reason: 'name too long', attempts: 1 },
    ]);
    expect(report.unmatchedFolders).toEqual([
      { folder: 'Trusts/Ghost', kind: 'trust', reason: 'no trust named Ghost' },
    ]);
    expect(report.pendingWebhookEvents).toBe(1);
    // It must survive JSON for `docsync status --json` unchanged.
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });
});
