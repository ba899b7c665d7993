/**
 * The rows of work asked for each entity (state/entity-work-repo.ts), on a real state file: one
 * row per entity however often it is asked for, settled only by a sync that started after the
 * asking (and covers what was asked: a full listing by a full sync), kept with its attempts when
 * the sync fails, and still there when the state is opened again.
 */
import { describe, expect, it } from 'vitest';
import { COMPANY, TRUST, useStateStore } from '../helpers/state-store.js';

const { open } = useStateStore();

describe('the rows of work asked for each entity', () => {
  it('merges what is asked for one entity into its row: every reason, the highest lane, the soonest time', () => {
    const state = open();
    state.work.observe(TRUST, { reason: 'cron', lane: 'poll', at: 1000, dueAt: 60_000 });
    state.work.observe(TRUST, { reason: 'webhook', lane: 'webhook', at: 2000 });
    state.work.observe(TRUST, { reason: 'watcher', lane: 'watcher', at: 3000, full: true });
    expect(state.work.get(TRUST)).toMatchObject({
      reasons: ['cron', 'watcher', 'webhook'],
      lane: 'webhook',
      full: true,
      firstSeenAt: 1000,
      lastSeenAt: 3000,
      dueAt: 2000,
    });
    expect(state.work.all()).toHaveLength(1);
  });

  it('is settled by a sync that started after the asking, not by one that started before it', () => {
    const state = open();
    state.work.observe(TRUST, { reason: 'watcher', lane: 'watcher', at: 1000 });
    const syncStarts = state.work.seenSoFar();
    state.work.observe(TRUST, { reason: 'watcher', lane: 'watcher', at: 2000 });
    state.work.settle(TRUST, syncStarts, false);
    expect(state.work.get(TRUST), 'asked for again while that sync ran').not.toBeNull();
    state.work.settle(TRUST, state.work.seenSoFar(), false);
    expect(state.work.get(TRUST)).toBeNull();
  });

  it('keeps a full listing asked for until a full sync, and the other entities whatever settles one', () => {
    const state = open();
    state.work.observe(TRUST, { reason: 'manual', lane: 'webhook', at: 1000, full: true });
    state.work.observe(COMPANY, { reason: 'watcher', lane: 'watcher', at: 1000 });
    const seen = state.work.seenSoFar();
    state.work.settle(TRUST, seen, false);
    expect(state.work.get(TRUST), 'a deletion shows only in a full listing').not.toBeNull();
    state.work.settle(TRUST, seen, true);
    expect(state.work.all().map((w) => w.owner)).toEqual([COMPANY]);
  });

  it('counts the attempts of a failing sync, waits as told, and a new change is due at once', () => {
    const state = open();
    state.work.observe(TRUST, { reason: 'webhook', lane: 'webhook', at: 1000 });
    const asked: number[] = [];
    const wait = (attempts: number) => {
      asked.push(attempts);
      return 10_000 * attempts;
    };
    state.work.failed(TRUST, 'the service answered 503', wait);
    const row = state.work.failed(TRUST, 'the service answered 503', wait);
    expect(asked).toEqual([1, 2]);
    expect(row).toMatchObject({
      attempts: 2,
      lastError: 'the service answered 503',
      dueAt: 20_000,
    });
    expect(state.work.failed(COMPANY, 'x', wait), 'a poll leaves no row').toBeNull();
    state.work.observe(TRUST, { reason: 'watcher', lane: 'watcher', at: 15_000 });
    expect(state.work.get(TRUST)?.dueAt).toBe(15_000);
  });

  it('shows the local work a look found until a sync sends it, and outlives a restart', () => {
    const state = open();
    state.work.noteLocal(TRUST, { documents: 2, files: 5 }, 1000);
    state.work.noteLocal(COMPANY, null, 1000);
    expect(
      state.work.all().map((w) => w.owner),
      'finding nothing asks for nothing',
    ).toEqual([TRUST]);
    state.close();
    const again = open();
    expect(again.work.localTally()).toEqual({ entities: 1, documents: 2, files: 5, since: 1000 });
    const seen = again.work.seenSoFar();
    again.work.observe(TRUST, { reason: 'watcher', lane: 'watcher', at: 2000 });
    expect(again.work.seenSoFar(), 'numbers go on from those kept').toBeGreaterThan(seen);
    again.work.settle(TRUST, seen, false);
    expect(again.work.localTally().entities, 'sent by the sync, though the row stays').toBe(0);
    expect(again.work.get(TRUST)).not.toBeNull();
  });
});
