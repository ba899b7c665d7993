/**
 * OAuth tokens: a valid access token on demand, refreshed shortly before it expires and once
 * more when the service answers 401, with the rotated refresh token stored before it is used.
 * Token calls bypass the request queue on purpose: a queued request waiting for a refresh that
 * waits for a queue slot would deadlock a full queue.
 */
import type { Got, Response } from 'got';
import * as z from 'zod';
import { ApiError, AuthRequiredError, notAuthorisedYet, tokenRefused } from './api-error.js';
import { ROUTES } from './routes.js';
import { check } from './schemas.js';

/**
 * How docsync proves who it is to the token endpoint (RFC 7591's names): `client_secret_basic`
 * sends `Authorization: Basic base64(id:secret)` (api.md's choice, [ours]);
 * `client_secret_post` sends `client_id` and `client_secret` in a form body instead. The other
 * parameters stay in the query string either way, where the service's docs put them.
 */
export type ClientAuth = 'client_secret_basic' | 'client_secret_post';

export interface TokenSet {
  /** Null when only a refresh token is known (seeded, or after a revoked access token). */
  readonly accessToken: string | null;
  /** Epoch ms after which the access token must not be used. */
  readonly accessTokenExpiresAt: number | null;
  readonly refreshToken: string;
  readonly scope: string | null;
  readonly obtainedAt: number;
}

/** A token response: no `refreshToken` means the service kept the old one. */
export type TokenSetUpdate = Omit<TokenSet, 'refreshToken'> & {
  readonly refreshToken?: string | undefined;
};

/** Where tokens live between runs (the state database). */
export interface TokenStore {
  read(): TokenSet | null;
  /** Must be atomic: a rotated refresh token replaces the old one or nothing changes. */
  save(update: TokenSetUpdate): TokenSet;
}

export interface TokenManagerOptions {
  /** A got instance without auth, pointed at nothing in particular; URLs are absolute. */
  readonly http: Got;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string;
  readonly store: TokenStore;
  /** Default `client_secret_basic`. */
  readonly clientAuth?: ClientAuth;
  /** The token endpoint's path on `baseUrl` (`service.routes.token`); default the table's. */
  readonly tokenPath?: string;
  readonly now?: () => number;
  /** Refresh this long before the expiry the service announced. */
  readonly marginMs?: number;
}

const tokenResponse = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).optional(),
  expires_in: z.number().positive(),
  scope: z.string().optional(),
});

export class TokenManager {
  readonly #options: TokenManagerOptions;
  readonly #now: () => number;
  #inflight: Promise<TokenSet> | undefined;
  /**
   * The set last read or granted. Reading the store for every request cost a SQLite query
   * each. A grant another process stores meanwhile (`docsync
   * auth login`) is still found: the kept token serves until it expires or is refused, and a
   * refresh always reads the store again.
   */
  #current: TokenSet | undefined;

  constructor(options: TokenManagerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get store(): TokenStore {
    return this.#options.store;
  }

  /** A token the service should accept now. */
  async accessToken(): Promise<string> {
    if (this.#current && this.#usable(this.#current)) return this.#current.accessToken!;
    const stored = this.#options.store.read();
    if (!stored) throw notAuthorisedYet();
    if (this.#usable(stored)) {
      this.#current = stored;
      return stored.accessToken!;
    }
    const fresh = await this.refresh(stored.accessToken ?? undefined);
    return fresh.accessToken!;
  }

  #usable(set: TokenSet): boolean {
    const expiresAt = set.accessTokenExpiresAt ?? 0;
    // Refresh a minute early, or a quarter of the lifetime for short-lived tokens: a fixed
    // margin longer than the lifetime would refresh before every single request.
    const lifetime = expiresAt - set.obtainedAt;
    const margin = Math.min(this.#options.marginMs ?? 60_000, Math.max(0, lifetime / 4));
    return Boolean(set.accessToken) && expiresAt - margin > this.#now();
  }

  /**
   * Refreshes once for everyone: concurrent callers share one request. `rejected` is the access
   * token the caller saw fail; if another caller already replaced it, no new refresh is needed.
   */
  refresh(rejected?: string): Promise<TokenSet> {
    this.#current = undefined;
    const stored = this.#options.store.read();
    if (!stored) return Promise.reject(notAuthorisedYet());
    if (rejected !== undefined && stored.accessToken !== rejected && !this.#inflight) {
      return Promise.resolve(stored);
    }
    this.#inflight ??= this.#grant({
      grant_type: 'refresh_token',
      refresh_token: stored.refreshToken,
      scope: this.#options.scope,
    }).finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** The authorization-code step of `docsync auth login`. */
  exchangeCode(code: string, redirectUri: string): Promise<TokenSet> {
    return this.#grant({
      grant_type: 'authorization_code',
      code,
      scope: this.#options.scope,
      redirect_uri: redirectUri,
    });
  }

  async #grant(params: Record<string, string>): Promise<TokenSet> {
    const { http, baseUrl, clientId, clientSecret } = this.#options;
    const path = this.#options.tokenPath ?? ROUTES.token.path;
    const routeName = `${ROUTES.token.method} ${path}`;
    const clientAuth = this.#options.clientAuth ?? 'client_secret_basic';
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
    let response: Response<string>;
    try {
      // Parameters in the query string, as the service's docs show (api.md).
      response = await http(`${baseUrl}${path}`, {
        method: 'POST',
        searchParams: params,
        headers: {
          accept: 'application/json',
          ...(clientAuth === 'client_secret_basic' ? { authorization: `Basic ${basic}` } : {}),
        },
        ...(clientAuth === 'client_secret_post'
          ? { form: { client_id: clientId, client_secret: clientSecret } }
          : {}),
        throwHttpErrors: false,
        retry: { limit: 0 },
        followRedirect: false,
        timeout: { request: 30_000 },
        responseType: 'text',
      });
    } catch (error) {
      throw new ApiError('NETWORK', `${routeName}: ${(error as Error).message}`, {
        route: routeName,
        networkCode: (error as NodeJS.ErrnoException).code,
        cause: error,
      });
    }
    if (response.statusCode === 400 || response.statusCode === 401) {
      throw tokenRefused(response.statusCode, response.body, params.grant_type ?? '');
    }
    if (response.statusCode >= 300) {
      throw new ApiError('HTTP_ERROR', `${routeName} answered ${response.statusCode}`, {
        route: routeName,
        status: response.statusCode,
      });
    }
    const body = check(tokenResponse, safeJson(response.body), routeName);
    if (!body.refresh_token && params.grant_type === 'authorization_code') {
      throw new AuthRequiredError('The service granted no refresh token.');
    }
    const { store } = this.#options;
    const now = this.#now();
    // Saved before anyone uses it: after a rotation the old refresh token is dead, so losing
    // the new one to a crash would lock docsync out. No refresh_token: the old one stays valid.
    this.#current = store.save({
      accessToken: body.access_token,
      accessTokenExpiresAt: now + body.expires_in * 1000,
      scope: body.scope ?? this.#options.scope,
      obtainedAt: now,
      ...(body.refresh_token ? { refreshToken: body.refresh_token } : {}),
    });
    return this.#current;
  }
}

function safeJson(text: unknown): unknown {
  try {
    return JSON.parse(String(text));
  } catch {
    return text;
  }
}
