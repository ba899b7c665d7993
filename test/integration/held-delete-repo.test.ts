/**
 * The holds of removed folders' deletes in the state (held-delete-repo.ts), on a real state file:
 * what the daemon reads after each sync to ask for the entity's sync again when a hold ends
 * (the daemon's own timing is test/integration/daemon-mass-delete.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { WaitingDeleteFacts } from '../../src/domain/held-deletes.js';
import type { OwnerRef } from '../../src/domain/types.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';

const { open } = useStateStore();

const waiting = (owner: OwnerRef, documentId: string, dueAt: number): WaitingDeleteFacts => ({
  owner,
  documentId,
  side: 'remote',
  folder: `Companies/Acme/${documentId}`,
  documentName: documentId,
  reason: 'removed',
  dueAt,
});

describe('the holds of deletes as the daemon reads them', () => {
  it('says, per entity, when its first hold still to come ends, and nothing of holds over or decided', () => {
    const state = open();
    const now = Date.now();
    const other: OwnerRef = { kind: 'company', id: 'c0ffee-0002' };
    state.heldDeletes.wait(
      [
        waiting(COMPANY, '1', now + 90_000),
        waiting(COMPANY, '3', now + 60_000),
        waiting(TRUST, '2', now + 60_000),
        waiting(other, '4', now - 1_000),
      ],
      now - 61_000,
    );
    expect(state.heldDeletes.endingOf(COMPANY, now)).toBe(now + 60_000);
    expect(state.heldDeletes.endingOf(other, now), 'over: the catch-up judges it').toBeNull();
    expect(
      state.heldDeletes
        .endings(now)
        .map((e) => [e.owner.id, e.dueAt])
        .sort(),
    ).toEqual([
      ['20053', now + 60_000],
      ['c0ffee-0001', now + 60_000],
    ]);
    state.heldDeletes.decide([{ documentId: '3', side: 'remote' }], 'approve', now);
    expect(state.heldDeletes.endingOf(COMPANY, now), 'a decided one waits for no time').toBe(
      now + 90_000,
    );
  });

  it('leaves holds over before it started to the daemon’s catch-up, and a rail’s holds alone', () => {
    const state = open();
    const now = Date.now();
    state.heldDeletes.wait([waiting(COMPANY, '1', now - 1000)], now - 61_000);
    state.heldDeletes.hold([{ ...waiting(TRUST, '2', 0), reason: 'over the limit' }], now);
    expect(state.heldDeletes.endings(now)).toEqual([]);
    expect(state.heldDeletes.inHold()).toEqual({ local: 0, remote: 1 });
    // A rail holding the side holds the one in its hold too.
    expect(state.heldDeletes.holdWaiting('remote', 'over the limit', now)).toBe(1);
    expect(state.heldDeletes.inHold()).toEqual({ local: 0, remote: 0 });
    expect(state.heldDeletes.tally()).toMatchObject({ waiting: 2, inHold: 0, inHoldUntil: null });
  });

  it('keeps when a hold ends as the delete is seen again, and a rail’s hold over a wait', () => {
    const state = open();
    state.heldDeletes.wait([waiting(COMPANY, '1', 5000)], 1000);
    state.heldDeletes.wait([waiting(COMPANY, '1', 9000)], 2000);
    expect(state.heldDeletes.undecided('1', 'remote')).toEqual({ dueAt: 5000 });
    expect(state.heldDeletes.list()[0]).toMatchObject({ firstHeldAt: 1000, lastHeldAt: 2000 });
    state.heldDeletes.hold([{ ...waiting(COMPANY, '1', 0), reason: 'over the limit' }], 3000);
    expect(state.heldDeletes.undecided('1', 'remote')).toEqual({ dueAt: null });
    state.heldDeletes.decide([{ documentId: '1', side: 'remote' }], 'approve', 4000);
    expect(state.heldDeletes.undecided('1', 'remote')).toBeUndefined();
  });
});
