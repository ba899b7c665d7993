import { describe, expect, it } from 'vitest';
import { MAX_EVENT_ATTEMPTS, type NewWebhookEvent } from '../../src/state/webhook-event-repo.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';

const state = useStateStore();

const event: NewWebhookEvent = {
  eventId: 'evt-1',
  entityId: '20053',
  subType: 'newAttachment',
  documentIds: ['1075468'],
  rawBody: '{"eventId":"evt-1","entityId":"20053"}',
  receivedAt: 1000,
};

describe('webhook events', () => {
  it('stores the same eventId once: the redelivery is not new', () => {
    const store = state.open();
    const { webhookEvents } = store;
    expect(store.receiveWebhookEvent(event)).toBe(true);
    expect(store.receiveWebhookEvent({ ...event, receivedAt: 5000 })).toBe(false);
    expect(webhookEvents.pendingEvents()).toEqual([
      {
        ...event,
        state: 'received',
        attempts: 0,
        lastError: null,
        nextAttemptAt: null,
        updatedAt: 1000,
        owner: null,
        workSeen: null,
      },
    ]);
    webhookEvents.markDone('evt-1', 2000);
    expect(store.receiveWebhookEvent(event)).toBe(false);
    expect(webhookEvents.pendingEvents()).toEqual([]);
  });

  it('keeps a received event pending across a restart until it is done', () => {
    const first = state.open();
    first.receiveWebhookEvent(event);
    first.db.close();
    const reopened = state.open();
    expect(reopened.webhookEvents.pendingEvents().map((e) => e.eventId)).toEqual(['evt-1']);
    expect(reopened.webhookEvents.countPending()).toBe(1);
  });

  it('retries a failing event a few times, then leaves it to the scheduled cycle', () => {
    const store = state.open();
    const { webhookEvents } = store;
    store.receiveWebhookEvent(event);
    for (let i = 1; i < MAX_EVENT_ATTEMPTS; i++)
      webhookEvents.markFailed('evt-1', 'timeout', i, i + 5_000);
    expect(webhookEvents.pendingEvents()).toHaveLength(1);
    // The retry time is kept with the event, so a restart waits for it too.
    expect(webhookEvents.get('evt-1')?.nextAttemptAt).toBe(MAX_EVENT_ATTEMPTS - 1 + 5_000);
    webhookEvents.markFailed('evt-1', 'timeout again', 99);
    expect(webhookEvents.pendingEvents()).toEqual([]);
    expect(webhookEvents.get('evt-1')).toMatchObject({
      state: 'failed',
      attempts: MAX_EVENT_ATTEMPTS,
      lastError: 'timeout again',
    });
  });

  it('prunes old finished events but never pending ones', () => {
    const store = state.open();
    const { webhookEvents } = store;
    store.receiveWebhookEvent(event);
    store.receiveWebhookEvent({ ...event, eventId: 'evt-2' });
    webhookEvents.markDone('evt-2');
    expect(webhookEvents.prune(10_000)).toBe(1);
    expect(webhookEvents.get('evt-1')).not.toBeNull();
  });
});

describe('cycles', () => {
  it('logs start and finish, and tells the last and the last successful cycle apart', () => {
    const { cycles } = state.open();
    expect(cycles.last()).toBeNull();
    const ok = cycles.start({ trigger: 'cron', fullReconcile: true, startedAt: 10 });
    cycles.finish(ok, { result: 'ok', counts: { pulled: 3, pushed: 1 }, finishedAt: 20 });
    const stopped = cycles.start({ trigger: 'webhook', owner: TRUST, startedAt: 30 });
    expect(
      cycles.finish(stopped, { result: 'safety-stop', error: 'would delete 80%', finishedAt: 40 }),
    ).toBe(true);
    expect(cycles.finish(stopped, { result: 'ok', finishedAt: 50 })).toBe(false);

    expect(cycles.last()).toEqual({
      id: stopped,
      trigger: 'webhook',
      owner: TRUST,
      fullReconcile: false,
      startedAt: 30,
      finishedAt: 40,
      result: 'safety-stop',
      counts: null,
      error: 'would delete 80%',
    });
    expect(cycles.lastSuccessful()).toMatchObject({
      id: ok,
      owner: null,
      fullReconcile: true,
      counts: { pulled: 3, pushed: 1 },
    });
  });

  it('closes cycles a dead process left open as interrupted', () => {
    const { cycles } = state.open();
    const id = cycles.start({ trigger: 'once', startedAt: 10 });
    expect(cycles.markInterrupted(99)).toBe(1);
    expect(cycles.last()).toMatchObject({ id, result: 'interrupted', finishedAt: 99 });
  });

  it('prunes to the newest N', () => {
    const { cycles } = state.open();
    const ids = [1, 2, 3, 4, 5].map((t) => cycles.start({ trigger: 'cron', startedAt: t }));
    expect(cycles.prune(2)).toBe(3);
    expect(cycles.list().map((c) => c.id)).toEqual(ids.slice(-2).reverse());
    expect(cycles.prune(2)).toBe(0);
  });
});

describe('conflicts', () => {
  it('keeps conflict copies for the status page, newest first', () => {
    const { conflicts } = state.open();
    conflicts.record({
      owner: TRUST,
      documentId: '1',
      copyPath: 'a (conflict 2024-05-01 0930).pdf',
      winner: 'remote',
      occurredAt: 10,
    });
    const id = conflicts.record({
      owner: COMPANY,
      documentId: '2',
      attachmentId: 'UA7',
      copyPath: 'b (conflict 2024-05-02 1000).pdf',
      winner: 'local',
      detail: 'both edited',
      subject: { kind: 'file', file: 'b.pdf' },
      occurredAt: 20,
    });
    expect(conflicts.count()).toBe(2);
    expect(conflicts.list()[0]).toEqual({
      id,
      owner: COMPANY,
      documentId: '2',
      attachmentId: 'UA7',
      copyPath: 'b (conflict 2024-05-02 1000).pdf',
      winner: 'local',
      detail: 'both edited',
      subject: { kind: 'file', file: 'b.pdf' },
      occurredAt: 20,
      resolution: null,
      resolvedAt: null,
    });
    expect(conflicts.list().filter((c) => c.documentId === '1')).toMatchObject([
      { attachmentId: null, detail: null, subject: null },
    ]);
    expect(conflicts.markResolved(id, 'keep-both', 30)).toBe(true);
    expect(conflicts.markResolved(id, 'keep-mine', 31)).toBe(false);
    expect(conflicts.count()).toBe(1);
    expect(conflicts.list(10, { open: true }).map((c) => c.documentId)).toEqual(['1']);
    expect(conflicts.get(id)).toMatchObject({ resolution: 'keep-both', resolvedAt: 30 });
    // Only resolved ones go, by when they were resolved: the open one of 10 stays.
    expect(conflicts.prune(15)).toBe(0);
    expect(conflicts.prune(31)).toBe(1);
    expect(conflicts.list().map((c) => c.documentId)).toEqual(['1']);
  });
});

describe('status types and settings', () => {
  it('replaces the status type list whole and finds a name in any letter case', () => {
    const { statusTypes } = state.open();
    expect(statusTypes.fetchedAt()).toBeNull();
    statusTypes.replaceAll(
      [
        { id: '2', name: 'DOCUMENT PREPARED' },
        { id: '3', name: 'SENT TO CLIENT' },
      ],
      500,
    );
    statusTypes.replaceAll(
      [
        { id: '3', name: 'SENT TO CLIENT' },
        { id: '20', name: 'CANCELLED' },
      ],
      600,
    );
    expect(statusTypes.list()).toEqual([
      { id: '3', name: 'SENT TO CLIENT' },
      { id: '20', name: 'CANCELLED' },
    ]);
    expect(statusTypes.fetchedAt()).toBe(600);
  });

  it('keeps typed settings across a reopen', () => {
    const store = state.open();
    expect(store.settings.initialSyncDone()).toBe(false);
    store.settings.markInitialSyncDone();
    store.settings.setHousekeepingAt(1234);
    store.close();

    const reopened = state.open();
    expect(reopened.settings.initialSyncDone()).toBe(true);
    expect(reopened.settings.housekeepingAt()).toBe(1234);
    reopened.settings.delete('housekeepingAt');
    expect(reopened.settings.housekeepingAt()).toBeNull();
  });
});
