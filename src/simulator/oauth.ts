/**
 * OAuth 2.0 authorization-code grant as api.md describes it: codes are single-use, access
 * tokens expire, and a refresh rotates the refresh token (the old one stops working). The
 * authorise step approves at once: the simulator has one firm user who always says yes.
 */
import { randomUUID } from 'node:crypto';
import { SimError } from './sim-error.js';
import type { Actor } from './store.js';

export const FIRM_USER: Actor = { userId: 'user-1001', name: 'Alex Practice' };

const CODE_TTL_MS = 10 * 60 * 1000;

interface Grant {
  readonly clientId: string;
  readonly scope: string;
  readonly actor: Actor;
}

export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'bearer';
  readonly refresh_token: string;
  readonly expires_in: number;
  readonly scope: string;
}

export class OAuthServer {
  private readonly clients = new Map<string, string>();
  private readonly codes = new Map<string, Grant & { redirectUri: string; expiresAt: number }>();
  private readonly accessTokens = new Map<string, Grant & { expiresAt: number }>();
  private readonly refreshTokens = new Map<string, Grant>();

  constructor(private accessTokenTtlSeconds: number) {}

  registerClient(clientId: string, clientSecret: string): void {
    this.clients.set(clientId, clientSecret);
  }

  hasClient(clientId: string): boolean {
    return this.clients.has(clientId);
  }

  issueCode(clientId: string, redirectUri: string, scope: string): string {
    const code = randomUUID();
    this.codes.set(code, {
      clientId,
      redirectUri,
      scope,
      actor: FIRM_USER,
      expiresAt: Date.now() + CODE_TTL_MS,
    });
    return code;
  }

  /**
   * The client's credentials, as `Authorization: Basic base64(id:secret)` (client_secret_basic)
   * or as `client_id` and `client_secret` in a form body (client_secret_post); RFC 6749 §2.3
   * forbids using both at once. Returns the client id.
   */
  authenticateClient(header: string | undefined, form: URLSearchParams): string {
    const inForm = form.has('client_id') || form.has('client_secret');
    if (header !== undefined && inForm) {
      throw new SimError(400, 'invalid_request', 'Use one client authentication method, not two');
    }
    let id: string;
    let secret: string;
    if (inForm) {
      id = form.get('client_id') ?? '';
      secret = form.get('client_secret') ?? '';
    } else {
      const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
      const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      id = colon < 0 ? '' : decoded.slice(0, colon);
      secret = colon < 0 ? '' : decoded.slice(colon + 1);
    }
    if (!id || this.clients.get(id) !== secret) {
      throw new SimError(401, 'invalid_client', 'Client authentication failed');
    }
    return id;
  }

  exchangeCode(clientId: string, code: string, redirectUri: string | null): TokenResponse {
    const grant = this.codes.get(code);
    this.codes.delete(code);
    if (!grant || grant.clientId !== clientId || grant.expiresAt < Date.now()) {
      throw new SimError(400, 'invalid_grant', 'Unknown, used or expired authorization code');
    }
    if (redirectUri !== null && redirectUri !== grant.redirectUri) {
      throw new SimError(400, 'invalid_grant', 'redirect_uri differs from the authorise request');
    }
    return this.issueTokens(grant);
  }

  /** `scope`, when given, may not ask for more than the grant has (RFC 6749 §6). */
  refresh(clientId: string, refreshToken: string, scope: string | null = null): TokenResponse {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant || grant.clientId !== clientId) {
      throw new SimError(400, 'invalid_grant', 'Unknown or already used refresh token');
    }
    const granted = new Set(grant.scope.split(' '));
    const beyond = (scope ?? '').split(' ').filter((s) => s && !granted.has(s));
    if (beyond.length > 0) {
      throw new SimError(
        400,
        'invalid_scope',
        `The grant has scope "${grant.scope}", not ${beyond.map((s) => `"${s}"`).join(', ')}`,
      );
    }
    this.refreshTokens.delete(refreshToken);
    return this.issueTokens(grant);
  }

  /** For the admin API: a refresh token as if the firm user had authorised the client. */
  mintRefreshToken(clientId: string, scope = 'cas'): string {
    if (!this.clients.has(clientId)) throw new SimError(404, 'not_found', `No client ${clientId}`);
    const token = randomUUID();
    this.refreshTokens.set(token, { clientId, scope, actor: FIRM_USER });
    return token;
  }

  /** The user behind a bearer token; 401 for a missing, unknown or expired one. */
  authenticate(header: string | undefined): { actor: Actor; token: string } {
    const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
    if (!match) throw new SimError(401, 'unauthorized', 'A bearer token is required');
    const grant = this.accessTokens.get(match[1]!);
    if (!grant) throw new SimError(401, 'invalid_token', 'Unknown access token');
    if (grant.expiresAt <= Date.now()) {
      this.accessTokens.delete(match[1]!);
      throw new SimError(401, 'token_expired', 'The access token has expired');
    }
    return { actor: grant.actor, token: match[1]! };
  }

  setAccessTokenTtl(seconds: number): void {
    this.accessTokenTtlSeconds = seconds;
  }

  private issueTokens(grant: Grant): TokenResponse {
    const access = randomUUID();
    const refresh = randomUUID();
    const ttl = this.accessTokenTtlSeconds;
    this.accessTokens.set(access, { ...grant, expiresAt: Date.now() + ttl * 1000 });
    this.refreshTokens.set(refresh, grant);
    return {
      access_token: access,
      token_type: 'bearer',
      refresh_token: refresh,
      expires_in: Math.ceil(ttl),
      scope: grant.scope,
    };
  }
}
