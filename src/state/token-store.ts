/**
 * The OAuth token set, one row. The service may rotate the refresh token on every refresh (the
 * old one then stops working, api.md), so the rules here are about never holding a dead one:
 *
 * - `save` writes access token, expiry and refresh token in one statement inside one transaction,
 *   so a crash leaves either the whole old set or the whole new set, never a new access token
 *   beside the old (already revoked) refresh token, which would work until the access token
 *   expires and then fail for good. `save` commits `durably`: once it returns the new set is
 *   on disk (a power cut cannot bring back the revoked one): the client must call it before it uses the new access token for anything.
 * - The only window we cannot close is between the service rotating and our commit (a crash
 *   while the refresh response is in flight); that needs `docsync auth login` again.
 * - `seedRefreshToken` (DOCSYNC_REFRESH_TOKEN) must not overwrite a rotated descendant of the
 *   same seed at every restart: the environment keeps the old value forever. So a seed is stored
 *   when no refresh token is stored, or when it differs from the last seed applied (the operator
 *   put a new token in the environment). Only a SHA-256 of the seed is kept, for that comparison.
 */
import { createHash } from 'node:crypto';
import { StateError } from '../domain/errors.js';
import type {
  TokenSet,
  TokenSetUpdate,
  TokenStore as TokenStorePort,
} from '../remote/token-manager.js';
import { durably } from './durably.js';
import type { Database } from './open-database.js';

// The shapes are the client's port (remote/token-manager.ts); this is its SQLite adapter.
export type { TokenSet, TokenSetUpdate };

export type SeedOutcome = 'stored' | 'already-seeded';

interface TokenRow {
  access_token: string | null;
  access_expires_at: number | null;
  refresh_token: string | null;
  scope: string | null;
  obtained_at: number | null;
  seed_sha256: string | null;
}

export class TokenStore implements TokenStorePort {
  readonly #select;
  readonly #upsert;
  readonly #clear;
  readonly #seed;
  readonly #save;
  readonly #applySeed;
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    this.#select = db.prepare<[], TokenRow>('SELECT * FROM oauth_tokens WHERE id = 1');
    this.#upsert = db.prepare(
      `INSERT INTO oauth_tokens (id, access_token, access_expires_at, refresh_token, scope, obtained_at)
       VALUES (1, @accessToken, @accessTokenExpiresAt, @refreshToken, @scope, @obtainedAt)
       ON CONFLICT (id) DO UPDATE SET access_token = excluded.access_token,
         access_expires_at = excluded.access_expires_at, refresh_token = excluded.refresh_token,
         scope = excluded.scope, obtained_at = excluded.obtained_at`,
    );
    // Keeps the seed hash: forgetting it would make the next start re-apply a stale seed.
    this.#clear = db.prepare(
      `UPDATE oauth_tokens SET access_token = NULL, access_expires_at = NULL,
         refresh_token = NULL, scope = NULL, obtained_at = NULL WHERE id = 1`,
    );
    this.#seed = db.prepare(
      `INSERT INTO oauth_tokens (id, refresh_token, obtained_at, seed_sha256) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET access_token = NULL, access_expires_at = NULL,
         refresh_token = excluded.refresh_token, scope = NULL,
         obtained_at = excluded.obtained_at, seed_sha256 = excluded.seed_sha256`,
    );
    this.#save = db.transaction((update: TokenSetUpdate): TokenSet => {
      const refreshToken = update.refreshToken ?? this.#select.get()?.refresh_token;
      if (!refreshToken) {
        throw new StateError(
          'NO_REFRESH_TOKEN',
          'The token response has no refresh token and none is stored; run `docsync auth login`.',
        );
      }
      const set: TokenSet = { ...update, refreshToken };
      this.#upsert.run(set);
      return set;
    });
    this.#applySeed = db.transaction((token: string, now: number): SeedOutcome => {
      const row = this.#select.get();
      const hash = sha256(token);
      if (row?.refresh_token && row.seed_sha256 === hash) return 'already-seeded';
      this.#seed.run(token, now, hash);
      return 'stored';
    });
  }

  read(): TokenSet | null {
    const row = this.#select.get();
    if (!row?.refresh_token || row.obtained_at === null) return null;
    return {
      accessToken: row.access_token,
      accessTokenExpiresAt: row.access_expires_at,
      refreshToken: row.refresh_token,
      scope: row.scope,
      obtainedAt: row.obtained_at,
    };
  }

  /** Stores a whole token set atomically; keeps the stored refresh token when none is given. */
  save(update: TokenSetUpdate): TokenSet {
    return durably(this.#db, () => this.#save(update));
  }

  /** Forgets the tokens (e.g. the refresh token was refused); the next run needs a login. */
  clear(): void {
    this.#clear.run();
  }

  /** Applies DOCSYNC_REFRESH_TOKEN by the rule in this file's header. */
  seedRefreshToken(token: string, now: number = Date.now()): SeedOutcome {
    return this.#applySeed.immediate(token, now);
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
