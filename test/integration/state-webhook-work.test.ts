/**
 * A webhook event is an observation on its entity's work row and settles with it, on a real state
 * file: recorded with its row in one write, done when a sync that started after it succeeded,
 * an attempt counted when one failed, left failed after the last, moot when the entity is
 * forgotten, and all of it still there after a reopen.
 */
import { describe, expect, it } from 'vitest';
import type { Entity } from '../../src/domain/types.js';
import type { StateStore } from '../../src/state/state-store.js';
import { MAX_EVENT_ATTEMPTS, type NewWebhookEvent } from '../../src/state/webhook-event-repo.js';
import { TRUST, useStateStore } from '../helpers/state-store.js';

const stateStore = useStateStore();

const T = 1_000_000;

function event(eventId: string, overrides: Partial<NewWebhookEvent> = {}): NewWebhookEvent {
  return {
    eventId,
    entityId: TRUST.id,
    subType: 'newDocument',
    documentIds: ['1075468'],
    rawBody: `{"eventId":"${eventId}"}`,
    receivedAt: T,
    ...overrides,
  };
}

function knowTrust(state: StateStore): void {
  const entity: Entity = {
    kind: 'trust',
    id: TRUST.id,
    name: 'Smith',
    abn: null,
    type: null,
    raw: {},
  };
  state.entities.upsert({ entity, folder: 'Trusts/Smith', matchedBy: 'created', updatedAt: 0 });
}

const dueAfter = (attempts: number) => T + attempts * 1000;
const failed = { kind: 'failed', error: 'service unreachable', dueAfter } as const;

describe('a webhook event as work on its entity', () => {
  it('is done with a run over every entity that succeeded, and numbers go on past it after a restart', () => {
    const state = stateStore.open();
    knowTrust(state);
    state.receiveWebhookEvent(event('e1'));
    const linked = state.webhookEvents.get('e1')!.workSeen!;
    // The row went (a person cleared the work, as a run over every entity that failed leaves
    // the event): the next process's numbers still go on past the event's.
    state.work.clear(TRUST);
    state.close();
    const again = stateStore.open();
    expect(again.work.seenSoFar()).toBeGreaterThanOrEqual(linked);
    // A run over every entity that started after it and succeeded (`--once`) answers it.
    again.settleEverySync(again.work.seenSoFar(), true, T);
    expect(again.webhookEvents.get('e1')?.state).toBe('done');
  });

  it('is recorded with its entity’s row in one write, and both are there after a reopen', () => {
    const state = stateStore.open();
    knowTrust(state);
    expect(state.receiveWebhookEvent(event('e1', { subType: 'deleteDocument' }))).toBe(true);
    // A redelivery observes nothing more.
    const seen = state.work.seenSoFar();
    expect(state.receiveWebhookEvent(event('e1'))).toBe(false);
    expect(state.work.seenSoFar()).toBe(seen);
    state.close();

    const reopened = stateStore.open();
    expect(reopened.work.get(TRUST)).toMatchObject({ reasons: ['webhook'], lane: 'webhook', seen });
    expect(reopened.webhookEvents.get('e1')).toMatchObject({ owner: TRUST, workSeen: seen });
    expect(reopened.announcedDeletions.forOwner(TRUST)).toEqual(['1075468']);
  });

  it('of an entity not known yet waits unlinked, and is linked once the list names it', () => {
    const state = stateStore.open();
    state.receiveWebhookEvent(event('e1', { subType: 'deleteDocument' }));
    expect(state.work.all()).toEqual([]);
    expect(state.webhookEvents.get('e1')).toMatchObject({ owner: null, workSeen: null });
    expect(state.linkWebhookEvent('e1', T + 5)).toBeNull();

    knowTrust(state);
    expect(state.linkWebhookEvent('e1', T + 10)).toEqual(TRUST);
    expect(state.webhookEvents.get('e1')).toMatchObject({ owner: TRUST });
    expect(state.work.get(TRUST)).toMatchObject({ reasons: ['webhook'], firstSeenAt: T + 10 });
    expect(state.announcedDeletions.forOwner(TRUST)).toEqual(['1075468']);
  });

  it('is done when a sync that started after it succeeded; one observed during that sync waits', () => {
    const state = stateStore.open();
    knowTrust(state);
    state.receiveWebhookEvent(event('before'));
    const started = state.work.seenSoFar();
    state.receiveWebhookEvent(event('during'));

    const settled = state.settleSync(TRUST, started, { kind: 'synced', full: false }, T + 1);

    expect(settled.done).toEqual(['before']);
    expect(state.webhookEvents.get('before')).toMatchObject({ state: 'done', updatedAt: T + 1 });
    expect(state.webhookEvents.get('during')?.state).toBe('received');
    expect(state.work.get(TRUST)).not.toBeNull();
  });

  it('counts an attempt when the sync failed, is due with its row, and is left failed after the last', () => {
    const state = stateStore.open();
    knowTrust(state);
    state.receiveWebhookEvent(event('e1'));
    const started = state.work.seenSoFar();
    state.receiveWebhookEvent(event('later'));

    const first = state.settleSync(TRUST, started, failed, T + 1);
    expect(first.failed).toEqual([{ eventId: 'e1', attempts: 1, state: 'received' }]);
    expect(first.row).toMatchObject({ attempts: 1, dueAt: dueAfter(1) });
    expect(state.webhookEvents.get('e1')).toMatchObject({
      attempts: 1,
      lastError: 'service unreachable',
      nextAttemptAt: dueAfter(1),
    });
    // Observed after the sync began: that failure was not its try.
    expect(state.webhookEvents.get('later')?.attempts).toBe(0);

    for (let i = 2; i <= MAX_EVENT_ATTEMPTS; i++) state.settleSync(TRUST, started, failed, T + i);
    expect(state.webhookEvents.get('e1')).toMatchObject({
      state: 'failed',
      attempts: MAX_EVENT_ATTEMPTS,
    });
    // The row is still the entity's work: its retries go on.
    expect(state.work.get(TRUST)?.attempts).toBe(MAX_EVENT_ATTEMPTS);
  });

  it('is moot when its entity is forgotten, and done by a sync of every entity', () => {
    const state = stateStore.open();
    knowTrust(state);
    state.receiveWebhookEvent(event('e1'));
    state.forgetEntity(TRUST, T + 3);
    expect(state.webhookEvents.get('e1')).toMatchObject({ state: 'done', updatedAt: T + 3 });
    expect(state.webhookEvents.countPending()).toBe(0);

    knowTrust(state);
    state.receiveWebhookEvent(event('e2'));
    expect(state.settleEverySync(state.work.seenSoFar(), false, T + 4)).toEqual(['e2']);
    expect(state.work.all()).toEqual([]);
  });
});
