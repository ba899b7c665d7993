import { describe, expect, it } from 'vitest';
import { durably } from '../../src/state/durably.js';
import { useStateStore } from '../helpers/state-store.js';

const state = useStateStore();

const FULL = 2;
const NORMAL = 1;
const synchronous = (store: ReturnType<typeof state.open>) =>
  store.db.pragma('synchronous', { simple: true });

describe('state durability (docs/state.md "Durability")', () => {
  it('commits without a flush by default, so bookkeeping never blocks the loop on the disk', () => {
    expect(synchronous(state.open())).toBe(NORMAL);
  });

  it('flushes a durable commit, then goes back to cheap commits', () => {
    const store = state.open();
    const seen = durably(store.db, () => {
      store.settings.markInitialSyncDone();
      return synchronous(store);
    });
    expect(seen).toBe(FULL);
    expect(synchronous(store)).toBe(NORMAL);
    expect(store.settings.initialSyncDone()).toBe(true);
  });

  it('refuses a durable step inside an open transaction, which would commit it unflushed', () => {
    const store = state.open();
    const owner = { kind: 'trust', id: '20053' } as const;
    const id = store.outbox.record({
      owner,
      documentId: '1075468',
      kind: 'upload-attachment',
      payload: { fileName: 'a.pdf', sha256: 'abc', size: 1, mtimeMs: 1 },
    });
    expect(() => store.transaction(() => store.outbox.markSent(id))).toThrow(
      /inside an open transaction/,
    );
    expect(store.outbox.get(id)?.state).toBe('pending');
    expect(synchronous(store)).toBe(NORMAL);
  });

  it('flushes the three promises: a push about to leave, a rotated token, an answered webhook', () => {
    const store = state.open();
    const inside =
      <T>(fn: () => T) =>
      () =>
        store.transaction(fn);
    expect(inside(() => store.tokens.save(tokenSet()))).toThrow(/inside an open transaction/);
    expect(inside(() => store.receiveWebhookEvent(event()))).toThrow(/inside an open transaction/);
    // Outside a transaction they commit, flushed, and return as before.
    expect(store.tokens.save(tokenSet()).refreshToken).toBe('r2');
    expect(store.receiveWebhookEvent(event())).toBe(true);
  });
});

const tokenSet = () => ({
  accessToken: 'a2',
  accessTokenExpiresAt: 2_000,
  refreshToken: 'r2',
  scope: 'cas',
  obtainedAt: 1_000,
});

const event = () => ({
  eventId: 'e-1',
  entityId: '20053',
  subType: 'updateDocument',
  documentIds: ['1075468'],
  rawBody: '{}',
  receivedAt: 1_000,
});
