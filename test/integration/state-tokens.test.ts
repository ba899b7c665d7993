import { describe, expect, it } from 'vitest';
import { StateError } from '../../src/domain/errors.js';
import { useStateStore } from '../helpers/state-store.js';

const state = useStateStore();

const first = {
  accessToken: 'access-1',
  accessTokenExpiresAt: 1_000_000,
  refreshToken: 'refresh-1',
  scope: 'cas',
  obtainedAt: 400_000,
};

describe('token store', () => {
  it('is empty at first, then returns the saved set across a reopen', () => {
    const store = state.open();
    expect(store.tokens.read()).toBeNull();
    store.tokens.save(first);
    store.close();
    expect(state.open().tokens.read()).toEqual(first);
  });

  it('replaces a rotated refresh token together with its access token', () => {
    const { tokens } = state.open();
    tokens.save(first);
    const rotated = {
      ...first,
      accessToken: 'access-2',
      refreshToken: 'refresh-2',
      obtainedAt: 900_000,
    };
    tokens.save(rotated);
    expect(tokens.read()).toEqual(rotated);
  });

  it('keeps the stored refresh token when the service did not send a new one', () => {
    const { tokens } = state.open();
    tokens.save(first);
    const saved = tokens.save({ ...first, accessToken: 'access-2', refreshToken: undefined });
    expect(saved.refreshToken).toBe('refresh-1');
    expect(tokens.read()).toMatchObject({ accessToken: 'access-2', refreshToken: 'refresh-1' });
  });

  it('refuses a set without any refresh token', () => {
    const { tokens } = state.open();
    expect(() => tokens.save({ ...first, refreshToken: undefined })).toThrow(StateError);
    expect(tokens.read()).toBeNull();
  });

  it('never leaves half a rotation: a save that cannot commit on its own leaves the old set', () => {
    const store = state.open();
    store.tokens.save(first);
    // Inside someone else's transaction the save could not flush its own commit, so it refuses.
    expect(() =>
      store.transaction(() => {
        store.tokens.save({ ...first, accessToken: 'access-2', refreshToken: 'refresh-2' });
      }),
    ).toThrow(/inside an open transaction/);
    expect(store.tokens.read()).toEqual(first);
  });

  it('clear forgets the tokens', () => {
    const { tokens } = state.open();
    tokens.save(first);
    tokens.clear();
    expect(tokens.read()).toBeNull();
  });

  describe('seeding from DOCSYNC_REFRESH_TOKEN', () => {
    it('stores the seed when no token is stored', () => {
      const { tokens } = state.open();
      expect(tokens.seedRefreshToken('seed-1', 5)).toBe('stored');
      expect(tokens.read()).toEqual({
        accessToken: null,
        accessTokenExpiresAt: null,
        refreshToken: 'seed-1',
        scope: null,
        obtainedAt: 5,
      });
    });

    it('does not put the same seed back over the token it was rotated into', () => {
      const store = state.open();
      store.tokens.seedRefreshToken('seed-1');
      store.tokens.save({ ...first, refreshToken: 'rotated-from-seed' });
      store.close();

      const restarted = state.open();
      expect(restarted.tokens.seedRefreshToken('seed-1')).toBe('already-seeded');
      expect(restarted.tokens.read()?.refreshToken).toBe('rotated-from-seed');
    });

    it('stores a new seed the operator put in the environment', () => {
      const { tokens } = state.open();
      tokens.seedRefreshToken('seed-1');
      tokens.save({ ...first, refreshToken: 'rotated-from-seed' });
      expect(tokens.seedRefreshToken('seed-2')).toBe('stored');
      expect(tokens.read()).toMatchObject({ refreshToken: 'seed-2', accessToken: null });
    });

    it('stores the seed again after the tokens were cleared', () => {
      const { tokens } = state.open();
      tokens.seedRefreshToken('seed-1');
      tokens.clear();
      expect(tokens.seedRefreshToken('seed-1')).toBe('stored');
      expect(tokens.read()?.refreshToken).toBe('seed-1');
    });

    it('keeps only a hash of the seed', () => {
      const store = state.open();
      store.tokens.seedRefreshToken('seed-secret');
      store.tokens.save({ ...first, refreshToken: 'rotated' });
      const row = store.db.prepare('SELECT * FROM oauth_tokens').get();
      expect(JSON.stringify(row)).not.toContain('seed-secret');
    });
  });
});
