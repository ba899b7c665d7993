/**
 * The daemon's timer for hold times (daemon/delete-hold-timer.ts), on a real state file and a
 * clock the test moves: it asks for the syncs of the entities whose holds end, when they end and
 * not before, those ending together at once, each hold once, and the state's repository answers
 * what it needs (held-delete-repo.ts).
 */
import { describe, expect, it } from 'vitest';
import { DeleteHoldTimer } from '../../src/daemon/delete-hold-timer.js';
import type { WaitingDeleteFacts } from '../../src/domain/held-deletes.js';
import type { OwnerRef } from '../../src/domain/types.js';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';
import { TestClock } from '../helpers/test-clock.js';

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

describe('DeleteHoldTimer', () => {
  it('asks for the syncs of the entities whose holds end, when they end, together and once each', () => {
    const state = open();
    const clock = new TestClock({ standsStill: true });
    const now = clock.now();
    const later: OwnerRef = { kind: 'company', id: 'c0ffee-0002' };
    state.heldDeletes.wait(
      [
        waiting(COMPANY, '1', now + 60_000),
        waiting(TRUST, '2', now + 60_000),
        waiting(COMPANY, '3', now + 90_000),
        waiting(later, '4', now + 90_000),
      ],
      now,
    );
    const asked: { owner: string; at: number }[] = [];
    const timer = new DeleteHoldTimer({
      state,
      clock,
      sync: (owner) => asked.push({ owner: `${owner.kind} ${owner.id}`, at: clock.now() }),
      onError: (error) => {
        throw error;
      },
    });
    timer.arm();
    clock.advanceTo(now + 59_999);
    expect(asked, 'nothing before the first hold ends').toEqual([]);
    clock.advance(1);
    expect(asked.map((a) => a.owner).sort()).toEqual(['company c0ffee-0001', 'trust 20053']);
    expect(asked.every((a) => a.at === now + 60_000)).toBe(true);
    // The company's second hold and the other company's end later: asked for then, and only then.
    clock.advanceTo(now + 89_999);
    expect(asked).toHaveLength(2);
    clock.advance(1);
    expect(
      asked
        .slice(2)
        .map((a) => a.owner)
        .sort(),
    ).toEqual(['company c0ffee-0001', 'company c0ffee-0002']);
    expect(asked.slice(2).every((a) => a.at === now + 90_000)).toBe(true);
    // A hold already asked for (its sync may have failed) is not asked for again.
    timer.arm();
    expect(clock.nextAt()).toBeNull();
    clock.advance(3_600_000);
    expect(asked).toHaveLength(4);
    timer.close();
  });

  it('sets no timer after close, and a hold ending sooner than the one it waits for moves it up', () => {
    const state = open();
    const clock = new TestClock({ standsStill: true });
    const now = clock.now();
    const asked: string[] = [];
    const timer = new DeleteHoldTimer({
      state,
      clock,
      sync: (owner) => asked.push(owner.kind),
      onError: (error) => {
        throw error;
      },
    });
    state.heldDeletes.wait([waiting(COMPANY, '1', now + 60_000)], now);
    timer.arm();
    expect(clock.nextAt()).toBe(now + 60_000);
    state.heldDeletes.wait([waiting(TRUST, '2', now + 30_000)], now);
    timer.arm();
    expect(clock.nextAt()).toBe(now + 30_000);
    clock.advanceTo(now + 30_000);
    expect(asked).toEqual(['trust']);
    expect(clock.nextAt()).toBe(now + 60_000);
    timer.close();
    expect(clock.nextAt()).toBeNull();
    timer.arm();
    clock.advance(3_600_000);
    expect(asked).toEqual(['trust']);
  });

  it('leaves holds over before it started to the daemon’s catch-up, and a rail’s holds alone', () => {
    const state = open();
    const now = Date.now();
    state.heldDeletes.wait([waiting(COMPANY, '1', now - 1000)], now - 61_000);
    state.heldDeletes.hold([{ ...waiting(TRUST, '2', 0), reason: 'over the limit' }], now);
    expect(state.heldDeletes.nextDue(now)).toBeNull();
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
