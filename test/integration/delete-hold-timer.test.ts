/**
 * The daemon's timer for hold times (daemon/delete-hold-timer.ts), on a real state file: it
 * asks for the syncs of the entities whose holds end, those ending together at once, each hold
 * once, and the state's repository answers what it needs (held-delete-repo.ts).
 */
import { describe, expect, it } from 'vitest';
import { DeleteHoldTimer } from '../../src/daemon/delete-hold-timer.js';
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

const until = (check: () => boolean) =>
  new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (check()) {
        clearInterval(poll);
        resolve();
      } else if (Date.now() - started > 5000) {
        clearInterval(poll);
        reject(new Error('condition not met in time'));
      }
    }, 5);
  });

describe('DeleteHoldTimer', () => {
  it('asks for the syncs of the entities whose holds end, together and once each', async () => {
    const state = open();
    const now = Date.now();
    state.heldDeletes.wait(
      [
        waiting(COMPANY, '1', now + 40),
        waiting(TRUST, '2', now + 40),
        waiting(COMPANY, '3', now + 200),
      ],
      now,
    );
    const asked: { owner: string; at: number }[] = [];
    const timer = new DeleteHoldTimer({
      state,
      now: Date.now,
      sync: (owner) => asked.push({ owner: owner.kind, at: Date.now() }),
      onError: (error) => {
        throw error;
      },
    });
    timer.arm();
    await until(() => asked.length >= 2);
    expect(asked.map((a) => a.owner).sort()).toEqual(['company', 'trust']);
    expect(asked.every((a) => a.at >= now + 40)).toBe(true);
    // The company's second hold ends later: asked for again then, and only then.
    await until(() => asked.length >= 3);
    expect(asked[2]).toMatchObject({ owner: 'company' });
    expect(asked[2]!.at).toBeGreaterThanOrEqual(now + 200);
    // A hold already asked for (its sync may have failed) is not asked for again.
    timer.arm();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(asked).toHaveLength(3);
    timer.close();
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
