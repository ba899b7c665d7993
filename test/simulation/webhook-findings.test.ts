/**
 * Invariant 5's judgement of a webhook event (sim-invariants.ts, `webhookFindings`), on a real
 * state file written by hand: an event is done only once a sync of its entity that began after it
 * came went through. A seed reaches the finding only when docsync marks an event done on a failed
 * sync; these say the check would see it, and stays silent when the sync went through.
 */
import { describe, expect, it } from 'vitest';
import type { OwnerRef } from '../../src/domain/types.js';
import type { StateStore } from '../../src/state/state-store.js';
import { useStateStore } from '../helpers/state-store.js';
import { WEBHOOKS_DONE, webhookFindings } from './sim-invariants.js';
import { type QueuedWebhook, WebhookQueue } from './sim-webhooks.js';

const owner: OwnerRef = { kind: 'company', id: 'c1' };
const T = Date.parse('2030-01-07T09:00:00Z');

/** The event as the receiver took it, `cyclesBefore` the newest cycle then. */
function took(state: StateStore, cyclesBefore: number): QueuedWebhook {
  const eventId = 'sim-1-1';
  state.receiveWebhookEvent({
    eventId,
    entityId: owner.id,
    subType: 'statusChange',
    documentIds: ['1000001'],
    rawBody: '{}',
    receivedAt: T,
  });
  const hook = { eventId, owner, documentId: '1000001', subType: 'statusChange', body: '{}' };
  return { ...hook, wrong: false, deliveries: 1, cyclesBefore };
}

function cycle(state: StateStore, of: OwnerRef, result: 'ok' | 'error', at = T): number {
  const id = state.cycles.start({ trigger: 'webhook', owner: of, startedAt: at });
  state.cycles.finish(id, { result, finishedAt: at });
  return id;
}

describe('a webhook event is done only once a sync of its entity went through', () => {
  const db = useStateStore();

  it('is silent when the sync the event asked for went through', () => {
    const state = db.open();
    const hook = took(state, cycle(state, owner, 'ok'));
    cycle(state, owner, 'ok');
    state.webhookEvents.markDone(hook.eventId, T);
    expect(webhookFindings(state, [hook])).toEqual([]);
  });

  it('names an event done after its sync failed', () => {
    const state = db.open();
    const hook = took(state, 0);
    cycle(state, owner, 'error');
    state.webhookEvents.markDone(hook.eventId, T);
    expect(webhookFindings(state, [hook])).toEqual([
      {
        invariant: WEBHOOKS_DONE,
        detail:
          'statusChange 1000001 (sim-1-1) is done, yet no sync of its entity went through after it came',
      },
    ]);
  });

  it('takes no sync begun before the event came, nor another entity’s, nor one ended after', () => {
    const state = db.open();
    const hook = took(state, cycle(state, owner, 'ok'));
    cycle(state, { kind: 'company', id: 'c2' }, 'ok');
    cycle(state, owner, 'ok', T + 1000);
    state.webhookEvents.markDone(hook.eventId, T);
    expect(webhookFindings(state, [hook]).map((f) => f.invariant)).toEqual([WEBHOOKS_DONE]);
  });

  it('takes a poll of a round, which records no cycle, seen to begin after the post and go through', async () => {
    const state = db.open();
    const queue = new WebhookQueue(1);
    const hook = queue.queue(owner, '1000001', 'statusChange');
    const done = (id: string) => state.webhookEvents.get(id)?.state === 'done';
    // Posted to nowhere: the tick is taken before the post, whatever its answer.
    await queue.deliver(hook, 'http://127.0.0.1:9/', 0).catch(() => 0);
    took(state, 0);
    queue.syncBegan('all');
    queue.syncEnded('all', false, done);
    expect(hook.answered).toBeUndefined();
    queue.syncBegan([owner]);
    queue.syncEnded([owner], true, done);
    state.webhookEvents.markDone(hook.eventId, T);
    expect(webhookFindings(state, [{ ...hook, deliveries: 1 }])).toEqual([]);
  });

  it('lets an event of an entity the service no longer has be done without a sync', () => {
    const state = db.open();
    const hook = took(state, 0);
    state.webhookEvents.markDone(hook.eventId, T);
    expect(webhookFindings(state, [hook], new Set(['company:c1']))).toEqual([]);
  });
});
